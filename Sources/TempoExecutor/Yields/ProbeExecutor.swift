import TempoRuntimeABI

/// A task executor that holds every job it is given, to run them one at a time, so that a probe
/// task can be read while it is suspended: where a task parked in `Task.yield()`, or in a system
/// sleep, resumes (``YieldResumePoint``, ``SystemSleep/resumePoints``). Where the runtime hands
/// it sleeps too (`TestExecutorStandIn+Scheduling.swift`), it holds their wake jobs in
/// ``sleeps``.
///
/// ```swift
/// let point = ProbeExecutor.resumePoint { await Task.yield() }
/// ```
@available(TempoTestExecutor 1.0, *)
final class ProbeExecutor: TaskExecutor, @unchecked Sendable {
  // Invariant: `jobs` and `sleeps` are touched only by the thread of `resumePoint(of:)`, which
  // runs every job itself: the executor is no task's preference outside it.
  var jobs: [UnownedJob] = []
  /// The wake jobs of the sleeps the runtime handed over.
  var sleeps: [UnownedJob] = []

  func enqueue(_ job: consuming ExecutorJob) { jobs.append(UnownedJob(job)) }

  /// Where a task resumes once `suspend` has suspended it on this executor; nil if nothing was
  /// held here (the runtime queued its wake-up elsewhere, and the task may already have
  /// resumed). The probe task is then cancelled and every job run, so that nothing is left
  /// behind.
  static func resumePoint(
    of suspend: @escaping @Sendable () async -> Void
  ) -> UnsafeRawPointer? {
    let executor = ProbeExecutor()
    let task = Task(executorPreference: executor) { await suspend() }
    guard executor.jobs.count == 1 else {
      executor.runAll()
      return nil
    }
    // The task's first job: it runs until `suspend` suspends it, with its wake-up held here.
    let first = executor.jobs.removeFirst()
    let pointer = unsafeBitCast(first, to: UnsafeRawPointer.self)
    first.runSynchronously(on: executor.asUnownedTaskExecutor())
    // The handle keeps the task alive.
    let held = !executor.jobs.isEmpty || !executor.sleeps.isEmpty
    let point = held && !tempo_task_is_complete(pointer) ? tempo_task_resume_function(pointer) : nil
    task.cancel()
    executor.runAll()
    withExtendedLifetime(task) {}
    return point
  }

  /// Runs what is held: the jobs (a yield's continuation, a cancelled sleeper), then the wake
  /// jobs of sleeps on no task executor (after the cancellation they only free what their
  /// sleeps kept).
  private func runAll() {
    while !jobs.isEmpty || !sleeps.isEmpty {
      if !jobs.isEmpty {
        jobs.removeFirst().runSynchronously(on: asUnownedTaskExecutor())
      } else {
        sleeps.removeFirst().runSynchronously(on: TaskLineage.genericExecutor)
      }
    }
  }
}
