import Dispatch
import Synchronization
import TempoRuntimeABI

/// The main actor's executor once a test has needed Tempo's hooks: it runs every main-actor job
/// on the main queue, in order, as the platform's does, and counts each one that belongs to a
/// test, so that the test's executor knows when its main-actor work has run.
///
/// The runtime asks `swift_task_getMainExecutor_hook` for the main executor whenever code hops
/// to the main actor; ``RuntimeHooks`` answers with this one from the first time the hooks are
/// installed, for the rest of the process, so that the main actor's identity does not change
/// between tests (a change makes the next hop go through the main queue). A task suspended
/// while it was installed remembers it and is resumed through it later, so the one instance
/// lives as long as the process. While nothing routes, it decides nobody's job.
///
/// Which test a job belongs to is decided as for the global executor (``RuntimeHooks``). While
/// the job runs, the thread is marked as running that test's work (``RunningJob``), so what it
/// starts belongs to the test too. Plain GCD blocks on the main queue are not jobs and are not
/// counted.
@available(TempoTestExecutor 1.0, *)
final class MainExecutor: SerialExecutor, @unchecked Sendable {
  // Invariant: no stored state. A job's bookkeeping travels with it, in its block, and is
  // touched only on the main queue (`running`, `switchedInPlace`).
  static let shared = MainExecutor()

  /// The executor as the runtime's hook returns it.
  static let unowned = shared.asUnownedSerialExecutor()

  private init() {}

  /// The main-actor job running on the main queue: a value, not an object, since a debug build
  /// allocates and frees an object at every main-actor job. Nothing in it is retained: the
  /// block that runs the job holds its executor.
  private struct Running {
    var owner: Unmanaged<TestExecutor>? = nil
    var task: UnsafeRawPointer
    /// Whether the job counts as its test's work (until ``stopCountingRunningJob(of:for:)``).
    var isCounted: Bool
    /// Whether the job runs with a stand-in as its task executor: its task prefers one.
    var runsWithPreference = false
  }

  /// The job of the running job's task that the task enqueued here from that job only because
  /// its task executor preference changed in it (``switchesInPlace(_:task:)``): run next, in the
  /// same block, as the same job. Read and written only on the main queue (not checked for
  /// exclusive access, as ``running``).
  @exclusivity(unchecked) nonisolated(unsafe) private static var switchedInPlace: UnownedJob?

  /// Whether `job`, enqueued here, is the running main-actor job's task switching to the main
  /// actor it is on, only because its task executor preference was pushed or popped in that
  /// job (`TestExecutor.withPreference`), in a block of the executor the task belongs to: the
  /// runtime compares the task executor a job runs with to the task's preference at every
  /// entry to an isolation, and they now differ. Had they been the same, the runtime would have
  /// gone on in place; so does this, with no trip through the main queue.
  private static func switchesInPlace(_ job: UnownedJob, task: UnsafeRawPointer) -> Bool {
    // Only a main-actor job of `task` marks the thread so: on the main queue, then, whose
    // `running` and `switchedInPlace` are read below.
    let slot = RunningJob.current
    guard slot.isMainJob, slot.task == task, switchedInPlace == nil, let running,
      running.task == task,
      running.runsWithPreference != tempo_task_has_executor_preference(task),
      // Only in a block of the executor the task belongs to: `rejoin()` pushes a preference
      // to leave a job that is not its executor's, and that switch must reach the executor.
      let owner = running.owner,
      TestRegistry.executorThatMet(TaskRef(task)) === owner.takeUnretainedValue()
    else { return false }
    switchedInPlace = job
    return true
  }

  /// Runs `job` on the main queue while some task prefers the stand-in: a job of a task that
  /// prefers it (`TestExecutor.withPreference`) runs with it as its task executor, so that its
  /// entries to the main actor's isolation are no switch; then what the job's task switched in
  /// place (``switchesInPlace(_:task:)``), as the same job.
  private static func runPreferring(_ job: UnownedJob, isTask: Bool) {
    let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
    var next: UnownedJob? = job
    var ranWithPreference = false
    while let job = next {
      let withPreference = isTask && tempo_task_has_executor_preference(task)
      if withPreference != ranWithPreference {
        running?.runsWithPreference = withPreference
        ranWithPreference = withPreference
      }
      if withPreference {
        job.runSynchronously(
          isolatedTo: unowned, taskExecutor: TestExecutorStandIn.running.asUnownedTaskExecutor())
      } else {
        job.runSynchronously(on: unowned)
      }
      next = switchedInPlace
      if next != nil { switchedInPlace = nil }
    }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    enqueue(UnownedJob(job))
  }

