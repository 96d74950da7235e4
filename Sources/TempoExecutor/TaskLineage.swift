import Dispatch
@_spi(TempoInternals) import TempoSupport

/// Who started whom, for the clocks, schedulers and timelines made outside any task that wait
/// for their test (see ``LineageState``): the storage, one lock around the state.
///
/// While one of them is watching (from its creation until it goes away), the runtime
/// hooks are installed and every job that no test executor takes leaves through ``relay(_:)``:
/// it runs on a system thread as the global executor would run it, and is counted until it has
/// run. The first advance opens an executor for the advancing task, which adopts the tasks that
/// task started and waits for their jobs still in flight (``adopt(descendantsOf:by:)``).
@available(TempoTestExecutor 1.0, *)
enum TaskLineage {
  private static let lock = Lock(rank: .taskLineage)
  // Invariant: `state` and `watchers` are read and written only under `lock`. An executor's
  // lock and the hooks' lock may be taken under this one (to count and remember adopted tasks
  // in the same step), never the other way round (`Lock.Rank`, checked in Tempo's tests).
  @exclusivity(unchecked) nonisolated(unsafe) private static var state =
    LineageState<TestExecutor>()
  @exclusivity(unchecked) nonisolated(unsafe) private static var watchers = 0

  /// A clock, scheduler or timeline made outside any task starts watching for its test;
  /// returns how many tasks had been seen (``LineageState/made``), to find its test's task by.
  static func watch() -> Int {
    // The hooks are installed in the same step: done after unlocking, a watch and an unwatch
    // on two threads could reach the hooks in the other order and leave them out while a
    // clock watches.
    lock.withLock {
      watchers += 1
      if watchers == 1 { RuntimeHooks.watch() }
      return state.made
    }
  }

  /// It stops watching (it went away).
  static func unwatch() {
    lock.withLock {
      watchers -= 1
      guard watchers == 0 else { return }
      state.removeUnadopted()
      RuntimeHooks.unwatch()
    }
  }

  /// Sends `job`, which no test executor took, on its way while anyone watches, counting it for
  /// its task until it has run; false if nobody watches (or the job is no task's and no task
  /// enqueued it), and the caller sends it on as before.
  static func relay(_ job: UnownedJob) -> Bool {
    guard let counted = leaves(job) else { return false }
    DispatchQueue.global(qos: DispatchQoS.QoSClass(job.priority)).async {
      // Marked as running its task's job (for a job of no task, the task it counts for: what
      // an actor's processing job runs was started by that task, and what it starts is known
      // as that task's).
      RunningJob.running(nil, task: counted.task.address) {
        job.runSynchronously(on: OutsideExecutor.shared.asUnownedTaskExecutor())
      }
      finished(counted)
    }
    return true
  }

  /// Whether the current task was seen while watching, and started by no task (see
  /// ``LineageState/isStartedOutsideAnyTask(_:)``); false when nobody watches.
  static func currentTaskIsStartedOutsideAnyTask() -> Bool {
    guard let current = TestExecutor.currentTaskPointer else { return false }
    let task = TaskRef(current)
    return lock.withLock { watchers > 0 && state.isStartedOutsideAnyTask(task) }
  }

  /// Runs `job` on a system thread as the global executor would, with no test executor as its
  /// task executor.
  static func runOnSystemThread(_ job: UnownedJob) {
    DispatchQueue.global(qos: DispatchQoS.QoSClass(job.priority)).async {
      job.runSynchronously(on: genericExecutor)
    }
  }

