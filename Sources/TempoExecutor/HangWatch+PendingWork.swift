import TempoCore
@_spi(TempoInternals) import TempoSupport

// A test blocked on pending work rather than on a sleep: a Combine pipeline read through
// `.values`, whose value waits for a scheduler's action, leaves the test's task suspended on a
// continuation with no sleep to watch. The hang watch follows the source itself, per test:
// while the test's task waits, its work is quiet and work is pending on the source that
// nothing advances, the test is blocked on time. It is reported, and the test's task is
// cancelled, so that the test ends (`.values` ends its iteration when its task is cancelled).

@available(TempoTestExecutor 1.0, *)
extension HangWatch {
  /// How many looks more than a sleep a source's pending work must hold its test up to be
  /// reported: the sleeps of a blocked test are reported and ended first, and whatever they
  /// release moves the test on.
  static let workLooksBeyondSleeps = 2

  /// Follows `source`'s pending work for the test of the current task, a task of a test.
  ///
  /// The source is told it is watched even when the current task is in no test (a task the
  /// test left running, or no test at all), so that it stops asking: a source is watched for
  /// the first test that schedules work on it from a task, and again once that test has
  /// ended.
  func watchPendingWork(of source: any WatchedWorkSource) {
    guard !isWatching(source),
      let role = TestExecutor.roleOfCurrentSleeper(),
      let test = TestExecutor.testTask(of: role)
    else { return source.watchStarted() }
    // The task that schedules the work, if not the test's own: a task that reads a pipeline
    // through `.values` subscribes, and so schedules, from the task that then waits.
    let scheduling: HeldTask? =
      switch role {
      case .scoped, .testTask: nil
      case .scopeMember, .testMember, .lineageMember:
        TestExecutor.currentTaskPointer.flatMap(HeldTask.keeping)
      }
    let watched = WatchedWork(
      source: source, role: role, test: test, scheduling: scheduling, ending: .forCurrentTest())
    if watch(watched) {
      source.watchStarted()
    } else {
      // Another task started a watch of the source meanwhile: this one ends unused, and
      // leaves the source to that watch.
      watched.ending.deliver(nil)
    }
  }

  /// Reports `watched`, whose pending work held its test up, and cancels the test's task.
  func endBlockedOnWork(_ watched: WatchedWork) {
    guard let source = watched.source else { return }
    let noun = source.name.contains("Scheduler") ? "scheduler" : "clock"
    var report = HangReport(
      message: TimelineMessage.blockedOnPendingWork(
        source.leftoverDescription ?? source.name,
        waited: describeSeconds(
          Duration.nanoseconds(
            Int64(periodNanoseconds) * Int64(looksToFire + Self.workLooksBeyondSleeps))),
        noun: noun),
      location: watched.role.scopeExecutor?.scope ?? source.creationLine)
    report.reportInScope = watched.role.scopeExecutor?.reportInScope
    watched.ending.deliver(
      WorkHangEnding(report: report, test: watched.test, scheduling: watched.scheduling))
  }
}

/// A time source's pending work that the hang watch follows for one test: the source (weakly:
/// a source that goes away is no longer watched), the role of the task that first scheduled
/// work on it there, the test's own task, kept so that its status can be read and so that it
/// can be cancelled, and that scheduling task, if another, kept to be cancelled too if it
/// waits when the watch fires.
///
/// When the watch lets it go without a report (the test ended, or the source went away), the
/// source is told, and asks for a watch again at its next work.
@available(TempoTestExecutor 1.0, *)
final class WatchedWork: @unchecked Sendable {
  // Invariant: every stored property is set once, in `init`; `source` is a weak reference,
  // whose loads the runtime makes safe from any thread.
  private(set) weak var source: (any WatchedWorkSource)?
  let role: SleeperRole
  let test: HeldTask
  let scheduling: HeldTask?
  let ending: WorkHangEndings

