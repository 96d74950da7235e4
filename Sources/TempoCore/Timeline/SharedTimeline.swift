@_spi(TempoInternals) package import TempoSupport

/// One virtual time for several timelines: each keeps its own pending work in its own time type,
/// and an advance of any of them runs the due work of all of them in one order.
///
/// Members map their dates to the shared time (a `Duration` since the shared start) and take
/// their scheduling sequence numbers from the group, so the timeline rules hold across members:
/// work runs in date order and, at the same date, in the order it was scheduled, whichever
/// member it was scheduled on; every member's `now` is the shared time, in its own type, while
/// any action runs.
///
/// The group holds its members weakly, except while a member has pending work: then it keeps
/// the member alive, so work is never lost because a test let go of the member that scheduled
/// it. Once every ``Owner`` is gone (the test timeline and every front made on it), nothing can
/// advance the group any more, and it lets go of them all.
///
/// - Complexity: running an action is O(m + log n) for m members and n pending actions.
package final class SharedTimeline: @unchecked Sendable {
  package typealias Action = () -> Void

  // Invariant: `lock` guards every `var`. No member's lock is taken while it is held, no action
  // runs while it is held, and no member is released while it is held.
  private let lock = Lock(rank: .sharedTimeline)
  private var members: [WeakMember] = []
  private var currentNow: Duration = .zero
  /// The wall-clock date at shared time zero, as time since 1970 (see `WallClock.swift`).
  private var wallStart: Duration = .zero
  /// Where the `TestTimeline` was created, for listings of pending work.
  private var creation: SourceLocation?
  /// Set once auto-advance has been turned on (see `AutoAdvance.swift`).
  private var auto: AutoAdvance?
  private var nextSequence: UInt64 = 0
  /// The members kept alive because they have pending work.
  private var held: [ObjectIdentifier: any SharedTimelineMember] = [:]
  private var owners = 0
  private var isAbandoned = false

  /// The sleepers woken by any member's actions that have not run again yet.
  package let wakeUps = WakeUps()

  private struct WeakMember {
    weak var member: (any SharedTimelineMember)?
  }

  /// The test it serves: what its async advances wait on for quiet; its members share it.
  package let scope: any TestScope

  /// What listings and issues call the group: "TestTimeline", or its one member's name for a
  /// group that only keeps one source's time exact (a `RunLoop.test`).
  package let name: String

  /// Whether the group is one source's own, made to keep its time exact: it takes the name and
  /// the creation of its member.
  package let isSoleSourcesOwn: Bool

  /// A group serving `scope`; `soleSource` names the one source a group of its own serves.
  package init(scope: any TestScope, soleSource: String? = nil) {
    self.scope = scope
    self.name = soleSource ?? "TestTimeline"
    self.isSoleSourcesOwn = soleSource != nil
    scope.register(self)
  }

  /// The shared time, as the duration since the shared start.
  package var now: Duration { lock.withLock { currentNow } }

  /// The wall-clock date of every member, as time since 1970: the date at shared time zero plus
  /// the shared time.
  package var wallDate: Duration { lock.withLock { wallStart + currentNow } }

  /// Sets the wall-clock date of every member to `date` (time since 1970), moving no virtual
  /// time and running nothing.
  package func setWallDate(_ date: Duration) {
    lock.withLock { wallStart = date - currentNow }
  }

  /// The next scheduling sequence number; every member takes its numbers here.
  package func takeSequence() -> UInt64 {
    lock.withLock {
      defer { nextSequence &+= 1 }
      return nextSequence
    }
  }

  /// Adds `member`; it answers for its own pending work from now on.
  package func join(_ member: any SharedTimelineMember) {
    let auto = lock.withLock {
      members.removeAll { $0.member == nil }
      members.append(WeakMember(member: member))
      return self.auto
    }
    if let auto { member.useAutoAdvance(auto) }
  }

  /// Turns auto-advance on or off for every member, now and to come. Its driver runs the
  /// members' actions on the main actor, where a scheduler's stand for the main queue's.
  package func setAutomaticallyAdvances(_ on: Bool) {
    let (auto, isNew) = lock.withLock { () -> (AutoAdvance, Bool) in
      if let existing = self.auto { return (existing, false) }
      let made = AutoAdvance(isolation: MainActor.shared, location: creation ?? .unknown)
      self.auto = made
      return (made, true)
    }
    if isNew { for member in liveMembers { member.useAutoAdvance(auto) } }
    if auto.turn(on, pending: pendingCount > 0) { startAutoDriver(auto) }
  }

  /// Whether time moves by itself on this timeline.
  package var automaticallyAdvances: Bool { lock.withLock { auto }?.isEnabled ?? false }

  /// Keeps `member` alive (`keep`) or stops keeping it; answers the reference to release after
  /// the caller unlocks. A member calls this, under its own lock, when it gets its first
  /// pending action or loses its last one.
  package func hold(_ member: any SharedTimelineMember, _ keep: Bool) -> AnyObject? {
    lock.withLock {
      let id = ObjectIdentifier(member)
      if keep {
        if !isAbandoned { held[id] = member }
        return nil
      }
      return held.removeValue(forKey: id)
    }
  }

  /// Something that can still advance the group: the test timeline, or a front made on it.
  /// While one is alive, the group keeps its members with pending work; when the last one
  /// goes, it lets go of them.
  package final class Owner: @unchecked Sendable {
    // Invariant: immutable.
    private let group: SharedTimeline

    package init(_ group: SharedTimeline) {
      self.group = group
      group.lock.withLock { group.owners += 1 }
    }

    deinit {
      let released = group.lock.withLock { () -> [ObjectIdentifier: any SharedTimelineMember] in
        group.owners -= 1
        guard group.owners == 0 else { return [:] }
        group.isAbandoned = true
        defer { group.held = [:] }
        return group.held
      }
      withExtendedLifetime(released) {}
    }
  }

  private var liveMembers: [any SharedTimelineMember] {
    lock.withLock { members.compactMap(\.member) }
  }

  /// How many actions are waiting on all members.
  package var pendingCount: Int { liveMembers.reduce(0) { $0 + $1.pendingCount } }

  /// The shared date of the next action of any member, if any.
  package var nextDate: Duration? { next(through: nil)?.date }

  /// The shared time an advance by `stride` moves to; reports a negative stride.
  package func target(advancingBy stride: Duration, at location: SourceLocation) -> Duration {
    let now = self.now
    guard stride >= .zero else {
      location.report(TimelineMessage.negativeStride(name, stride, now: now))
      return now
    }
    return now + stride
  }

  /// The shared time an advance to `instant` moves to; reports an instant before `now`.
  package func target(advancingTo instant: Duration, at location: SourceLocation) -> Duration {
    let now = self.now
    guard instant >= now else {
      location.report(TimelineMessage.instantInPast(name, instant, now: now))
      return now
    }
    return instant
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

  /// Reports an issue if anything is pending on any member, naming how much and when it is
  /// due (as the time since the shared start).
  package func expectNothingPending(at location: SourceLocation) {
    let (dates, count, now) = pendingDescription(first: 5)
    guard count > 0 else { return }
    location.report(TimelineMessage.sharedPending(count: count, dates: dates, now: now))
  }
}

extension SharedTimeline: TimelineDriving {
  package var driveName: String { name }

  package func dueBound(through target: Duration) -> Duration? { target }
  package var everythingDue: Duration? { nil }

  package func takeNext(dueBy bound: Duration?, at location: SourceLocation) -> Action? {
    takeNext(through: bound, at: location)
  }

  package func finishAdvance(at target: Duration) { catchUp(to: target) }

  package func pendingDescription(first: Int) -> (dates: [String], count: Int, now: String) {
    let (items, count, now) = pendingItems(first: first)
    return (items.map(\.due), count, now)
  }

  package var nextTarget: Duration? { nextDate }

  package var lastTarget: Duration? { liveMembers.compactMap { $0.lastShared() }.max() }
}

extension SharedTimeline: LeftoverWorkSource {
  package var leftoverDescription: String? {
    pendingCount == 0 ? nil : pendingWorkDescription
  }

  package var scheduledCount: UInt64 { lock.withLock { nextSequence } }

  package var pendingSleeps: [PendingSleep] {
    var sleeps: [PendingSleep] = []
    for member in liveMembers { sleeps += member.pendingSleeps }
    return sleeps
  }

  package var creationLine: SourceLocation? {
    lock.withLock { creation }.flatMap { $0.isCallerUnknown || $0.factory != nil ? nil : $0 }
  }

  /// Where listings of pending work say the timeline was created; set once by `TestTimeline`.
  package func setCreation(_ location: SourceLocation) {
    lock.withLock { creation = location }
  }

  /// How listings of pending work name the timeline: "TestTimeline created at Tests.swift:12".
  package var sourceName: String {
    describeSource(name, createdAt: lock.withLock { creation })
  }

  /// The first `first` pending items of every member in the order they run, how many are
  /// pending in all, and `now`, as the time since the shared start.
  ///
  /// - Complexity: O(n log n)
  package func pendingItems(first: Int) -> (items: [PendingItem], count: Int, now: String) {
    let members = liveMembers
    let entries = members.flatMap { $0.pendingShared(first: first) }
      .sorted { ($0.date, $0.sequence) < ($1.date, $1.sequence) }
      .prefix(first)
    let count = members.reduce(0) { $0 + $1.pendingCount }
    return (entries.map(\.item), count, describeSeconds(now))
  }

  /// The pending work of every member, one line per item (the first 20), each naming its
  /// source.
  ///
  /// - Complexity: O(n log n)
  package var pendingWorkDescription: String {
    let (items, count, now) = pendingItems(first: 20)
    return describePending(of: sourceName, items: items, count: count, now: now)
  }
}

/// A timeline that shares its time through a ``SharedTimeline``.
package protocol SharedTimelineMember: AnyObject, Sendable {
  /// The shared date and sequence number of the next pending action, if any.
  func nextShared() -> (date: Duration, sequence: UInt64)?
  /// The shared dates, sequence numbers and descriptions of the first `first` pending actions,
  /// in order.
  func pendingShared(first: Int) -> [(date: Duration, sequence: UInt64, item: PendingItem)]
  /// The shared date of the last pending action, if any.
  func lastShared() -> Duration?
  /// Takes the first pending action, as its own `takeNext` would.
  func takeFirst(at location: SourceLocation) -> SharedTimeline.Action?
  /// Moves `now` to the shared date unless it is later already.
  func catchUp(toShared date: Duration)
  /// Uses the shared timeline's auto-advance: work scheduled on the member starts its driver.
  func useAutoAdvance(_ shared: AutoAdvance)
  /// How many actions are waiting.
  var pendingCount: Int { get }
  /// The member's sleeps whose wake-ups are pending.
  var pendingSleeps: [PendingSleep] { get }
}
