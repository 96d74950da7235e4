/// The lineage's rules in the registry's state: clocks made outside any task watch for their
/// test, and jobs that leave for outside any executor meanwhile are counted for their tasks
/// until an executor adopts them (``LineageState``). Pure, like the rest of the state.
///
/// ```swift
/// var registry = TestRegistryState()
/// _ = registry.watch()
/// let (job, adopter) = registry.leaves(task: child, current: test)!
/// ```
extension TestRegistryState {
  // MARK: Watching

  /// A clock, scheduler or timeline made outside any task starts watching for its test.
  /// Answers what the hooks need, and how many tasks the lineage had seen
  /// (``LineageState/made``), to find its test's task by.
  package mutating func watch() -> (hooks: Hooks, made: Int) {
    let hooks: Hooks = needsHooks ? .unchanged : .install
    watchers += 1
    return (hooks, lineage.made)
  }

  /// It stops watching. When nobody watches any more, the tasks nobody adopted are forgotten;
  /// answers the tasks the lineage retained, to release after unlocking.
  package mutating func unwatch() -> (hooks: Hooks, released: [UnsafeRawPointer]) {
    precondition(watchers > 0, "the test registry: a watch ended that never began")
    watchers -= 1
    guard watchers == 0 else { return (.unchanged, []) }
    let released = lineage.removeUnadopted()
    return (needsHooks ? .unchanged : .restore, released)
  }

  // MARK: Jobs leaving

  /// A job leaves for outside any test executor (``LineageState/leaves(task:current:retainable:)``), while
  /// anyone watches or its task was adopted. Answers how it counts, and the adopter that counts
  /// it as its test's work: the caller asks that executor (whose lock ranks after this one's)
  /// and then calls ``countedOutside(_:by:)``.
  /// `retainable` as for ``LineageState/leaves(task:current:retainable:)``: the caller retains
  /// the task if the answer's job says so.
  package mutating func leaves(
    task: TaskRef?, current: TaskRef?, retainable: Bool = false
  ) -> (job: LineageState.OutsideJob, adopter: Executor?)? {
    var isAdopted = false
    if let owner = task ?? current { isAdopted = lineage.adopter(of: owner) != nil }
    guard watchers > 0 || isAdopted,
      let job = lineage.leaves(task: task, current: current, retainable: retainable)
    else { return nil }
    return (job, lineage.adopter(of: job.task))
  }

  /// Lets go of the lineage's retains of tasks that have ended, if enough are held
  /// (``LineageState/releaseEnded(isComplete:)``); answers them, to release after unlocking.
  package mutating func releaseEndedTasks(
    isComplete: (UnsafeRawPointer) -> Bool
  ) -> [UnsafeRawPointer] {
    guard lineage.needsReleasingEnded else { return [] }
    return lineage.releaseEnded(isComplete: isComplete)
  }

  /// The adopter of `job`'s task counts it (`counts`), and remembers a task newly adopted with
  /// its creator as its test's. Answers the member entry replaced, to release after unlocking.
  package mutating func countedOutside(
    _ job: LineageState.OutsideJob, by adopter: Executor, counts: Bool
  ) -> Member? {
    if counts { lineage.count(job) }
    return job.isNewlyAdopted ? note(job.task, memberOf: adopter, watches: false).replaced : nil
  }

  /// A job that ``leaves(task:current:retainable:)`` counted has run; answers the executor that counted it,
  /// which must count it as finished too.
  package mutating func finished(_ job: LineageState.OutsideJob) -> Executor? {
    lineage.finished(job)
  }

  /// `executor`, opened for `root`, adopts the tasks `root` started while watched and remembers
  /// them as its test's (``LineageState/adopt(descendantsOf:by:countingRoot:)``): answers how
  /// many of their jobs are in flight, for the executor to count; the tasks whose retains it
  /// takes over, to watch (the others it met by name only); and what to release after
  /// unlocking: the member entries replaced, and the lineage's retains it no longer needs.
  package mutating func adopt(
    descendantsOf root: TaskRef, by executor: Executor, countingRoot: Bool
  ) -> (
    inFlight: Int, watched: [UnsafeRawPointer], metByName: Bool,
    replaced: [Member], released: [UnsafeRawPointer]
  ) {
    let adoption = lineage.adopt(descendantsOf: root, by: executor, countingRoot: countingRoot)
    let replaced = adoption.tasks.compactMap { task in
      note(task, memberOf: executor, watches: adoption.retained.contains(task.address)).replaced
    }
    return (
      adoption.inFlight, adoption.retained, adoption.retained.count < adoption.tasks.count,
      replaced, adoption.released
    )
  }

  /// Whether `task` was seen while watching, and started by no task; false when nobody
  /// watches.
  package func isStartedOutsideAnyTask(_ task: TaskRef) -> Bool {
    watchers > 0 && lineage.isStartedOutsideAnyTask(task)
  }

  /// The test's task that `task` descends from, started by no task and retained by the
  /// lineage (``LineageState/retainedTestTask(of:)``); nil when nobody watches.
  package func retainedTestTask(of task: TaskRef) -> UnsafeRawPointer? {
    watchers > 0 ? lineage.retainedTestTask(of: task) : nil
  }

  /// The task of the test `task` belongs to (``LineageState/testTask(of:clockMade:)``).
  package func testTask(of task: TaskRef, clockMade: Int) -> TaskRef? {
    lineage.testTask(of: task, clockMade: clockMade)
  }
}
