/// A virtual timeline: pending work ordered by (date, scheduling sequence), a current time that
/// never runs backwards, and the rules for advancing it.
///
/// Both `TestScheduler` and `TestClock` are thin fronts over this one type, so the rules hold for
/// both and are implemented once:
///
/// 1. `now` is set to an action's date before it runs; work scheduled while advancing that falls
///    due by the target runs in the same advance.
/// 2. Ties run in scheduling order; a repeating action keeps its first sequence number, and its
///    k-th repeat is due at exactly `start + k × interval` (see ``TimelineGridStride``).
/// 3. Time never runs backwards: work dated in the past runs at the current `now`; advancing to an
///    earlier instant reports an issue and still runs what is due now.
/// 4. A repeating action whose interval is zero, negative or not a number is reported and runs
///    once; one whose interval is too small to move its date is reported and stops repeating.
/// 5. `run` always returns: it stops within a ``RunBudget`` and reports what is left.
/// 6. All state, `now` included, is behind one lock; actions run outside it, so any thread may
///    schedule, cancel or advance, and an action may advance the timeline it runs on (the nested
///    advance runs the work due by its own target, then the outer one carries on).
///
/// `Time` is the front's own time type and `Interval` its stride; `advancedBy` is how the front's
/// time moves, so no conversion ever rounds a date. The pending work is kept by ``PendingWork``:
/// on a heap of integer keys when `Time` is ``TimelineKeyed``, of the dates themselves otherwise.
///
/// - Complexity: scheduling and running an action are O(log n) for n pending actions;
///   cancelling is O(1) (the entry is skipped when reached, and the heap is compacted when
///   cancelled entries outnumber live ones, amortized O(1) per cancellation).
package final class Timeline<Time: Comparable, Interval: Comparable & AdditiveArithmetic>:
  @unchecked Sendable
{
  package typealias Action = () -> Void

  // Invariant: `lock` guards every stored `var` of this instance, `pending`, and the `action`
  // of every `Handle` it created. No user code (an action, or a closure's deinit) runs while it
  // is held. Since every access is under the lock, the runtime's exclusivity checks on these
  // variables are left out (`@exclusivity(unchecked)`): they cost more than the work itself.
  private let lock = Lock()
  private let advancedBy: (Time, Interval) -> Time
  /// `interval × k`, when `Interval` is a ``TimelineGridStride``.
  private let multiply: ((Interval, Int) -> Interval?)?
  private let name: String
  /// How the runaway report writes a date (the fronts give the time since their start).
  private let describe: (Time) -> String
  @exclusivity(unchecked) private var currentNow: Time
  private let pending = PendingWork<Time>.make(for: Time.self)
  @exclusivity(unchecked) private var nextSequence: UInt64 = 0
  /// Entries whose handle was cancelled; they are dropped when reached or when compacting.
  @exclusivity(unchecked) private var cancelledEntries = 0
  /// Set when this timeline shares its time with others; then every advance advances them all.
  private let sharing: Sharing?
  /// The test executor its async advances wait on when no `withTestExecutor` scope is open.
  package let scope: ImplicitScope
  /// The shared time of `currentNow`, when sharing: a date type coarser than the shared time
  /// (a `Date` near 1970) cannot say it exactly, so work due now is due at this shared time.
  @exclusivity(unchecked) private var sharedNow: Duration = .zero
  /// Whether the group keeps this timeline alive, as it does while it has pending work.
  @exclusivity(unchecked) private var isHeld = false
  /// The sleepers this timeline's actions woke that have not run again yet; a shared
  /// timeline's members all count in the group's.
  package let wakeUps: WakeUps

  private struct Sharing {
    let group: SharedTimeline
    let toShared: (Time) -> Duration
    let fromShared: (Duration) -> Time
  }

  /// Creates a timeline starting at `now`.
  ///
  /// - Parameters:
  ///   - name: How issues name the owner, for example `"TestScheduler"`.
  ///   - describe: How the runaway report writes a date; by default, `"\(date)"`.
  ///   - advancedBy: Moves a date by an interval, the way the owner's time type does.
  package init(
    now: Time,
    name: String,
    describe: ((Time) -> String)? = nil,
    advancedBy: @escaping (Time, Interval) -> Time
  ) {
    self.currentNow = now
    self.name = name
    self.describe = describe ?? { readable($0) }
    self.advancedBy = advancedBy
    self.multiply = Self.gridMultiplier()
    self.sharing = nil
    self.scope = ImplicitScope(name: name)
    self.wakeUps = WakeUps()
  }

  /// Creates a timeline that shares its time with the other members of `group`: it starts at
  /// the group's time, and advancing it advances them all.
  ///
  /// - Parameters:
  ///   - toShared: The shared time (duration since the group's start) of a date of this type.
  ///   - fromShared: The date of this type at a shared time.
  package init(
    sharing group: SharedTimeline,
    name: String,
    advancedBy: @escaping (Time, Interval) -> Time,
    toShared: @escaping (Time) -> Duration,
    fromShared: @escaping (Duration) -> Time
  ) {
    let now = group.now
    self.currentNow = fromShared(now)
    self.sharedNow = now
    self.name = name
    self.describe = { describeSeconds(toShared($0)) }
    self.advancedBy = advancedBy
    self.multiply = Self.gridMultiplier()
    self.sharing = Sharing(group: group, toShared: toShared, fromShared: fromShared)
    self.scope = group.scope
    self.wakeUps = group.wakeUps
    group.join(self)
  }

  /// An owner of a shared timeline, for a front to hold (see ``SharedTimeline/Owner``); nil
  /// for a lone timeline.
  package func makeOwner() -> SharedTimeline.Owner? {
    sharing.map { SharedTimeline.Owner($0.group) }
  }

  /// `interval × k` for an `Interval` that can be multiplied exactly.
  private static func gridMultiplier() -> ((Interval, Int) -> Interval?)? {
    guard let grid = Interval.self as? any TimelineGridStride.Type else { return nil }
    return multiplier(grid)
  }

  private static func multiplier<Grid: TimelineGridStride>(
    _: Grid.Type
  ) -> (Interval, Int) -> Interval? {
    // `Grid` is `Interval` (the caller found it by casting `Interval.self`), so these casts
    // reinterpret a value as its own type; a checked cast would cost a runtime lookup per repeat.
    { interval, count in
      unsafeBitCast(interval, to: Grid.self).timelineMultiplied(by: count).map {
        unsafeBitCast($0, to: Interval.self)
      }
    }
  }

  deinit {
    // Handles outlive the timeline when their cancellables are kept; release their closures now,
    // so pending work of a timeline that is gone holds on to nothing. (No other thread can reach
    // a handle's action any more: their weak references to the timeline are already nil.)
    var released: [Action] = []
    for case .handle(let handle) in pending.jobs {
      if let action = handle.action {
        handle.action = nil
        released.append(action)
      }
    }
    withExtendedLifetime(released) {}
  }

  /// The current virtual time.
  package var now: Time { lock.withLock { currentNow } }

  /// How many actions are waiting to run (cancelled ones excluded). - Complexity: O(1)
  package var pendingCount: Int { lock.withLock { pending.count - cancelledEntries } }

  /// The date of the next action that will run, if any. - Complexity: amortized O(1)
  package var nextDate: Time? {
    lock.withLock {
      dropCancelledTop()
      return pending.first()?.date
    }
  }

  // MARK: - Scheduling

  /// Schedules `action` to run once at `date` (or at `now`, if `date` is in the past).
  /// - Complexity: O(log n)
  package func schedule(after date: Time, at location: SourceLocation, _ action: @escaping Action) {
    let (problem, released) = lock.withLock { () -> (DateProblem?, AnyObject?) in
      (insert(.once(action), after: date).problem, updateHold())
    }
    withExtendedLifetime(released) {}
    if let problem { report(problem, date: date, at: location) }
  }

  /// Schedules `action` to run at `date` and then, if `interval` is given, every `interval`
  /// after that, until the returned handle is cancelled.
  /// - Complexity: O(log n)
  package func schedule(
    after date: Time,
    interval: Interval?,
    at location: SourceLocation,
    _ action: @escaping Action
  ) -> Handle {
    let repeats = interval.map { $0 > .zero } ?? false
    let handle = Handle(timeline: self, interval: repeats ? interval : nil, action: action)
    let (problem, released) = lock.withLock { () -> (DateProblem?, AnyObject?) in
      let (problem, due) = insert(.handle(handle), after: date)
      handle.start = due
      if problem == .unrepresentable { handle.action = nil }
      return (problem, updateHold())
    }
    withExtendedLifetime(released) {}
    if let problem { report(problem, date: date, at: location) }
    if let interval, !repeats {
      location.report(
        "\(name) was asked to repeat work every \(readable(interval)). A repeating interval must be "
          + "greater than zero, so the work runs once and does not repeat."
      )
    }
    return handle
  }

  private enum DateProblem {
    /// Not equal to itself (NaN, or an infinite date).
    case invalid
    /// Both before and after `now`: a time type that saturates (Dispatch time at its largest).
    case unrepresentable
  }

  /// Puts `job` in the heap at `date`, or at `now` if `date` is past or invalid, and answers
  /// the date it is due at. A date that compares as both before and after `now` cannot be
  /// ordered, so the job is left out. Call with the lock held.
  private func insert(_ job: TimelineJob, after date: Time) -> (problem: DateProblem?, due: Time) {
    let isLater = currentNow < date
    if isLater, date < currentNow { return (.unrepresentable, currentNow) }
    let isValid = date == date
    let due = isLater && isValid ? date : currentNow
    pending.insert(job, at: due, sequence: takeSequence())
    return (isValid ? nil : .invalid, due)
  }

  /// Tells the group whether to keep this timeline alive, when that changes: a member of a
  /// shared timeline is kept while it has pending work, so that work is never lost because
  /// the test let go of the member. Call with the lock held, and release the answer after
  /// unlocking (it may be the last reference to this timeline).
  private func updateHold() -> AnyObject? {
    guard let sharing else { return nil }
    let hasWork = pending.count > cancelledEntries
    guard hasWork != isHeld else { return nil }
    isHeld = hasWork
    return sharing.group.hold(self, hasWork)
  }

  private func report(_ problem: DateProblem, date: Time, at location: SourceLocation) {
    switch problem {
    case .invalid:
      location.report(
        "\(name) was asked to schedule work at a date that is not a valid date (not equal "
          + "to itself, like one made from NaN or infinity). It was scheduled at the current "
          + "time instead."
      )
    case .unrepresentable:
      location.report(
        "\(name) was asked to schedule work at \(readable(date)), which its time type cannot order "
          + "against the current time (it compares as both earlier and later, as saturated "
          + "Dispatch times do). The work will never run."
      )
    }
  }

  /// A pending action that can be cancelled.
  package final class Handle: TimelineHandle, @unchecked Sendable {
    // Invariant: `interval` and `timeline` are immutable after init; `start`, `repeats` and the
    // inherited `action` are guarded by the timeline's lock.
    fileprivate let interval: Interval?
    private weak var timeline: Timeline?
    /// The date of the first run; the k-th repeat is due at `start + k × interval`.
    fileprivate var start: Time?
    /// How many times the action has been re-armed.
    fileprivate var rearmed = 0

    fileprivate init(timeline: Timeline, interval: Interval?, action: @escaping Action) {
      self.timeline = timeline
      self.interval = interval
      super.init(repeats: interval != nil, action: action)
    }

    /// Cancels the action: it will not run again, and its closure is released at once.
    /// Cancelling twice, after the action ran, or after the timeline is gone does nothing.
    /// - Complexity: amortized O(1)
    package func cancel() {
      timeline?.cancel(self)
    }
  }

  private func cancel(_ handle: Handle) {
    let released = lock.withLock { () -> (Action, AnyObject?)? in
      guard let action = handle.action else { return nil }
      handle.action = nil
      cancelledEntries += 1
      if cancelledEntries > 32, cancelledEntries * 2 > pending.count {
        pending.removeCancelled()
        cancelledEntries = 0
      }
      return (action, updateHold())
    }
    // The closure is released here, outside the lock: its captures' deinits are user code.
    withExtendedLifetime(released) {}
  }

  // MARK: - Advancing

  /// The instant an `advance(by:)` of `stride` moves to; reports a negative or invalid stride
  /// and answers `now` for it.
  package func target(advancingBy stride: Interval, at location: SourceLocation) -> Time {
    let now = self.now
    // `>=` alone lets NaN through for strides that derive it from `<`.
    guard stride == stride, stride >= .zero else {
      location.report(
        "\(name) was asked to advance by \(readable(stride)), but a stride must be zero or more: time "
          + "cannot run backwards. It ran the work due now and stayed at \(readable(now))."
      )
      return now
    }
    let target = advancedBy(now, stride)
    guard target == target, !(target < now), !(now == target && stride > .zero) else {
      location.report(
        "\(name) was asked to advance by \(readable(stride)) from \(readable(now)), but its time type cannot "
          + "represent a later instant (it saturates, overflows or becomes infinite there). It "
          + "ran the work due now and stayed at \(readable(now))."
      )
      return now
    }
    return target
  }

  /// The instant an `advance(to:)` `instant` moves to; reports an instant before `now` (or an
  /// invalid one) and answers `now` for it.
  package func target(advancingTo instant: Time, at location: SourceLocation) -> Time {
    let now = self.now
    guard instant == instant else {
      location.report(
        "\(name) was asked to advance to an instant that is not valid (not equal to itself, "
          + "like one made from NaN). It ran the work due now and stayed at \(readable(now))."
      )
      return now
    }
    guard instant >= now else {
      location.report(
        "\(name) was asked to advance to \(readable(instant)), which is before its current time \(readable(now)). "
          + "Time cannot run backwards: it ran the work due now and stayed at \(readable(now))."
      )
      return now
    }
    return instant
  }

  /// Takes the next action due at or before `target` (any pending action if `target` is nil),
  /// sets `now` to its date and re-arms it if it repeats. The caller runs the action.
  /// - Complexity: O(log n)
  package func takeNext(through target: Time?, at location: SourceLocation) -> Action? {
    takeNext(dueBy: pending.bound(through: target), at: location)
  }

  /// ``takeNext(through:at:)`` with the bound made once for a whole drive.
  package func takeNext(dueBy bound: DueBound, at location: SourceLocation) -> Action? {
    var problem: String?
    var released: AnyObject?
    lock.lock()
    var date = currentNow
    var action: Action?
    while action == nil, let (job, sequence) = pending.removeFirst(dueBy: bound, date: &date) {
      switch job {
      case .once(let once):
        action = once
      case .handle(let handle):
        guard let pendingAction = handle.action else {
          cancelledEntries -= 1
          continue
        }
        action = pendingAction
        if handle.repeats {
          problem = rearm(unsafeDowncast(handle, to: Handle.self), from: date, sequence: sequence)
        } else {
          handle.action = nil
        }
      }
      if currentNow < date { currentNow = date }
    }
    if sharing != nil { released = updateHold() }
    lock.unlock()
    withExtendedLifetime(released) {}
    if let problem { location.report(problem) }
    return action
  }

  /// Puts a repeating handle that just came due back at its next date, keeping its sequence
  /// number; answers the problem to report if its interval cannot move `date`. Call with the
  /// lock held.
  private func rearm(_ handle: Handle, from date: Time, sequence: UInt64) -> String? {
    guard let interval = handle.interval else { return nil }
    handle.rearmed += 1
    // On the grid when the interval can be multiplied: adding it to the previous date again and
    // again would add the date type's rounding at every repeat.
    let next =
      handle.start.flatMap { dateOfRepeat(handle.rearmed, from: $0, every: interval) }
      ?? advancedBy(date, interval)
    guard date < next else {
      handle.action = nil
      return
        "\(name) could not repeat work every \(readable(interval)) after \(readable(date)): the interval is "
        + "too small to move the date, so the work stopped repeating."
    }
    pending.insert(.handle(handle), at: next, sequence: sequence)
    return nil
  }

  /// The date of the `count`-th repeat of an action first due at `start` and repeating every
  /// `interval`: `start + count × interval`, or nil if `Interval` cannot be multiplied exactly
  /// (then each repeat is the previous date plus `interval`) or the product does not fit.
  package func dateOfRepeat(_ count: Int, from start: Time, every interval: Interval) -> Time? {
    guard let multiply, let span = multiply(interval, count) else { return nil }
    return advancedBy(start, span)
  }

  /// Ends an advance: `now` becomes `target` unless it is already later.
  package func finishAdvance(at target: Time) {
    lock.withLock {
      if currentNow < target { currentNow = target }
    }
  }

  /// Advances by `stride` (validated), running the work due on the way: on this timeline, or
  /// on every member of the shared timeline it belongs to.
  package func advance(by stride: Interval, at location: SourceLocation) {
    let target = target(advancingBy: stride, at: location)
    if let sharing {
      sharing.group.drive(through: sharedTarget(target, by: stride), at: location)
    } else {
      drive(through: target, at: location)
    }
  }

  /// Advances to `instant` (validated), running the work due on the way.
  package func advance(to instant: Time, at location: SourceLocation) {
    let target = target(advancingTo: instant, at: location)
    if let sharing {
      sharing.group.drive(through: sharedTarget(target, by: nil), at: location)
    } else {
      drive(through: target, at: location)
    }
  }

  /// Runs pending work until none is left, within a ``RunBudget`` of `limit` actions (or the
  /// default bounds if nil).
  package func run(limit: Int?, at location: SourceLocation) {
    if let sharing {
      sharing.group.drive(through: nil, budget: RunBudget(limit: limit), at: location)
    } else {
      drive(through: nil, budget: RunBudget(limit: limit), at: location)
    }
  }

  /// ``advance(by:at:)`` for async code, settling after each action.
  package func advance(by stride: Interval, at location: SourceLocation) async {
    let target = target(advancingBy: stride, at: location)
    if let sharing {
      await sharing.group.drive(through: sharedTarget(target, by: stride), at: location)
    } else {
      await drive(through: target, at: location)
    }
  }

  /// ``advance(to:at:)`` for async code, settling after each action.
  package func advance(to instant: Time, at location: SourceLocation) async {
    let target = target(advancingTo: instant, at: location)
    if let sharing {
      await sharing.group.drive(through: sharedTarget(target, by: nil), at: location)
    } else {
      await drive(through: target, at: location)
    }
  }

  /// ``run(limit:at:)`` for async code, settling after each action.
  package func run(limit: Int?, at location: SourceLocation) async {
    if let sharing {
      await sharing.group.drive(through: nil, budget: RunBudget(limit: limit), at: location)
    } else {
      await drive(through: nil, budget: RunBudget(limit: limit), at: location)
    }
  }

  /// The shared time a member's advance to `target` moves to. An advance that does not move
  /// this member's `now` (a stride of zero, or one that was reported) keeps the shared time
  /// exactly; an advance by `stride` moves the shared time by the stride, measured in shared
  /// time, rather than by the difference of two coarse dates.
  private func sharedTarget(_ target: Time, by stride: Interval?) -> Duration {
    guard let sharing else { return .zero }
    let base = sharing.group.now
    guard now < target else { return base }
    if let stride {
      let origin = sharing.fromShared(.zero)
      return base + (sharing.toShared(advancedBy(origin, stride)) - sharing.toShared(origin))
    }
    return max(base, sharing.toShared(target))
  }

  /// The dates of the first `first` pending actions in the order they will run, with their
  /// sequence numbers, how many are pending in all, and `now`.
  /// - Complexity: O(n + k log n) for n pending; for diagnostics.
  private func pendingEntries(
    first: Int
  ) -> (entries: [(date: Time, sequence: UInt64)], count: Int, now: Time) {
    lock.withLock {
      let live = pending.copy()
      var entries: [(Time, UInt64)] = []
      var date = currentNow
      while entries.count < first,
        let (job, sequence) = live.removeFirst(dueBy: .everything, date: &date)
      {
        if !job.isCancelled { entries.append((date, sequence)) }
      }
      return (entries, pending.count - cancelledEntries, currentNow)
    }
  }

  /// The dates of the first `first` pending actions in the order they will run, how many are
  /// pending in all, and `now`. - Complexity: O(n + k log n); for diagnostics.
  package func pendingSummary(first: Int) -> (dates: [Time], count: Int, now: Time) {
    let (entries, count, now) = pendingEntries(first: first)
    return (entries.map(\.date), count, now)
  }

  /// Reports an issue if anything is pending, naming how much and when it is due; `noun` names
  /// the pending things ("action", "sleeper").
  package func expectNothingPending(noun: String, at location: SourceLocation) {
    let (dates, count, now) = pendingSummary(first: 5)
    guard count > 0 else { return }
    location.report(
      "\(name) has \(count) pending \(noun)\(count == 1 ? "" : "s"), due at "
        + "\(Self.describe(dates, of: count)) (now is \(readable(now)))."
    )
  }

  /// "a, b, c and 7 more".
  package static func describe(_ dates: [Time], of count: Int) -> String {
    describeDates(dates.map { readable($0) }, of: count)
  }

  // MARK: - Private

  private func takeSequence() -> UInt64 {
    if let sharing { return sharing.group.takeSequence() }
    defer { nextSequence &+= 1 }
    return nextSequence
  }

  private func dropCancelledTop() {
    cancelledEntries -= pending.removeCancelledFirst()
  }

  /// The shared time of a pending date: work due now is due at the shared time of `now`, even
  /// when this timeline's dates are too coarse to say it. Call with the lock held.
  private func sharedDate(of date: Time, _ sharing: Sharing) -> Duration {
    guard currentNow < date else { return sharedNow }
    return max(sharing.toShared(date), sharedNow)
  }
}

