/// The state of one ``Timeline``, and the events that change it: what is pending, in what order,
/// and what time it is.
///
/// A pure state machine: no lock, no strings, no reports. Each event returns what the caller
/// must know — the problem to report, the action to run, the closure to release — and the
/// ``Timeline`` that owns this state runs every event under its lock, then reports, runs and
/// releases after unlocking. The rules it keeps are those of ``Timeline``: entries run in
/// (date, sequence) order, `now` never moves back, past dates run at `now`, a repeating entry
/// keeps its sequence and its k-th repeat is due at `start + k × interval` when the interval
/// can be multiplied exactly.
///
/// The pending work (``PendingWork``) and `now` (``CurrentTime``) are kept by references, so a
/// copy of this state shares them: the one owner keeps the one state. Every field of the struct
/// itself has a fixed size whatever `Time` is: a struct with a field of a generic type has no
/// fixed layout, and unspecialized code then looks up the struct's metadata (a few hundred
/// instructions) on every access to any of its fields. That is why `now`, a `Time`, is not a
/// field here but in an object of its own, which finds its field through the instance's own
/// metadata. For the same reason ``Timeline`` runs the events on the path of every action through
/// ``TimelineEvents``, generic functions into which a debug build inlines them: unspecialized
/// code that calls a method of a generic struct looks up the struct's metadata to pass it, at
/// every call. Those events are `@_transparent` in debug builds only (the one inlining a debug
/// build does, within a file), `@inline(__always)` in release builds, which measured up to 5 %
/// more instructions with them transparent (`Benchmarks/Logs/heap-in-debug-2026-12-07.md`).
struct TimelineState<Time: Comparable, Interval: Comparable & AdditiveArithmetic>: ~Copyable {
  typealias Action = () -> Void
  typealias Handle = Timeline<Time, Interval>.Handle

  typealias DateProblem = TimelineDateProblem
  typealias TargetProblem = TimelineTargetProblem
  typealias Taken = TimelineTaken

  // Every field has a fixed size: see the type's documentation.
  /// Pending entries, cancelled ones included, ordered by (date, sequence).
  let pending: any PendingWork<Time>
  /// `now`, kept in an object rather than here: see the type's documentation.
  private let current: CurrentTime<Time>
  private var nextSequence: UInt64 = 0
  /// Entries whose handle was cancelled; they are dropped when reached or when compacting.
  private(set) var cancelled = 0
  /// Whether the storage has asked its shared group to keep it alive (see ``updateHold()``).
  private var isHeld = false
  /// The shared time of `now`, when the timeline shares its time: a date type coarser than the
  /// shared time cannot say it exactly, so work due now is due at this shared time.
  private(set) var sharedNow: Duration = .zero
  /// How the owner's time moves.
  let advancedBy: (Time, Interval) -> Time
  /// `interval × k`, when `Interval` is a ``TimelineGridStride``; looked up when the first
  /// repeating handle is scheduled (see ``gridOfRepeats()``).
  private var grid: (any TimelineGridStride.Type)?
  private var hasLookedUpGrid = false

  init(now: Time, sharedNow: Duration = .zero, advancedBy: @escaping (Time, Interval) -> Time) {
    self.pending = makePendingWork(for: Time.self)
    self.current = CurrentTime(now)
    self.sharedNow = sharedNow
    self.advancedBy = advancedBy
  }

  /// How repeats are multiplied (see ``TimelineGridStride``). Looked up on first use rather than
  /// when the state is made: the first lookup of a conformance in a process scans the runtime's
  /// conformance records, a few hundred thousand instructions that a timeline with no repeating
  /// work should not pay.
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  mutating func gridOfRepeats() -> (any TimelineGridStride.Type)? {
    if !hasLookedUpGrid {
      grid = gridStride(for: Interval.self)
      hasLookedUpGrid = true
    }
    return grid
  }

  /// The current virtual time.
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  var now: Time { current.now }

  /// How many entries are waiting to run (cancelled ones excluded).
  ///
  /// - Complexity: O(1)
  @inline(__always)
  var pendingCount: Int { pending.count - cancelled }

  // MARK: - Scheduling

  /// How many sequence numbers have been taken: every item ever scheduled here.
  @inline(__always)
  var scheduledCount: UInt64 { nextSequence }

  /// The next sequence number of a timeline that numbers its own work.
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  mutating func takeSequence() -> UInt64 {
    defer { nextSequence &+= 1 }
    return nextSequence
  }

