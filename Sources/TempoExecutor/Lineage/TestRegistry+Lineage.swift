import TempoRuntimeABI

/// The lineage's side of the registry: clocks made outside any task watch for their test, the
/// jobs that leave for outside any executor meanwhile are counted for their tasks, and the
/// executor the first advance opens adopts them (``LineageState``, kept in the registry's
/// state under its lock). The kernel's routing never asks for it: a job comes here only when
/// no executor took it.
///
/// ```swift
/// let made = TestRegistry.watch()            // a clock made outside any task
/// TestRegistry.adopt(descendantsOf: root, by: executor)
/// TestRegistry.unwatch()                      // it went away
/// ```
@available(TempoTestExecutor 1.0, *)
extension TestRegistry {
  /// A clock, scheduler or timeline made outside any task starts watching for its test;
  /// returns how many tasks had been seen (``LineageState/made``), to find its test's task by.
  static func watch() -> Int {
    guard RuntimeHooks.areAvailable else { return 0 }
    RuntimeHooks.prepare()
    return box.withLock { storage in
      let (hooks, made) = storage.state.watch()
      RuntimeHooks.apply(hooks)
      return made
    }
  }

  /// It stops watching (it went away).
  static func unwatch() {
    guard RuntimeHooks.areAvailable else { return }
    let released = box.withLock { storage in
      let (hooks, released) = storage.state.unwatch()
      RuntimeHooks.apply(hooks)
      return released
    }
    for task in released { tempo_task_release(task) }
  }

  /// Whether the current task was seen while watching, and started by no task (see
  /// ``LineageState/isStartedOutsideAnyTask(_:)``); false when nobody watches.
  static func currentTaskIsStartedOutsideAnyTask() -> Bool {
    guard let current = TestExecutor.currentTaskPointer else { return false }
    let task = TaskRef(current)
    return box.withLock { $0.state.isStartedOutsideAnyTask(task) }
  }

  /// The test's task that the current task descends from, if a test runner started it from a
  /// thread and the lineage keeps it (``LineageState/retainedTestTask(of:)``): retained once
  /// more for the caller, who reads its status and releases it. Nil when nobody watches.
  static func retainTestTaskOfCurrentTask() -> UnsafeRawPointer? {
    guard let current = TestExecutor.currentTaskPointer else { return nil }
    let task = TaskRef(current)
    return box.withLock { storage in
      guard let test = storage.state.retainedTestTask(of: task) else { return nil }
      // The lineage's own retain keeps it alive while the lock is held.
      tempo_task_retain(test)
      return test
    }
  }

  /// Counts `job` as leaving for outside any test executor (see ``TaskLineage/relay(_:)``); nil
  /// if nobody watches or it counts for no task. Call ``finished(_:)`` with the answer when it
  /// has run.
  static func leaves(_ job: UnownedJob) -> LineageState.OutsideJob? {
    let pointer = unsafeBitCast(job, to: UnsafeRawPointer.self)
    let task = JobIdentity.isTask(pointer) ? TaskRef(pointer) : nil
    // As for routing: the task the thread runs, even where the runtime has let go of it.
    let current = (TestExecutor.currentTaskPointer ?? RunningJob.task).map(TaskRef.init)
    // A task's own job: the task is alive, and may be kept for its adopter to watch.
    let retainable =
      task != nil && YieldResumePoint.function != nil && !JobIdentity.isAsyncLetChild(pointer)
    var ended: [UnsafeRawPointer] = []
    let (counted, replaced) = box.withLock {
      storage -> (LineageState.OutsideJob?, TestRegistryState.Member?)
      in
      guard
        let (counted, adopter) = storage.state.leaves(
          task: task, current: current, retainable: retainable)
      else { return (nil, nil) }
      // Taken in the same step as the entry that holds it (a retain runs no code).
      if counted.retainsTask {
        tempo_task_retain(pointer)
        ended = storage.state.releaseEndedTasks(isComplete: tempo_task_is_complete)
      }
      // Usually an adopted task's jobs go to its executor; one that did not (it was being
      // adopted meanwhile) is counted there, unless the executor refuses it (closed, or the
      // task is waiting for the executor's work to go quiet). Asked in the same step, under
      // the executor's own lock (ranked after this one).
      guard let adopter = testExecutor(adopter) else { return (counted, nil) }
      let counts = adopter.countOutsideJob(of: counted.task.address)
      let replaced = storage.state.countedOutside(counted, by: adopter, counts: counts)
      if replaced != nil { membershipChanged() }
      return (counted, replaced)
    }
    withExtendedLifetime(replaced) {}
    for task in ended { tempo_task_release(task) }
    return counted
  }

  /// A job that ``leaves(_:)`` counted for its task has run.
  static func finished(_ job: LineageState.OutsideJob) {
    let adopter = testExecutor(box.withLock { $0.state.finished(job) })
    adopter?.outsideJobFinished()
  }

  /// The task of the test `task` belongs to, for a clock made when `clockMade` tasks had been
  /// seen (``LineageState/testTask(of:clockMade:)``), or `task` if the lineage does not tell.
  static func testTask(of task: TaskRef, clockMade: Int) -> TaskRef {
    box.withLock { $0.state.testTask(of: task, clockMade: clockMade) } ?? task
  }

  /// `executor`, opened for `root`, adopts the tasks `root` started while watched, remembers
  /// them as its test's, and counts their jobs in flight (and `root`'s own, if `countingRoot`).
  static func adopt(
    descendantsOf root: TaskRef, by executor: TestExecutor, countingRoot: Bool = false
  ) {
    let adoption = box.withLock { storage in
      let adoption = storage.state.adopt(
        descendantsOf: root, by: executor, countingRoot: countingRoot)
      // In the same step, so that no job of theirs passes between: from here on their jobs go
      // to the executor, and those in flight count there until they have run.
      if adoption.inFlight > 0 { executor.addOutsideJobs(adoption.inFlight) }
      if !adoption.replaced.isEmpty { membershipChanged() }
      return adoption
    }
    withExtendedLifetime(adoption.replaced) {}
    for task in adoption.released { tempo_task_release(task) }
    // The tasks the lineage kept are watched from now: one may have left an actor and be
    // parked in a yield no hook saw. Those it knew by name only are watched from their next
    // processing job.
    executor.watchAdopted(adoption.watched)
    if adoption.metByName { executor.noteMembersMetByName() }
  }
}