extension Timeline: TimelineDriving {
  package var driveName: String { name }

  package func dueBound(through target: Time?) -> DueBound {
    pending.bound(through: target)
  }

  package func pendingDescription(first: Int) -> (dates: [String], count: Int, now: String) {
    let (entries, count, now) = pendingEntries(first: first)
    return (entries.map { describe($0.date) }, count, describe(now))
  }
}

extension Timeline: SharedTimelineMember {
  package func nextShared() -> (date: Duration, sequence: UInt64)? {
    guard let sharing else { return nil }
    return lock.withLock {
      dropCancelledTop()
      return pending.first().map { (sharedDate(of: $0.date, sharing), $0.sequence) }
    }
  }

  package func pendingShared(first: Int) -> [(date: Duration, sequence: UInt64)] {
    guard let sharing else { return [] }
    let entries = pendingEntries(first: first).entries
    return lock.withLock { entries.map { (sharedDate(of: $0.date, sharing), $0.sequence) } }
  }

  package func takeFirst(at location: SourceLocation) -> SharedTimeline.Action? {
    takeNext(dueBy: .everything, at: location)
  }

  package func catchUp(toShared date: Duration) {
    guard let sharing else { return }
    let moved = sharing.fromShared(date)
    lock.withLock {
      if currentNow < moved { currentNow = moved }
      if sharedNow < date { sharedNow = date }
    }
  }
}
