import Dispatch
import TempoRuntimeABI

/// The jobs that leave for outside any test executor while a clock, scheduler or timeline made
/// outside any task waits for its test (who started whom is ``LineageState``, kept in
/// ``TestRegistry``).
///
/// While one of them is watching (from its creation until it goes away), the runtime
/// hooks are installed and every job that no test executor takes leaves through ``relay(_:)``:
/// it runs on a system thread as the global executor would run it, and is counted until it has
/// run. The first advance opens an executor for the advancing task, which adopts the tasks that
/// task started and waits for their jobs still in flight (``TestRegistry/adopt(descendantsOf:by:countingRoot:)``).
@available(TempoTestExecutor 1.0, *)
enum TaskLineage {
  /// Sends `job`, which no test executor took, on its way while anyone watches, counting it for
  /// its task until it has run; false if nobody watches (or the job is no task's and no task
  /// enqueued it), and the caller sends it on as before.
  static func relay(_ job: UnownedJob) -> Bool {
    guard let counted = TestRegistry.leaves(job) else { return false }
    let yielder = possibleYielder(of: counted)
    DispatchQueue.global(qos: DispatchQoS.QoSClass(job.priority)).async {
      // Marked as running its task's job (for a job of no task, the task it counts for: what
      // an actor's processing job runs was started by that task, and what it starts is known
      // as that task's).
      RunningJob.running(nil, task: counted.task.address) {
        job.runSynchronously(on: OutsideExecutor.shared.asUnownedTaskExecutor())
      }
      guard let yielder else { return TestRegistry.finished(counted) }
      hold(
        whileParked: { TestExecutor.isParkedInYield(yielder.address) },
        every: Guesses.lineageFirstLookMicroseconds, on: RealTime.system
      ) {
        TestRegistry.finished(counted)
        tempo_task_release(yielder.address)
      }
    }
    return true
  }

  /// The task to watch after `job` has run, retained: for an actor's processing job enqueued by
  /// the current task, that task. The actor's drain may run it, and it may leave the actor for
  /// nonisolated code with no task executor and yield there, unseen (see
  /// ``YieldResumePoint``): until it is back, the job still counts as its work in flight.
  private static func possibleYielder(
    of job: LineageState.OutsideJob
  ) -> TaskRef? {
    guard !job.isTasks, YieldResumePoint.function != nil,
      TestExecutor.currentTaskPointer == job.task.address,
      !JobIdentity.isAsyncLetChild(job.task.address)
    else { return nil }
    tempo_task_retain(job.task.address)
    return job.task
  }

  /// Calls `done` once `isParked` (a relayed job's task parked in a yield) reads false, looking
  /// `microseconds` from now on `time` and then at doubling intervals, for about 20 ms at most
  /// (the look at ``Guesses/lineageHoldCapMicroseconds`` is the last). Short and sparse: while
  /// a clock watches, every job no executor takes is relayed, the processing jobs of every task
  /// of the process among them, and a task that yields in a loop reads as parked at almost
  /// every look. (Looks every millisecond for a second each flooded the system's queues and
  /// stalled a whole test run.)
  static func hold(
    whileParked isParked: @escaping @Sendable () -> Bool, every microseconds: Int,
    on time: any WallTime, then done: @escaping @Sendable () -> Void
  ) {
    guard isParked(), microseconds <= Guesses.lineageHoldCapMicroseconds else { return done() }
    time.after(nanoseconds: UInt64(microseconds) * 1_000, on: .global()) {
      hold(whileParked: isParked, every: microseconds * 2, on: time, then: done)
    }
  }

  /// Runs `job` on a system thread as the global executor would, with no test executor as its
  /// task executor.
  static func runOnSystemThread(_ job: UnownedJob) {
    DispatchQueue.global(qos: DispatchQoS.QoSClass(job.priority)).async {
      job.runSynchronously(on: genericExecutor)
    }
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

/// The runtime's lookup of a task-local value, what `TaskLocal.get()` calls: the address of the
/// value bound for `key` (a `TaskLocal`'s address) in the current task, or on the current thread
/// outside a task, or nil where none is bound.
@_silgen_name("swift_task_localValueGet")
func taskLocalValue(forKey key: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?

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
