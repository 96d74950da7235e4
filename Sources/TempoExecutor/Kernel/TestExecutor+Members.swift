import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

// Which tasks are a test's: the tasks an executor remembers, and the ones it admits when its
// work wakes them.

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Whether a job of `task`, made runnable by a job this executor runs (or by its task), is
  /// this test's: the running task itself, a task started since the executor opened, a task
  /// the executor has met, or any task an advancing action resumes. An older task that only
  /// waits for one of the test's tasks (the test runner waiting for the test to end) is not:
  /// taking it would make the runner, and every test it starts next, part of this test.
  func admits(task: UnsafeRawPointer) -> Bool {
    let running = RunningJob.current
    if running.isOf(self), running.isAction || running.isJob(of: task) { return true }
    // Compared as a distance, so that the IDs may wrap around.
    if Int32(bitPattern: JobIdentity.taskID(task) &- firstTaskID) >= 0 { return true }
    return TestRegistry.executorThatMet(TaskRef(task)) === self
  }

  /// Remembers the current task as one of this test's, so that its jobs come here even when
  /// the runtime enqueues them from no context. Test clocks call it when a task sleeps.
  package static func noteCurrentTask() {
    // Usually the task runs a job that its executor took, and was remembered then.
    let running = RunningJob.current
    if let executor = running.executor?.takeUnretainedValue(),
      current == nil || current === executor,
      let task = running.task, task == currentTaskPointer
    {
      return
    }
    // A sleep needs the test's executor: a deferred one opens.
    guard let executor = ofCurrentTest else { return }
    noteCurrentTask(in: executor)
  }

  /// Whether the current thread runs a job of `task` that this executor took.
  func isRunningJob(of task: UnsafeRawPointer) -> Bool {
    let running = RunningJob.current
    return running.isJob(of: task) && running.isOf(self)
  }

  /// Remembers the current task as one of `executor`'s, unless it is waiting for that
  /// executor's work to go quiet.
  static func noteCurrentTask(in executor: TestExecutor) {
    guard let task = currentTaskPointer,
      !executor.lock.withLock({ executor.state.isDriver(task) })
    else { return }
    executor.noteMember(TaskRef(task))
  }

  /// The current task, as the runtime's job pointer.
  static var currentTaskPointer: UnsafeRawPointer? {
    // The runtime's own read, rather than `withUnsafeCurrentTask`, whose generic closure a
    // debug build calls as such, for every job.
    tempo_current_task()
  }
}
