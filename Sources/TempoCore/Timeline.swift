/// A virtual timeline: pending work ordered by (date, scheduling sequence), a current time that
/// never runs backwards, and the rules for advancing it.
///
/// Both `TestScheduler` and `TestClock` are thin fronts over this one type, so the rules hold for
/// both and are implemented once:
///
/// 1. `now` is set to an action's date before it runs; work scheduled while advancing that falls
///    due by the target runs in the same advance.
/// 2. Ties run in scheduling order; a repeating action keeps its first sequence number.
/// 3. Time never runs backwards: work dated in the past runs at the current `now`; advancing to an
///    earlier instant reports an issue and still runs what is due now.
/// 4. A repeating action whose interval is zero, negative or not a number is reported and runs
///    once; one whose interval is too small to move its date is reported and stops repeating.
/// 5. `run` always returns: it stops after a bounded number of actions and reports what is left.
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

  /// The work `run` may do beyond what was pending when it began before it gives up.
  package static var runawayLimit: Int { 1_000_000 }

  // Invariant: `lock` guards every stored `var` of this instance, `pending`, and the `action`
  // of every `Handle` it created. No user code (an action, or a closure's deinit) runs while it
  // is held. Since every access is under the lock, the runtime's exclusivity checks on these
  // variables are left out (`@exclusivity(unchecked)`): they cost more than the work itself.
  private let lock = Lock()
  private let advancedBy: (Time, Interval) -> Time
  private let name: String
  @exclusivity(unchecked) private var currentNow: Time
  private let pending = PendingWork<Time>.make(for: Time.self)
  @exclusivity(unchecked) private var nextSequence: UInt64 = 0
  /// Entries whose handle was cancelled; they are dropped when reached or when compacting.
  @exclusivity(unchecked) private var cancelledEntries = 0
  /// Set when this timeline shares its time with others; then every advance advances them all.
  private let sharing: Sharing?

  private struct Sharing {
    let group: SharedTimeline
    let toShared: (Time) -> Duration
    let fromShared: (Duration) -> Time
  }

  /// Creates a timeline starting at `now`.
  ///
  /// - Parameters:
  ///   - name: How issues name the owner, for example `"TestScheduler"`.
  ///   - advancedBy: Moves a date by an interval, the way the owner's time type does.
  package init(now: Time, name: String, advancedBy: @escaping (Time, Interval) -> Time) {
    self.currentNow = now
    self.name = name
    self.advancedBy = advancedBy
    self.sharing = nil
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
    self.currentNow = fromShared(group.now)
    self.name = name
    self.advancedBy = advancedBy
    self.sharing = Sharing(group: group, toShared: toShared, fromShared: fromShared)
    group.join(self)
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
    if let problem = lock.withLock({ insert(.once(action), after: date) }) {
      report(problem, date: date, at: location)
    }
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
    let problem = lock.withLock { () -> DateProblem? in
      let problem = insert(.handle(handle), after: date)
      if problem == .unrepresentable { handle.action = nil }
      return problem
    }
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

  /// Puts `job` in the heap at `date`, or at `now` if `date` is past or invalid. A date that
  /// compares as both before and after `now` cannot be ordered, so the job is left out.
  /// Call with the lock held.
  private func insert(_ job: TimelineJob, after date: Time) -> DateProblem? {
    let isLater = currentNow < date
    if isLater, date < currentNow { return .unrepresentable }
    let isValid = date == date
    let due = isLater && isValid ? date : currentNow
    pending.insert(job, at: due, sequence: takeSequence())
    return isValid ? nil : .invalid
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
    // Invariant: immutable after init; the inherited `action` is guarded by the timeline's lock.
    fileprivate let interval: Interval?
    private weak var timeline: Timeline?

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
    let released: Action? = lock.withLock {
      guard let action = handle.action else { return nil }
      handle.action = nil
      cancelledEntries += 1
      if cancelledEntries > 32, cancelledEntries * 2 > pending.count {
        pending.removeCancelled()
        cancelledEntries = 0
      }
      return action
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
    takeNext(through: pending.bound(through: target), at: location)
  }

  /// ``takeNext(through:at:)`` with the bound made once for a whole drive.
  private func takeNext(through bound: DueBound, at location: SourceLocation) -> Action? {
    var problem: String?
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
    lock.unlock()
    if let problem { location.report(problem) }
    return action
  }

  /// Puts a repeating handle that just came due back at its next date, keeping its sequence
  /// number; answers the problem to report if its interval cannot move `date`. Call with the
  /// lock held.
  private func rearm(_ handle: Handle, from date: Time, sequence: UInt64) -> String? {
    guard let interval = handle.interval else { return nil }
    let next = advancedBy(date, interval)
    guard date < next else {
      handle.action = nil
      return
        "\(name) could not repeat work every \(readable(interval)) after \(readable(date)): the interval is "
        + "too small to move the date, so the work stopped repeating."
    }
    pending.insert(.handle(handle), at: next, sequence: sequence)
    return nil
  }

  /// Ends an advance: `now` becomes `target` unless it is already later.
  private func finishAdvance(at target: Time) {
    lock.withLock {
      if currentNow < target { currentNow = target }
    }
  }

  /// Advances by `stride` (validated), running the work due on the way.
  package func advance(by stride: Interval, at location: SourceLocation) {
    drive(through: target(advancingBy: stride, at: location), at: location)
  }

  /// Advances to `instant` (validated), running the work due on the way.
  package func advance(to instant: Time, at location: SourceLocation) {
    drive(through: target(advancingTo: instant, at: location), at: location)
  }

  /// Runs pending work until none is left, within ``runBudget(limit:)``.
  package func run(limit: Int?, at location: SourceLocation) {
    if let sharing {
      sharing.group.drive(
        through: nil, budget: sharing.group.runBudget(limit: limit), at: location)
      return
    }
    drive(through: nil, budget: runBudget(limit: limit), at: location)
  }

  /// ``advance(by:at:)`` for async code, settling after each action.
  package func advance(
    by stride: Interval, wakeUps: WakeUps? = nil, at location: SourceLocation
  ) async {
    await drive(through: target(advancingBy: stride, at: location), wakeUps: wakeUps, at: location)
  }

  /// ``advance(to:at:)`` for async code, settling after each action.
  package func advance(
    to instant: Time, wakeUps: WakeUps? = nil, at location: SourceLocation
  ) async {
    await drive(through: target(advancingTo: instant, at: location), wakeUps: wakeUps, at: location)
  }

  /// ``run(limit:at:)`` for async code, settling after each action.
  package func run(limit: Int?, wakeUps: WakeUps? = nil, at location: SourceLocation) async {
    if let sharing {
      await sharing.group.drive(
        through: nil, budget: sharing.group.runBudget(limit: limit), at: location)
      return
    }
    await drive(through: nil, budget: runBudget(limit: limit), wakeUps: wakeUps, at: location)
  }

  /// The most actions a `run` that begins now performs before giving up: `limit`, or by
  /// default everything pending now plus ``runawayLimit`` more.
  package func runBudget(limit: Int?) -> Int {
    limit ?? (pendingCount + Self.runawayLimit)
  }

  /// Runs the actions due by `target` in order (all pending actions if `target` is nil), at
  /// most `budget` of them, then sets `now` to `target`. Reports work left over when the budget
  /// runs out.
  package func drive(through target: Time?, budget: Int = .max, at location: SourceLocation) {
    if let sharing {
      sharing.group.drive(through: target.map(sharing.toShared), budget: budget, at: location)
      return
    }
    let bound = pending.bound(through: target)
    let remaining = Settling.run(budget: budget) { takeNext(through: bound, at: location) }
    finishDriving(through: target, budget: budget, remaining: remaining, at: location)
  }

  /// ``drive(through:budget:at:)`` for async code: after each action, and before the first,
  /// it lets the work that the action made runnable go as far as it can (see ``Settling``).
  package func drive(
    through target: Time?,
    budget: Int = .max,
    wakeUps: WakeUps? = nil,
    at location: SourceLocation
  ) async {
    if let sharing {
      await sharing.group.drive(
        through: target.map(sharing.toShared), budget: budget, at: location)
      return
    }
    let bound = pending.bound(through: target)
    let remaining = await Settling.run(budget: budget, wakeUps: wakeUps, at: location) {
      takeNext(through: bound, at: location)
    }
    finishDriving(through: target, budget: budget, remaining: remaining, at: location)
    await Settling.rejoin()
  }

  private func finishDriving(
    through target: Time?,
    budget: Int,
    remaining: Int,
    at location: SourceLocation
  ) {
    if let target { finishAdvance(at: target) }
    if remaining == 0 { reportRunaway(budget: budget, at: location) }
  }

  /// Reports work still pending after `run` spent its budget of `budget` actions.
  private func reportRunaway(budget: Int, at location: SourceLocation) {
    let (dates, count, now) = pendingSummary(first: 5)
    guard count > 0 else { return }
    location.report(
      "\(name) stopped running after \(budget) actions: \(count) still pending, due at "
        + "\(Self.describe(dates, of: count)) (now is \(readable(now))). Work that keeps rescheduling "
        + "itself, like a repeating timer, never runs out; cancel it first, or advance to a "
        + "specific time instead."
    )
  }

  /// The dates of the first `first` pending actions in the order they will run, how many are
  /// pending in all, and `now`. - Complexity: O(n log n); for diagnostics.
  package func pendingSummary(first: Int) -> (dates: [Time], count: Int, now: Time) {
    lock.withLock {
      let live = pending.copy()
      var dates: [Time] = []
      var date = currentNow
      while dates.count < first, let (job, _) = live.removeFirst(dueBy: .everything, date: &date) {
        if !job.isCancelled { dates.append(date) }
      }
      return (dates, pending.count - cancelledEntries, currentNow)
    }
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
    let listed = dates.map { readable($0) }.joined(separator: ", ")
    return count > dates.count ? "\(listed) and \(count - dates.count) more" : listed
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
}

extension Timeline: SharedTimelineMember {
  package func nextShared() -> (date: Duration, sequence: UInt64)? {
    guard let sharing else { return nil }
    let next: (Time, UInt64)? = lock.withLock {
      dropCancelledTop()
      return pending.first()
    }
    return next.map { (sharing.toShared($0.0), $0.1) }
  }

  package func takeFirst(at location: SourceLocation) -> SharedTimeline.Action? {
    takeNext(through: nil, at: location)
  }

  package func catchUp(toShared date: Duration) {
    guard let sharing else { return }
    finishAdvance(at: sharing.fromShared(date))
  }
}