  /// Puts `job` in the heap at `date`, or at `now` if `date` is past or invalid, and answers the
  /// date it is due at. A date that compares as both before and after `now` cannot be ordered,
  /// so the job is left out.
  ///
  /// - Complexity: O(log n)
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  mutating func insert(
    _ job: TimelineJob, after date: Time, sequence: UInt64
  ) -> (problem: DateProblem?, due: Time) {
    let isLater = now < date
    if isLater, date < now { return (.unrepresentable, now) }
    let isValid = date == date
    let due = isLater && isValid ? date : now
    pending.insert(job, at: due, sequence: sequence)
    return (isValid ? nil : .invalid, due)
  }

  /// Inserts a cancellable `handle` at `date` (see ``insert(_:after:sequence:)``) and records
  /// the date of its first run, from which its repeats are counted. A handle that cannot be
  /// ordered is cancelled at once; the caller still holds its action, so nothing is released.
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  mutating func schedule(_ handle: Handle, after date: Time, sequence: UInt64) -> DateProblem? {
    let (problem, due) = insert(.handle(handle), after: date, sequence: sequence)
    handle.start = due
    if handle.repeats { _ = gridOfRepeats() }
    if problem == .unrepresentable { handle.action = nil }
    return problem
  }

  /// Cancels `handle`: answers its action, for the caller to release after unlocking, or nil if
  /// it had none (cancelled already, or it ran and does not repeat).
  ///
  /// - Complexity: amortized O(1)
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  mutating func cancel(_ handle: TimelineHandle) -> Action? {
    guard let action = handle.action else { return nil }
    handle.action = nil
    cancelled += 1
    if cancelled > 32, cancelled * 2 > pending.count {
      pending.removeCancelled()
      cancelled = 0
    }
    return action
  }

  /// Whether the storage should now ask its group to keep it alive (`true`) or let go of it
  /// (`false`); nil when that has not changed. A member of a shared timeline is kept while it
  /// has pending work, so that work is never lost because the test let go of the member.
  @inline(__always)
  mutating func updateHold() -> Bool? {
    let hasWork = pending.count > cancelled
    guard hasWork != isHeld else { return nil }
    isHeld = hasWork
    return hasWork
  }

  // MARK: - Advancing

  /// Takes the next action due by `bound`, sets `now` to its date and re-arms it if it repeats.
  /// The caller runs the action.
  ///
  /// - Complexity: O(log n)
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  mutating func takeNext(dueBy bound: DueBound) -> Taken? {
    var date = now
    while let (job, sequence) = pending.removeFirst(dueBy: bound, date: &date) {
      var stopped: TimelineHandle?
      let action: Action
      switch job {
      case .once(let once):
        action = once
      case .handle(let handle):
        guard let pendingAction = handle.action else {
          cancelled -= 1
          continue
        }
        action = pendingAction
        if handle.repeats {
          let handle = unsafeDowncast(handle, to: Handle.self)
          if !rearm(handle, from: date, sequence: sequence) { stopped = handle }
        } else {
          handle.action = nil
        }
      }
      if now < date { current.now = date }
      return Taken(action: action, stoppedRepeating: stopped)
    }
    return nil
  }

  /// Puts a repeating handle that just came due back at its next date, keeping its sequence
  /// number. If its interval cannot move `date`, it stops repeating (its action is cleared, but
  /// the caller runs and then releases it) and this answers false.
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  private mutating func rearm(_ handle: Handle, from date: Time, sequence: UInt64) -> Bool {
    var next = date
    // `grid` was looked up when the repeating handle was scheduled.
    guard handle.next(after: date, into: &next, advancedBy: advancedBy, grid: grid) else {
      return false
    }
    pending.insert(.handle(handle), at: next, sequence: sequence)
    return true
  }

  @inline(__always)
  mutating func dateOfRepeat(_ count: Int, from start: Time, every interval: Interval) -> Time? {
    var span = interval
    guard let grid = gridOfRepeats(), gridMultiply(interval, by: count, as: grid, into: &span)
    else { return nil }
    return advancedBy(start, span)
  }

  /// Ends an advance: `now` becomes `target` unless it is already later.
  #if DEBUG
    @_transparent
  #else
    @inline(__always)
  #endif
  mutating func finish(at target: Time) {
    if now < target { current.now = target }
  }

  /// Moves `now` to `date`, and the shared time of `now` to `shared`, unless they are later.
  @inline(__always)
  mutating func catchUp(to date: Time, shared: Duration) {
    if now < date { current.now = date }
    if sharedNow < shared { sharedNow = shared }
  }

  // MARK: - Looking ahead

  /// The date and sequence number of the next live entry, dropping cancelled ones from the
  /// front.
  ///
  /// - Complexity: amortized O(1)
  @inline(__always)
  mutating func next() -> (date: Time, sequence: UInt64)? {
    cancelled -= pending.removeCancelledFirst()
    return pending.first()
  }

