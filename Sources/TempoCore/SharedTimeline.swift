/// One virtual time for several timelines: each keeps its own pending work in its own time type,
/// and an advance of any of them runs the due work of all of them in one order.
///
/// Members map their dates to the shared time (a `Duration` since the shared start) and take
/// their scheduling sequence numbers from the group, so the timeline rules hold across members:
/// work runs in date order and, at the same date, in the order it was scheduled, whichever
/// member it was scheduled on; every member's `now` is the shared time, in its own type, while
/// any action runs.
///
/// - Complexity: running an action is O(m + log n) for m members and n pending actions.
package final class SharedTimeline: @unchecked Sendable {
  package typealias Action = () -> Void

  // Invariant: `lock` guards every `var`. No member's lock is taken while it is held, and no
  // action runs while it is held.
  private let lock = Lock()
  private var members: [WeakMember] = []
  private var currentNow: Duration = .zero
  private var nextSequence: UInt64 = 0

  private struct WeakMember {
    weak var member: (any SharedTimelineMember)?
  }

  /// The test executor its async advances wait on when no `withTestExecutor` scope is open;
  /// its members share it.
  package let scope = ImplicitScope(name: "TestTimeline")

  package init() {}

  /// The shared time, as the duration since the shared start.
  package var now: Duration { lock.withLock { currentNow } }

  /// The next scheduling sequence number; every member takes its numbers here.
  package func takeSequence() -> UInt64 {
    lock.withLock {
      defer { nextSequence &+= 1 }
      return nextSequence
    }
  }

  /// Adds `member`; it answers for its own pending work from now on.
  package func join(_ member: any SharedTimelineMember) {
    lock.withLock {
      members.removeAll { $0.member == nil }
      members.append(WeakMember(member: member))
    }
  }

  private var liveMembers: [any SharedTimelineMember] {
    lock.withLock { members.compactMap(\.member) }
  }

  /// How many actions are waiting on all members.
  package var pendingCount: Int { liveMembers.reduce(0) { $0 + $1.pendingCount } }

  /// The shared date of the next action of any member, if any.
  package var nextDate: Duration? { next(through: nil)?.date }

  /// The most actions a `run` that begins now performs before giving up.
  package func runBudget(limit: Int?) -> Int {
    limit ?? (pendingCount + Timeline<Int, Int>.runawayLimit)
  }

  /// The shared time an advance by `stride` moves to; reports a negative stride.
  package func target(advancingBy stride: Duration, at location: SourceLocation) -> Duration {
    let now = self.now
    guard stride >= .zero else {
      location.report(
        "The shared timeline was asked to advance by \(stride), but a stride must be zero or "
          + "more: time cannot run backwards. It ran the work due now and stayed at \(now)."
      )
      return now
    }
    return now + stride
  }

  /// The member whose action runs next, and its shared date: the earliest date, and at the
  /// same date the lowest sequence number. Nil when nothing is due by `target`.
  private func next(
    through target: Duration?
  ) -> (member: any SharedTimelineMember, date: Duration)? {
    var best: (member: any SharedTimelineMember, date: Duration, sequence: UInt64)?
    for member in liveMembers {
      guard let (date, sequence) = member.nextShared() else { continue }
      if let current = best, (current.date, current.sequence) < (date, sequence) { continue }
      best = (member, date, sequence)
    }
    guard let best else { return nil }
    if let target, target < best.date { return nil }
    return (best.member, best.date)
  }

  /// Takes the next action due by `target` (any if nil) and moves every member to its date.
  package func takeNext(through target: Duration?, at location: SourceLocation) -> Action? {
    while let (member, date) = next(through: target) {
      catchUp(to: date)
      if let action = member.takeFirst(at: location) { return action }
    }
    return nil
  }

  /// Moves the shared time, and every member's `now`, to `date` unless they are later already.
  private func catchUp(to date: Duration) {
    let moved = lock.withLock {
      if currentNow < date { currentNow = date }
      return currentNow
    }
    for member in liveMembers { member.catchUp(toShared: moved) }
  }

  /// Runs the actions due by `target` in order (all if nil), at most `budget` of them, then
  /// moves to `target`; reports work left when the budget runs out.
  package func drive(through target: Duration?, budget: Int = .max, at location: SourceLocation) {
    let remaining = Settling.run(budget: budget) { takeNext(through: target, at: location) }
    finishDriving(through: target, budget: budget, remaining: remaining, at: location)
  }

  /// ``drive(through:budget:at:)`` for async code: lets the work each action released go
  /// quiet before the next (see ``Settling``).
  package func drive(
    through target: Duration?, budget: Int = .max, at location: SourceLocation
  ) async {
    let remaining = await Settling.run(budget: budget, scope: scope, at: location) {
      takeNext(through: target, at: location)
    }
    finishDriving(through: target, budget: budget, remaining: remaining, at: location)
    await Settling.rejoin(scope: scope)
  }

  private func finishDriving(
    through target: Duration?, budget: Int, remaining: Int, at location: SourceLocation
  ) {
    if let target { catchUp(to: target) }
    if remaining == 0, pendingCount > 0 {
      location.report(
        "The shared timeline ran \(budget) actions and work is still pending (\(pendingCount) "
          + "actions, the next at \(nextDate.map { "\($0)" } ?? "?")). A repeating action "
          + "that is never cancelled never runs out: advance by a duration instead, or cancel "
          + "it."
      )
    }
  }
}

/// A timeline that shares its time through a ``SharedTimeline``.
package protocol SharedTimelineMember: AnyObject, Sendable {
  /// The shared date and sequence number of the next pending action, if any.
  func nextShared() -> (date: Duration, sequence: UInt64)?
  /// Takes the first pending action, as its own `takeNext` would.
  func takeFirst(at location: SourceLocation) -> SharedTimeline.Action?
  /// Moves `now` to the shared date unless it is later already.
  func catchUp(toShared date: Duration)
  /// How many actions are waiting.
  var pendingCount: Int { get }
}
