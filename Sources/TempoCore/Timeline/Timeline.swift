@_spi(TempoInternals) package import TempoSupport

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
/// This class is the storage: it owns the lock and a ``TimelineState``, the pure state machine
/// that keeps these rules; it runs each event of the state under the lock, then, after
/// unlocking, reports the problem the event answered (in the words of ``TimelineMessage``),
/// releases what it removed, and hands back the action to run. Scheduling is in
/// `Timeline+Scheduling.swift`, advancing in `Timeline+Advancing.swift`, cancelling in
/// `Timeline+Handle.swift`, sharing and diagnostics in `Timeline+Sharing.swift`; the drive loop,
/// budget and runaway report, shared with ``SharedTimeline``, in `Drive.swift`.
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

  // Invariant: `lock` guards `state` (its pending work included), `wallStart`, `creation`,
  // `auto`, `progress` and the `action` of every `Handle` this timeline created; everything
  // else is immutable. No user code (an action, or a closure's deinit) runs while it is held.
  // Since every access is under the lock, the runtime's exclusivity checks on `state` are left
  // out (`@exclusivity(unchecked)`): they cost
  // more than the work itself.
  let lock = Lock(rank: .timeline)
  @exclusivity(unchecked) var state: TimelineState<Time, Interval>
  /// The wall-clock date, as time since 1970, at which this lone timeline's front has moved no
  /// time at all (a shared timeline's is its group's); guarded by `lock`. See `WallClock.swift`.
  @exclusivity(unchecked) var wallStart: Duration = .zero
  /// Where the front that owns this timeline was created, for listings of pending work; set
  /// once by the front, guarded by `lock`.
  @exclusivity(unchecked) var creation: SourceLocation?
  /// Set while time moves by itself (its group's, for a member of a shared timeline); guarded
  /// by `lock`. See `AutoAdvance.swift`.
  @exclusivity(unchecked) var auto: AutoAdvance?
  /// Counts the actions taken and the advances finished: the hang watch's sign that time moves.
  @exclusivity(unchecked) var progress: UInt64 = 0
  /// Whether the hang watch follows this timeline's pending work, or never will for the test
  /// that schedules on it (see ``WatchedWorkSource``); guarded by `lock`. Only a timeline whose
  /// actions are more than wake-ups of sleepers asks: a lone test clock's sleeps are each
  /// watched already.
  @exclusivity(unchecked) var isPendingWorkWatched: Bool
  package let name: String
  /// How the runaway report writes a date (the fronts give the time since their start).
  let describe: (Time) -> String
  /// Set when this timeline shares its time with others; then every advance advances them all.
  let sharing: Sharing?
  /// The test it serves: what its async advances wait on for quiet (see ``TestScope``).
  package let scope: any TestScope
  /// The sleepers this timeline's actions woke that have not run again yet; a shared
  /// timeline's members all count in the group's.
  package let wakeUps: WakeUps
  /// Whether its async drives run the actions on the caller's actor (see
  /// ``actor(forActionsOf:)``); false for a lone test clock.
  let actionsRunOnTheCallersActor: Bool
  /// `Handle`'s metadata, looked up once: unspecialized code that writes `Handle(...)` asks the
  /// runtime for the metadata of the generic class at every call (about 160 instructions, twice
  /// per handle); creating one through this metatype passes it along instead.
  let handleType: Handle.Type

  /// How a member of a shared timeline reaches its group and converts its dates. A class, so
  /// that the optional `sharing` is a plain reference: unspecialized code looks up the metadata
  /// of an optional of a generic struct (a few hundred instructions) at every use.
  final class Sharing {
    let group: SharedTimeline
    let toShared: (Time) -> Duration
    let fromShared: (Duration) -> Time

    init(
      group: SharedTimeline, toShared: @escaping (Time) -> Duration,
      fromShared: @escaping (Duration) -> Time
    ) {
      self.group = group
      self.toShared = toShared
      self.fromShared = fromShared
    }
  }

  /// Creates a timeline starting at `now`.
  ///
  /// - Parameters:
  ///   - name: How issues name the owner, for example `"TestScheduler"`.
  ///   - describe: How the runaway report writes a date; by default, `"\(date)"`.
  ///   - advancedBy: Moves a date by an interval, the way the owner's time type does.
  ///   - actionsOnlyResumeSleepers: Whether every action only resumes a sleeper (a test
  ///     clock's): then an async drive runs them off the caller's actor (``actor(forActionsOf:)``).
  ///   - scope: Makes the test scope of the timeline, with the timeline's lock to borrow.
  package init(
    now: Time,
    name: String,
    describe: ((Time) -> String)? = nil,
    actionsOnlyResumeSleepers: Bool = false,
    scope makeScope: (Lock) -> any TestScope,
    advancedBy: @escaping (Time, Interval) -> Time
  ) {
    self.state = TimelineState(now: now, advancedBy: advancedBy)
    self.name = name
    self.describe = describe ?? { readable($0) }
    self.actionsRunOnTheCallersActor = !actionsOnlyResumeSleepers
    self.isPendingWorkWatched = actionsOnlyResumeSleepers
    self.sharing = nil
    self.handleType = Handle.self
    // The scope and the wake-up count borrow the timeline's lock: neither is ever called with
    // it held, and each saves the two allocations of a lock of its own.
    self.scope = makeScope(lock)
    self.wakeUps = WakeUps(lock: lock)
    scope.register(self)
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
    self.state = TimelineState(now: fromShared(now), sharedNow: now, advancedBy: advancedBy)
    self.name = name
    self.describe = { describeSeconds(toShared($0)) }
    // A drive of the group runs every member's actions, a scheduler's among them.
    self.actionsRunOnTheCallersActor = true
    self.isPendingWorkWatched = false
    self.sharing = Sharing(group: group, toShared: toShared, fromShared: fromShared)
    self.handleType = Handle.self
    self.scope = group.scope
    self.wakeUps = group.wakeUps
    group.join(self)
  }

  /// An owner of a shared timeline, for a front to hold (see ``SharedTimeline/Owner``); nil
  /// for a lone timeline.
  package func makeOwner() -> SharedTimeline.Owner? {
    sharing.map { SharedTimeline.Owner($0.group) }
  }

  deinit {
    // Handles outlive the timeline when their cancellables are kept; release their closures now,
    // so pending work of a timeline that is gone holds on to nothing. (No other thread can reach
    // a handle's action any more: their weak references to the timeline are already nil.)
    withExtendedLifetime(state.releaseAll()) {}
    // The hang watch's watch of it ends now, not at its next look. A lone clock's timeline
    // never asks for a watch (its flag is set from the start).
    if isPendingWorkWatched, actionsRunOnTheCallersActor {
      scope.pendingWorkSourceEnded(ObjectIdentifier(self))
    }
  }

  /// The current virtual time.
  package var now: Time { lock.withLock { TimelineEvents.now(state) } }

  /// Whether this timeline shares its time with others (its advances drive them all).
  package var isShared: Bool { sharing != nil }

  /// How many actions are waiting to run (cancelled ones excluded).
  ///
  /// - Complexity: O(1)
  package var pendingCount: Int { lock.withLock { state.pendingCount } }

  /// The date of the next action that will run, if any.
  ///
  /// - Complexity: amortized O(1)
  package var nextDate: Time? { lock.withLock { state.next()?.date } }

  // MARK: - Taking work

  /// Takes the next action due by `bound` (made once for a whole drive), sets `now` to its date
  /// and re-arms it if it repeats. The caller runs the action.
  ///
  /// - Complexity: O(log n)
  package func takeNext(dueBy bound: DueBound, at location: SourceLocation) -> Action? {
    var released: AnyObject?
    lock.lock()
    let taken = TimelineEvents.takeNext(&state, dueBy: bound)
    if taken != nil { progress &+= 1 }
    if sharing != nil { released = updateHold() }
    lock.unlock()
    withExtendedLifetime(released) {}
    guard let taken else { return nil }
    if let stopped = taken.stoppedRepeating {
      reportStopped(unsafeDowncast(stopped, to: Handle.self), at: location)
    }
    return taken.action
  }

  /// Reports a repeating action whose interval became too small to move its date.
  private func reportStopped(_ handle: Handle, at location: SourceLocation) {
    guard let date = lock.withLock({ handle.stoppedAfter }) else { return }
    location.report(TimelineMessage.intervalTooSmall(name, handle.interval, after: date))
  }

  /// Ends an advance: `now` becomes `target` unless it is already later.
  package func finishAdvance(at target: Time) {
    // `lock()` and `unlock()` rather than `withLock`: a closure over generic state costs the
    // state's metadata at every call in unspecialized code.
    lock.lock()
    TimelineEvents.finish(&state, at: target)
    progress &+= 1
    lock.unlock()
  }

  /// A mark that changes whenever this timeline runs an action or finishes an advance (or its
  /// shared timeline moves it), for the hang watch.
  package var progressMark: UInt64 { lock.withLock { progress } }

  // MARK: - With the lock held

  /// The next sequence number: this timeline's own, or its group's when it shares its time.
  /// Call with the lock held.
  func takeSequence() -> UInt64 {
    if let sharing { return sharing.group.takeSequence() }
    return TimelineEvents.takeSequence(&state)
  }

  /// Tells the group whether to keep this timeline alive, when that changes (see
  /// ``TimelineState/updateHold()``). Call with the lock held, and release the answer after
  /// unlocking (it may be the last reference to this timeline).
  func updateHold() -> AnyObject? {
    guard let sharing, let keep = state.updateHold() else { return nil }
    return sharing.group.hold(self, keep)
  }
}
