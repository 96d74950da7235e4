import Dispatch
import Synchronization
import TempoCore
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

// A test blocked on pending work rather than on a sleep: a Combine pipeline read through
// `.values`, whose value waits for a scheduler's action, leaves the test's task suspended on a
// continuation with no sleep to watch. The hang watch follows the source itself, per test:
// while the test's task waits, its work is quiet and work is pending on the source that
// nothing advances, the test is blocked on time. It is reported, and the test's task is
// cancelled, so that the test ends (`.values` ends its iteration when its task is cancelled).

@available(TempoTestExecutor 1.0, *)
extension HangWatch {
  /// How many sources the watch follows at once for one test: a test that keeps thousands of
  /// schedulers with work pending (a model check of the engine) would otherwise cost every
  /// look thousands of reads. Sources beyond it are not followed for that test.
  static let sourcesPerTest = 64

  /// Follows `source`'s pending work for the test of the current task, a task of a test.
  ///
  /// The source is told it is watched even when the current task is in no test (a task the
  /// test left running, or no test at all), so that it stops asking: a source is watched for
  /// the first test that schedules work on it from a task, and again once that test has
  /// ended.
  ///
  /// - Parameter deferred: The deferred executor of the test the source was made in, if any:
  ///   scheduling from that test's own task needs no look at whose task it is.
  func watchPendingWork(of source: any WatchedWorkSource, deferred: DeferredTest? = nil) {
    // The source stops asking first: a look that lets the watch go tells it to ask again.
    source.watchStarted()
    // The test's own task, outside any scope, whose executor was deferred (opened since or
    // not): the watch is asked for, and made at the next look, which reads the executor once
    // it has opened. (At its address, kept by the deferral, no other task.)
    if let deferred, TestExecutor.currentTaskPointer == deferred.test.address,
      TestExecutor.boundAddressIfAnyIsOpen == nil
    {
      return request(source, of: deferred)
    }
    guard let role = TestExecutor.roleOfCurrentSleeper() else {
      // A source made elsewhere, scheduled on by a test's task whose executor is deferred.
      if let deferral = TestRegistry.deferralOfCurrentTask() { request(source, of: deferral) }
      return
    }
    guard let test = TestExecutor.keepTestTask(of: role) else { return }
    // Checked before anything is made for the watch (under Swift Testing, a task).
    guard admits(source, forTestOf: test) else { return tempo_task_release(test) }
    // The task that schedules the work, if not the test's own: a task that reads a pipeline
    // through `.values` subscribes, and so schedules, from the task that then waits.
    let scheduling: UnsafeRawPointer? =
      switch role {
      case .scoped, .testTask: nil
      case .scopeMember, .testMember, .lineageMember:
        TestExecutor.currentTaskPointer.flatMap(HeldTask.keep)
      }
    let watched = WatchedWork(
      source: source, role: role, test: test, scheduling: scheduling,
      reporter: isInSwiftTestingTest ? WorkHangReporter() : nil)
    // Not followed if another task started a watch of the source meanwhile, or if the test
    // has as many as it may by now: this one ends unused.
    if !watch(watched) { watched.end(with: nil) }
  }

  /// Makes the watch `request` asked for, unless its source or its test has gone: the test's
  /// task is the deferral's (``DeferredTest/retainedTest()``), whose executor, once it opens,
  /// tells whether the test is quiet. Called by a look, before it observes.
  func follow(_ request: WatchRequest) {
    guard let source = request.source, let test = request.deferral.retainedTest() else {
      request.reporter?.deliver(nil)
      return
    }
    let watched = WatchedWork(
      source: source, role: .testTask(nil), test: test, scheduling: nil,
      deferred: request.deferral, reporter: request.reporter)
    if !watch(watched) { watched.end(with: nil) }
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
            Int64(periodNanoseconds) * Int64(looksToFire + Guesses.hangWorkLooksBeyondSleeps))),
        noun: noun),
      location: watched.role.scopeExecutor?.scope ?? source.creationLine)
    report.reportInScope = watched.role.scopeExecutor?.reportInScope
    watched.end(with: report)
  }
}

/// A watch of pending work asked for by a test whose executor is deferred
/// (``HangWatch/watchPendingWork(of:deferred:)``): the source, weakly, the deferral, and under
/// Swift Testing the task that would report.
@available(TempoTestExecutor 1.0, *)
struct WatchRequest {
  weak var source: (any WatchedWorkSource)?
  let deferral: DeferredTest
  let reporter: WorkHangReporter?
}

