@_spi(TempoInternals) package import TempoSupport

// What the engine asks of the test its timelines serve, in protocols it owns: the test
// executor (TempoExecutor, a layer above) implements them, and the fronts hand a timeline its
// scope when they make it. The engine itself knows nothing of tasks or executors.

/// The test a timeline serves, as the engine sees it: where its async drives wait for the
/// test's work to go quiet, where its pending work is listed when the test ends, and how its
/// auto-advance driver starts. One per lone timeline, or per shared timeline for all its
/// members; TempoExecutor's `ImplicitScope` is the one in use.
///
/// ```swift
/// let timeline = Timeline(now: .zero, name: "TestClock", scope: ImplicitScope.init(lock:)) {
///   $0 + $1
/// }
/// ```
package protocol TestScope: AnyObject, Sendable {
  /// Makes `source`, the timeline that owns the scope, one of the test's time sources: its
  /// pending work is listed when the test ends.
  func register(_ source: any LeftoverWorkSource)

  /// What an async drive from the current context waits on for quiet (the open scope's test,
  /// else the test this timeline serves); nil where the runtime lets Tempo see no jobs, and the
  /// drive settles by probes.
  ///
  /// - Parameter forAutoAdvance: Whether auto-advance's driver will wait, not the current task.
  func quiescence(at location: SourceLocation, forAutoAdvance: Bool) -> (any Quiescence)?

  /// What a drive that settled goes back to running on, if anything (see
  /// ``Quiescence/rejoin()``).
  var quiescenceToRejoin: (any Quiescence)? { get }

  /// Starts auto-advance's driver, a task of its own that runs `drive`: bound to the test's
  /// executor as a scope's body is (unless `probesOnly`), and not counted among the test's
  /// tasks for the leftover-work check.
  func startDriver(
    at location: SourceLocation, probesOnly: Bool, _ drive: @escaping @Sendable () async -> Void)

  /// Whether the current context may belong to a test whose hang watch follows pending work
  /// (it runs in a task): asked after every scheduling while no watch follows the source, so
  /// cheap.
  var mayWatchPendingWork: Bool { get }

  /// Work was scheduled on `source` from the current context while no watch follows it (see
  /// ``WatchedWorkSource``), and ``mayWatchPendingWork``: the scope lets the hang watch follow
  /// the source for the test the current task belongs to, if any.
  func watchPendingWork(of source: any WatchedWorkSource)

  /// `source`, whose address this is, is going away (its `deinit`) after asking for a watch of
  /// its pending work: the watch of it, if any, ends now, rather than at the hang watch's next
  /// look, and its test may have another source followed in its place.
  func pendingWorkSourceEnded(_ source: ObjectIdentifier)
}

/// Quiet, as a test executor keeps it: no job of the test queued or running. An async drive
/// settles before its first action and after each, and runs each action with what it releases.
package protocol Quiescence: AnyObject, Sendable {
  /// Waits until the test's work is quiet, the current task becoming a driver that waits;
  /// answers false (after reporting at `location`) if it never went quiet within its budget.
  /// With `respectingOutsideWork`, quiet also waits for the outside work the test declared.
  /// Runs on `isolation`, the drive's: a drive on the main actor stays there, with no hop off
  /// it and back at each wait.
  @discardableResult
  func settle(
    in isolation: isolated (any Actor)?, at location: SourceLocation, respectingOutsideWork: Bool
  ) async -> Bool

  /// ``settle(in:at:respectingOutsideWork:)`` for a driver that has settled before.
  @discardableResult
  func settleAgain(
    in isolation: isolated (any Actor)?, at location: SourceLocation, respectingOutsideWork: Bool
  ) async -> Bool

  /// Runs `action` and, on the same thread, the jobs it made runnable.
  func runAndDrain(_ action: () -> Void)

  /// The driver goes back to running with the test's other tasks; `isolation` is where it
  /// goes on (a call from the main actor stays there).
  func rejoin(isolation: isolated (any Actor)?) async
}

/// Something whose pending work a test executor lists when its test ends: a lone timeline, or a
/// shared one (which lists its members').
package protocol LeftoverWorkSource: AnyObject, Sendable {
  /// The pending work, one line per item under a head line; nil if nothing is pending.
  var leftoverDescription: String? { get }

  /// How many items have ever been scheduled on the source: when it changes, the source was
  /// used since (the end of an XCTest test lists only the sources its test used).
  var scheduledCount: UInt64 { get }

  /// Where the source was made, when a function that knows its caller made it.
  var creationLine: SourceLocation? { get }

  /// The sleeps whose wake-ups are pending on the source (a shared timeline's members' too), in
  /// the order they are due: what the end of its test ends.
  var pendingSleeps: [PendingSleep] { get }
}

/// A sleep whose wake-up is pending on a timeline: the sleeper, and the handle of its wake-up,
/// which describes it (``TimelineHandle/describeSleep()``).
package struct PendingSleep: Sendable {
  package let sleeper: Sleeper
  package let wakeUp: TimelineHandle
}

/// A time source whose pending work the hang watch follows while its test waits: a test that
/// waits, quiet, while work is pending on the source that nothing advances (a Combine pipeline
/// read through `.values`, waiting for a scheduler's action) is blocked on time, even though
/// no task sleeps.
///
/// The source asks its scope to watch it (``TestScope/watchPendingWork(of:)``) each time work
/// is scheduled on it, until told that a watch follows it (``watchStarted()``), and again after
/// that watch has ended (``watchEnded()``).
package protocol WatchedWorkSource: LeftoverWorkSource {
  /// A mark that changes whenever the source runs an action or finishes an advance.
  var progressMark: UInt64 { get }
  /// Whether any work is pending.
  var hasPendingWork: Bool { get }
  /// Whether the source's time moves by itself now (its auto-advance driver runs).
  var isAdvancedByItself: Bool { get }
  /// How the source names itself in a report: "TestScheduler", "TestClock".
  var name: String { get }
  /// A watch follows the source now, or none ever will for the test that schedules on it:
  /// scheduling stops asking.
  func watchStarted()
  /// The watch of the source has ended (its test ended): the next work scheduled asks for a
  /// watch again.
  func watchEnded()
}

/// Follows a sleep until it ends (the hang watch): told by the sleeper when it has.
package protocol SleepWatcher: AnyObject, Sendable {
  /// `sleeper`'s sleep ended (woken, cancelled, or ended by the watch itself).
  func sleepEnded(_ sleeper: Sleeper)
}
