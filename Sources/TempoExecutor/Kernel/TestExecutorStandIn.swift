/// The task executors the runtime is shown in place of test executors.
///
/// The runtime keeps a task executor unowned wherever it keeps one: in the tracking of a job it
/// runs, in a task's executor preference, and in the preference each child task inherits from
/// its parent for the whole of its life. A ``TestExecutor`` goes away when its test ends, so it
/// is never shown: the runtime only ever sees these two objects, which live as long as the
/// process, and each routes what reaches it to the test executor it belongs to, or, when that
/// one has closed, to a system thread. A job that reaches a test executor that has gone away
/// then cannot exist, however long the runtime holds on.
///
/// There are two, so that a task running a job of one test executor that goes back to another
/// (``TestExecutor/rejoin()``) is seen by the runtime as switching task executors, and is
/// enqueued.
@available(TempoTestExecutor 1.0, *)
final class TestExecutorStandIn: TaskExecutor {
  /// The task executor of every job a test executor runs: what reaches it is enqueued from
  /// such a job (a `Task.yield()`'s continuation, say), and is that executor's.
  static let running = TestExecutorStandIn(prefersTheJobsOwner: false)
  /// The executor preference a task takes to go back to its test executor: what reaches it is
  /// the job of a task that executor has met.
  static let rejoining = TestExecutorStandIn(prefersTheJobsOwner: true)

  /// Whether the test executor that met the job's task is offered it first.
  private let prefersTheJobsOwner: Bool

  private init(prefersTheJobsOwner: Bool) {
    self.prefersTheJobsOwner = prefersTheJobsOwner
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let pointer = unsafeBitCast(job, to: UnsafeRawPointer.self)
    // The routing answers executors it holds strongly: each is alive while it is offered the
    // job.
    // A yield of the task whose job the thread runs may go on in that job (see
    // `RunningJob.handOff`).
    if !prefersTheJobsOwner, RunningJob.handOff(pointer) { return }
    // Step 0 of the order `Routing` writes: the executor this task executor stands for.
    let owner =
      prefersTheJobsOwner && JobIdentity.isTask(pointer)
      ? TestRegistry.executorThatMet(TaskRef(pointer)) : RunningJob.executor
    if TestRegistry.firstCandidate(forJob: pointer, named: owner, { $0.accept(job) }) != nil {
      return
    }
    // Closed: nothing will run it there any more, so it runs where unpreferred jobs run, on
    // another thread and with no task executor (run here, inside the runtime's enqueue, it
    // would go on running the test's code as if its executor were still open).
    TaskLineage.runOnSystemThread(job)
  }
}