  init(
    source: any WatchedWorkSource, role: SleeperRole, test: HeldTask, scheduling: HeldTask?,
    ending: WorkHangEndings
  ) {
    self.source = source
    self.role = role
    self.test = test
    self.scheduling = scheduling
    self.ending = ending
  }

  deinit {
    // Ended without a report: the test ended, or the source went away.
    if ending.deliver(nil) { source?.watchEnded() }
  }

  /// What the watch sees at one look. The test's own task must be suspended (not running,
  /// queued or parked in a yield) and alive; where an executor follows the test, its work must
  /// be quiet too.
  func observe() -> HangObservation {
    guard let source else { return HangObservation(progress: 0, activity: nil, isPending: false) }
    var activity =
      role.executor?.activity
      ?? TestActivity(
        accepted: 0, isQuiet: true, waitsOnOutsideWork: false, isRunningTest: true)
    activity.isRunningTest = activity.isRunningTest && !test.isComplete
    activity.testTaskIsWaiting = activity.testTaskIsWaiting && test.isWaiting
    return HangObservation(
      progress: source.progressMark, activity: activity, isPending: activity.isRunningTest,
      isAdvancedByItself: source.isAdvancedByItself, hasWork: source.hasPendingWork)
  }
}

/// What ends a watch of pending work that fired: the report, made in the test, then the
/// cancellation of the test's task and of the task that scheduled the work, if it waits too.
@available(TempoTestExecutor 1.0, *)
struct WorkHangEnding: Sendable {
  let report: HangReport
  let test: HeldTask
  let scheduling: HeldTask?

  func run() {
    report.deliver()
    if let scheduling, scheduling.isWaiting { scheduling.cancel() }
    test.cancel()
  }
}

/// Where a watch of pending work ends, once: with a ``WorkHangEnding`` if it fired, or with
/// nothing. Under Swift Testing an issue lands in the test whose task records it, so a task
/// started in the test when the watch began waits for the ending and runs it; under XCTest
/// (whose current test is the process's), the watch runs it itself.
@available(TempoTestExecutor 1.0, *)
final class WorkHangEndings: @unchecked Sendable {
  // Invariant: `lock` guards `delivered`, `ending` and `waiter`; the waiter is resumed, and an
  // ending run, after unlocking.
  private let lock = Lock()
  private var delivered = false
  private var ending: WorkHangEnding?
  private var waiter: CheckedContinuation<WorkHangEnding?, Never>?
  /// Whether a task of the test runs the ending (else ``deliver(_:)`` does).
  private let hasTask: Bool

  private init(hasTask: Bool) {
    self.hasTask = hasTask
  }

  /// The endings of a watch that begins now, in the current task's test.
  static func forCurrentTest() -> WorkHangEndings {
    guard isInSwiftTestingTest else { return WorkHangEndings(hasTask: false) }
    let endings = WorkHangEndings(hasTask: true)
    // Not one of the test's tasks for the leftover-work check: it ends when the watch does.
    TaskCensus.$token.withValue(nil) {
      Task { await endings.next()?.run() }
    }
    return endings
  }

  /// Ends the watch with `ending` (nil: no report), unless it has ended before; answers
  /// whether this call ended it.
  @discardableResult
  func deliver(_ ending: WorkHangEnding?) -> Bool {
    let (first, waiter) = lock.withLock {
      () -> (Bool, CheckedContinuation<WorkHangEnding?, Never>?) in
      guard !delivered else { return (false, nil) }
      delivered = true
      self.ending = ending
      let waiter = self.waiter
      self.waiter = nil
      return (true, waiter)
    }
    guard first else { return false }
    if hasTask {
      waiter?.resume(returning: ending)
    } else {
      ending?.run()
    }
    return true
  }

  /// Waits for the ending.
  private func next() async -> WorkHangEnding? {
    await withCheckedContinuation { continuation in
      let ready = lock.withLock { () -> WorkHangEnding?? in
        guard delivered else {
          waiter = continuation
          return nil
        }
        return .some(ending)
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