/// A time source's pending work that the hang watch follows for one test: the source (weakly:
/// a source that goes away is no longer watched), the role of the task that first scheduled
/// work on it there, the test's own task, kept so that its status can be read and so that it
/// can be cancelled, and that scheduling task, if another, kept to be cancelled too if it
/// waits when the watch fires.
///
/// The watch ends once: with a report when it fires, or, when the watch lets it go (the test
/// ended, or the source went away), with none; then the source is told, and asks for a watch
/// again at its next work.
@available(TempoTestExecutor 1.0, *)
final class WatchedWork: @unchecked Sendable {
  // Invariant: every stored property is set once, in `init`; `source` is a weak reference,
  // whose loads the runtime makes safe from any thread; `test` and `scheduling` each hold one
  // retain, released in `deinit`, and are only read for their status or cancelled; `hasEnded`
  // is atomic.
  private(set) weak var source: (any WatchedWorkSource)?
  /// The source's address, the key of the watch's index (``HangWatch``).
  let sourceID: ObjectIdentifier
  let role: SleeperRole
  /// The test's own task, kept; its address is what the watch counts one test's watches by.
  let test: UnsafeRawPointer
  private let scheduling: UnsafeRawPointer?
  /// Under Swift Testing, where the report is made (see ``WorkHangReporter``).
  private let reporter: WorkHangReporter?
  /// The test's deferred executor, if it had none when the watch began: its activity is read
  /// once it has opened.
  private let deferred: DeferredTest?
  private let hasEnded = Atomic<Bool>(false)

  /// Follows `source` for the test whose task is `test`; takes over one retain of `test` and
  /// of `scheduling`.
  init(
    source: any WatchedWorkSource, role: SleeperRole, test: UnsafeRawPointer,
    scheduling: UnsafeRawPointer?, deferred: DeferredTest? = nil, reporter: WorkHangReporter?
  ) {
    self.deferred = deferred
    self.source = source
    self.sourceID = ObjectIdentifier(source)
    self.role = role
    self.test = test
    self.scheduling = scheduling
    self.reporter = reporter
  }

  deinit {
    // Ended without a report: the test ended, or the source went away.
    if end(with: nil) { source?.watchEnded() }
    tempo_task_release(test)
    if let scheduling { tempo_task_release(scheduling) }
  }

  /// What the watch sees at one look. The test's own task must be suspended (not running,
  /// queued or parked in a yield) and alive; where an executor follows the test, its work must
  /// be quiet too. `activity` reads an executor's activity (once per look for all the watches
  /// of one test).
  ///
  /// The cheap reads come first: a test may leave thousands of watches (one per scheduler it
  /// made), each observed at every look.
  func observe(activity readActivity: (TestExecutor) -> TestActivity) -> HangObservation {
    guard let source, !tempo_task_is_complete(test) else { return Self.idle(isPending: false) }
    // A test whose task runs is not blocked, and nothing pending holds nothing up: nothing
    // more to read.
    guard HeldTask.isWaiting(test), source.hasPendingWork else { return Self.idle(isPending: true) }
    var executor = role.executor
    if executor == nil, let deferred { executor = deferred.opened }
    let activity =
      executor.map(readActivity)
      ?? TestActivity(
        accepted: 0, isQuiet: true, waitsOnOutsideWork: false, isRunningTest: true)
    return HangObservation(
      progress: source.progressMark, activity: activity, isPending: activity.isRunningTest,
      isAdvancedByItself: source.isAdvancedByItself)
  }

  /// What a look records of a watch that holds nothing up: kept if `isPending`, else dropped
  /// (the source went away, or the test's task has ended).
  static func idle(isPending: Bool) -> HangObservation {
    HangObservation(progress: 0, activity: nil, isPending: isPending, hasWork: false)
  }

  /// Ends the watch, with `report` if it fired: the report is made in the test, then the test's
  /// task is cancelled, with the task that scheduled the work if it waits too. Answers whether
  /// this call ended it (a watch ends once).
  @discardableResult
  func end(with report: HangReport?) -> Bool {
    let ending = hasEnded.compareExchange(
      expected: false, desired: true, ordering: .acquiringAndReleasing)
    guard ending.exchanged else { return false }
    let delivered = report.map {
      WorkHangEnding(
        report: $0, test: HeldTask.keeping(test),
        scheduling: scheduling.flatMap(HeldTask.keeping))
    }
    if let reporter {
      reporter.deliver(delivered)
    } else {
      delivered?.run()
    }
    return true
  }
}

/// What ends a watch of pending work that fired: the report, made in the test, then the
/// cancellation of the test's task and of the task that scheduled the work, if it waits too.
@available(TempoTestExecutor 1.0, *)
struct WorkHangEnding: Sendable {
  let report: HangReport
  let test: HeldTask?
  let scheduling: HeldTask?