  func enqueue(_ job: UnownedJob) {
    let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
    if TestExecutor.tasksPreferring.load(ordering: .relaxed) > 0,
      Self.switchesInPlace(job, task: task)
    {
      return
    }
    // While nothing routes (no executor open, no deferral, no clock made outside any task
    // watching), a job is nobody's: it runs on the main queue as the platform's would, its
    // thread marked as running its task (a test that makes a clock in it, and then leaves for
    // an actor, is still its task when routing asks), and nothing more.
    guard RuntimeHooks.isRouting.load(ordering: .relaxed) else {
      let isTask = JobIdentity.isTask(task)
      return MainQueueActivity.async {
        let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
        let slot = RunningJob.enter(nil, task: isTask ? task : nil, isMainJob: true)
        job.runSynchronously(on: Self.unowned)
        RunningJob.leave(to: slot)
      }
    }
    let owner = TestRegistry.firstCandidate(forJob: task) { $0.acceptMainJob(task: task) }
    // A job of no test is counted for its task while a clock made outside any task watches.
    let outside = owner == nil ? TestRegistry.leaves(job) : nil
    MainQueueActivity.async {
      MainQueueActivity.blockStarted()
      let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
      let previous = Self.running
      var running = Running(task: task, isCounted: owner != nil)
      if let owner { running.owner = Unmanaged.passUnretained(owner) }
      Self.running = running
      let isTask = JobIdentity.isTask(task)
      // Where a system sleep's length is recovered from its deadline, the window its clock was
      // read in starts here (read only if a clock controls the test's system sleeps).
      let startedAt = isTask ? owner?.systemSleepWindowStart(of: task) ?? 0 : 0
      let slot = RunningJob.enter(
        owner, task: isTask ? task : nil, startedAt: startedAt, handOffs: 1, isMainJob: true)
      var id = MainQueueActivity.noTest
      if let owner = running.owner { id = MainQueueActivity.workID(owner) }
      let work = MainQueueActivity.enterWork(id)
      // While no task prefers the stand-in, as before; else `runPreferring`. A job that began
      // before its task's preference was pushed may have switched in place as it was pushed.
      if TestExecutor.tasksPreferring.load(ordering: .relaxed) == 0 {
        job.runSynchronously(on: Self.unowned)
        if let switched = Self.switchedInPlace {
          Self.switchedInPlace = nil
          Self.runPreferring(switched, isTask: isTask)
        }
      } else {
        Self.runPreferring(job, isTask: isTask)
      }
      MainQueueActivity.leaveWork(to: work)
      let switched = RunningJob.takeHandedOff()
      RunningJob.leave(to: slot)
      let isCounted = Self.running?.isCounted ?? false
      Self.running = previous
      // A switch taken from the job finished it (`TestExecutor.takesSwitch(fromMainJobOf:)`),
      // which only a counted job hands off.
      #if TEMPO_INTERNAL_CHECKS
        precondition(
          switched == nil || isCounted, "main executor: an uncounted main-actor job handed off")
      #endif
      if isCounted, switched == nil { owner?.mainJobFinished() }
      if let outside { TestRegistry.finished(outside) }
      // The task left the main actor for the test's executor, which took its next job to run
      // here (see `RunningJob.handOff`).
      if let switched, let owner { owner.pump(startingWith: switched) }
    }
  }

  func checkIsolated() {
    dispatchPrecondition(condition: .onQueue(.main))
  }

  /// The job running on the main queue now, if it came through this executor. Read and written
  /// only on the main queue, one block at a time: not checked for exclusive access, which a
  /// debug build does at run time, several times at every main-actor job.
  @exclusivity(unchecked) nonisolated(unsafe) private static var running: Running?

  /// If the caller runs a main-actor job of `task` counted for `executor`, stops counting it
  /// (the task is about to wait for `executor` to go quiet) and answers true.
  static func stopCountingRunningJob(of task: UnsafeRawPointer, for executor: TestExecutor) -> Bool
  {
    guard RuntimeHooks.isOnMainQueue, let job = running, job.task == task, job.isCounted,
      job.owner?.toOpaque() == Unmanaged.passUnretained(executor).toOpaque()
    else { return false }
    running?.isCounted = false
    return true
  }

  /// Whether `executor` is this one.
  static func isThis(_ executor: UnownedSerialExecutor) -> Bool {
    unsafeBitCast(executor, to: (UInt, UInt).self).0
      == unsafeBitCast(unowned, to: (UInt, UInt).self).0
  }
}