  /// Counts `job` as leaving for outside any test executor (see ``relay(_:)``); nil if nobody
  /// watches or it counts for no task. Call ``finished(_:)`` with the answer when it has run.
  static func leaves(_ job: UnownedJob) -> LineageState<TestExecutor>.OutsideJob? {
    let pointer = unsafeBitCast(job, to: UnsafeRawPointer.self)
    let task = JobIdentity.isTask(pointer) ? TaskRef(pointer) : nil
    // As for routing: the task the thread runs, even where the runtime has let go of it.
    let current = (TestExecutor.currentTaskPointer ?? RunningJob.current.task).map(TaskRef.init)
    return lock.withLock { () -> LineageState<TestExecutor>.OutsideJob? in
      guard watchers > 0 || (task ?? current).flatMap(state.adopter(of:)) != nil,
        let counted = state.leaves(task: task, current: current)
      else { return nil }
      // Usually an adopted task's jobs go to its executor; one that did not (it was being
      // adopted meanwhile) is counted there, unless the executor refuses it (closed, or the
      // task is waiting for the executor's work to go quiet).
      if let adopter = state.adopter(of: counted.task) {
        if adopter.countOutsideJob(of: counted.task.address) { state.count(counted) }
        if counted.isNewlyAdopted { RuntimeHooks.note(counted.task, memberOf: adopter) }
      }
      return counted
    }
  }

  /// A job that ``leaves(_:)`` counted for `task` has run.
  static func finished(_ job: LineageState<TestExecutor>.OutsideJob) {
    let adopter = lock.withLock { state.finished(job) }
    adopter?.outsideJobFinished()
  }

  /// The task of the test `task` belongs to, for a clock made when `clockMade` tasks had been
  /// seen (``LineageState/testTask(of:clockMade:)``), or `task` if the lineage does not tell.
  static func testTask(of task: TaskRef, clockMade: Int) -> TaskRef {
    lock.withLock { state.testTask(of: task, clockMade: clockMade) } ?? task
  }

  /// `executor`, opened for `root`, adopts the tasks `root` started while watched, remembers
  /// them as its test's, and counts their jobs in flight (and `root`'s own, if `countingRoot`).
  static func adopt(
    descendantsOf root: TaskRef, by executor: TestExecutor, countingRoot: Bool = false
  ) {
    lock.withLock {
      let (tasks, inFlight) = state.adopt(
        descendantsOf: root, by: executor, countingRoot: countingRoot)
      // In the same step, so that no job of theirs passes between: from here on their jobs go
      // to the executor, and those in flight count there until they have run.
      if inFlight > 0 { executor.addOutsideJobs(inFlight) }
      for task in tasks { RuntimeHooks.note(task, memberOf: executor) }
    }
  }

  /// `executor` has closed: its adopted tasks count for nobody any more.
  static func forget(_ executor: TestExecutor) {
    let forgotten = lock.withLock { state.forget(executor) }
    // The executor is released after unlocking.
    withExtendedLifetime(forgotten) {}
  }

  /// The runtime's generic executor, as `swift_job_run` takes it (a null identity): a job run on
  /// it runs as the global executor runs its jobs, with no executor of Tempo's current.
  static let genericExecutor = unsafeBitCast(
    (0 as UInt, 0 as UInt), to: UnownedSerialExecutor.self)
}

/// The task executor of the jobs ``TaskLineage`` relays. A job run on the runtime's generic
/// executor would send a `Task.yield()` straight to the platform's global executor, past the
/// hooks, and the task would go on unseen; run on this one, it comes back through
/// `swift_task_enqueueGlobal`, and so through the hooks, like every other job.
///
/// One instance, alive as long as the process: the runtime holds task executors unowned.
@available(TempoTestExecutor 1.0, *)
final class OutsideExecutor: TaskExecutor {
  static let shared = OutsideExecutor()

  private init() {}

  func enqueue(_ job: consuming ExecutorJob) {
    enqueueGlobal(UnownedJob(job))
  }
}

/// The runtime's entry to the global executor, which calls `swift_task_enqueueGlobal_hook`.
@_silgen_name("swift_task_enqueueGlobal")
private func enqueueGlobal(_ job: UnownedJob)

extension TaskRef {
  /// The task at `address`, a live task.
  init(_ address: UnsafeRawPointer) {
    self.init(address: address, id: JobIdentity.taskID(address))
  }
}

extension DispatchQoS.QoSClass {
  /// The system queue the global executor would use for a job of `priority`.
  init(_ priority: JobPriority) {
    switch priority.rawValue {
    case 33...: self = .userInteractive
    case 25..<33: self = .userInitiated
    case 21..<25: self = .default
    case 17..<21: self = .utility
    case 1..<17: self = .background
    default: self = .default
    }
  }
}