  func run() {
    report.deliver()
    if let scheduling, scheduling.isWaiting { scheduling.cancel() }
    test?.cancel()
  }
}

/// Where a watch of pending work ends under Swift Testing, whose issues land in the test whose
/// task records them: a task started in the test when the watch began runs the ending (nil if
/// the watch ended without a report). Under XCTest, whose current test is the process's, the
/// watch runs the ending itself.
///
/// The task does not run until the ending is delivered: its first job is held as the task is
/// made (``SystemThreads/holdingFirstJob(_:)``), and run then, on a system thread if there is a
/// report, else at once, where the watch ends. A test that ends with no hang, nearly every
/// one, pays for making the task and running it once to its end, with no thread woken.
@available(TempoTestExecutor 1.0, *)
final class WorkHangReporter: @unchecked Sendable {
  // Invariant: `lock` guards every stored property. `firstJob` is set in `init`, before the
  // reporter is shared, and taken once, by `deliver`, which stores `ending` in the same step:
  // the task reads `ending` only in that job, which runs after.
  private let lock = Lock()
  private var ending: WorkHangEnding?
  private var isDelivered = false
  private var firstJob: UnownedJob?
  /// Whether the task ran before the ending was delivered: its first job was not held (the
  /// runtime enqueues it as the task is made; should one not, the watch runs the ending).
  private var ranEarly = false

  /// Makes the task, in the current task's test, and holds its first job.
  init() {
    firstJob = SystemThreads.holdingFirstJob {
      // Not one of the test's tasks for the leftover-work check: it ends when the watch does.
      TaskCensus.$token.withValue(nil) {
        _ = Task<Void, Never>(executorPreference: SystemThreads.shared) { [self] in
          takeEnding()?.run()
        }
      }
    }
  }

  /// Whether the task waits for its ending, its first job held (for tests).
  var isHoldingItsTask: Bool { lock.withLock { firstJob != nil } }

  /// Hands the task `ending`, and lets it run; called once.
  func deliver(_ ending: WorkHangEnding?) {
    let (job, ranEarly) = lock.withLock { () -> (UnownedJob?, Bool) in
      self.ending = ending
      isDelivered = true
      defer { firstJob = nil }
      return (firstJob, self.ranEarly)
    }
    if let job {
      if ending == nil {
        // Nothing to report: the task only ends, here, with no thread to wake for it.
        job.runSynchronously(on: SystemThreads.shared.asUnownedTaskExecutor())
      } else {
        SystemThreads.shared.run(job)
      }
    } else if ranEarly {
      ending?.run()
    }
  }

  private func takeEnding() -> WorkHangEnding? {
    lock.withLock {
      if !isDelivered { ranEarly = true }
      return ending
    }
  }
}

/// A task executor that runs each job on a system thread, as the global executor would, without
/// passing through the runtime's hooks: the tasks Tempo starts for itself in a test prefer it
/// (``WorkHangReporter``). One instance, alive as long as the process: the runtime holds task
/// executors unowned.
@available(TempoTestExecutor 1.0, *)
final class SystemThreads: TaskExecutor {
  static let shared = SystemThreads()

  /// Where a job enqueued on this thread is held instead of run, while
  /// ``holdingFirstJob(_:)`` makes a task (a `HeldJob`, unretained).
  private static let holder = Platform.ThreadSpecific()

  private final class HeldJob {
    var job: UnownedJob?
  }

  private init() {}

  /// Runs `makeTask`, which makes a task that prefers this executor, and answers the task's
  /// first job, which the runtime enqueues here as the task is made: held, not run, for the
  /// caller to run when it chooses (`runSynchronously(on:)` with this executor, or ``run(_:)``).
  static func holdingFirstJob(_ makeTask: () -> Void) -> UnownedJob? {
    let held = HeldJob()
    let previous = holder.value
    holder.value = Unmanaged.passUnretained(held).toOpaque()
    makeTask()
    holder.value = previous
    return withExtendedLifetime(held) { held.job }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    if let slot = Self.holder.value {
      let held = Unmanaged<HeldJob>.fromOpaque(slot).takeUnretainedValue()
      if held.job == nil {
        held.job = job
        return
      }
    }
    run(job)
  }

  /// Runs `job` on a system thread.
  func run(_ job: UnownedJob) {
    DispatchQueue.global(qos: DispatchQoS.QoSClass(job.priority)).async {
      job.runSynchronously(on: self.asUnownedTaskExecutor())
    }
  }
}