  /// The dates, sequence numbers and jobs of the first `first` live entries in the order they
  /// run; for diagnostics.
  ///
  /// - Complexity: O(n + k log n) for n pending
  func entries(first: Int) -> [(date: Time, sequence: UInt64, job: TimelineJob)] {
    var entries: [(Time, UInt64, TimelineJob)] = []
    guard first > 0 else { return entries }
    forEachLiveEntry { date, sequence, job in
      entries.append((date, sequence, job))
      return entries.count < first
    }
    return entries
  }

  /// The date of the last live entry to run, if any; for the verbs that run what is pending
  /// now and no more.
  ///
  /// - Complexity: O(n log n)
  func lastDate() -> Time? {
    var last: Time?
    forEachLiveEntry { date, _, _ in
      last = date
      return true
    }
    return last
  }

  /// The sleeps whose wake-ups are pending, in the order they are due.
  ///
  /// - Complexity: O(n log n) for n pending
  func pendingSleeps() -> [PendingSleep] {
    var sleeps: [PendingSleep] = []
    // Most timelines end with nothing pending: no copy of the heap, generic in a debug build.
    guard pendingCount > 0 else { return sleeps }
    forEachLiveEntry { _, _, job in
      if case .handle(let handle) = job, let sleeper = handle.sleeper {
        sleeps.append(PendingSleep(sleeper: sleeper, wakeUp: handle))
      }
      return true
    }
    return sleeps
  }

  /// Calls `body` with each live entry in the order they run, on a copy of the pending work,
  /// while it answers true.
  private func forEachLiveEntry(_ body: (Time, UInt64, TimelineJob) -> Bool) {
    let live = pending.copy()
    var date = now
    while let (job, sequence) = live.removeFirst(dueBy: .everything, date: &date) {
      if !job.isCancelled, !body(date, sequence, job) { return }
    }
  }

  /// The shared time of a pending date: work due now is due at the shared time of `now`, even
  /// when the dates are too coarse to say it.
  @inline(__always)
  func sharedDate(of date: Time, toShared: (Time) -> Duration) -> Duration {
    guard now < date else { return sharedNow }
    return max(toShared(date), sharedNow)
  }

  /// Clears every pending handle's action and answers them, for the caller to release: the
  /// storage is going away, and handles kept by their cancellables must hold on to nothing.
  func releaseAll() -> [Action] {
    var released: [Action] = []
    // Most timelines end with nothing pending: no walk, generic in a debug build.
    guard pending.count > 0 else { return released }
    pending.forEachJob { job in
      if case .handle(let handle) = job, let action = handle.action {
        handle.action = nil
        released.append(action)
      }
    }
    return released
  }
}

/// A timeline's current time, in an object of its own: see ``TimelineState``.
final class CurrentTime<Time> {
  // Unchecked: only the owning timeline touches it, under its lock.
  @exclusivity(unchecked) var now: Time

  init(_ now: Time) {
    self.now = now
  }
}

/// The events of a timeline's state on the path of every action, as generic functions for
/// ``Timeline`` to call rather than the state's methods: a debug build passes a method of a
/// generic struct the struct's own metadata, looked up at every call (about 160 instructions,
/// six times an action), while a generic function takes `Time` and `Interval`, which the
/// timeline's method holds already. Each inlines its event (`@_transparent`, which a debug build
/// honours within a file), so none calls a method of the state.
enum TimelineEvents {
  @inline(__always)
  static func now<Time, Interval>(_ state: borrowing TimelineState<Time, Interval>) -> Time {
    state.now
  }

  @inline(__always)
  static func takeSequence<Time, Interval>(
    _ state: inout TimelineState<Time, Interval>
  ) -> UInt64 {
    state.takeSequence()
  }

  @inline(__always)
  static func insert<Time, Interval>(
    _ state: inout TimelineState<Time, Interval>, _ job: TimelineJob, after date: Time,
    sequence: UInt64
  ) -> TimelineDateProblem? {
    state.insert(job, after: date, sequence: sequence).problem
  }

  @inline(__always)
  static func schedule<Time, Interval>(
    _ state: inout TimelineState<Time, Interval>, _ handle: Timeline<Time, Interval>.Handle,
    after date: Time, sequence: UInt64
  ) -> TimelineDateProblem? {
    state.schedule(handle, after: date, sequence: sequence)
  }

  @inline(__always)
  static func cancel<Time, Interval>(
    _ state: inout TimelineState<Time, Interval>, _ handle: TimelineHandle
  ) -> (() -> Void)? {
    state.cancel(handle)
  }

  @inline(__always)
  static func takeNext<Time, Interval>(
    _ state: inout TimelineState<Time, Interval>, dueBy bound: DueBound
  ) -> TimelineTaken? {
    state.takeNext(dueBy: bound)
  }

  @inline(__always)
  static func finish<Time, Interval>(
    _ state: inout TimelineState<Time, Interval>, at target: Time
  ) {
    state.finish(at: target)
  }
}
