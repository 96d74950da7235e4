/// Which open test executor a job belongs to: the one place that writes the order in which
/// executors are offered a job, apart from the hooks that ask (``RuntimeHooks``,
/// ``MainExecutor``, ``TestExecutorStandIn``) and from the executors that take it.
///
/// An executor is offered the job in this order, and the first that takes it has it:
///
/// 0. the executor the caller names: for a job that reaches a task executor Tempo shows the
///    runtime, the test executor that task executor stands for (the one whose job the
///    enqueuing thread runs, or, for a task going back to its executor, the one that met it);
/// 1. the one of the current task's `withTestExecutor` scope: a task inside a scope belongs to
///    it even while it runs a job that an executor of its own clock counted;
/// 2. the one whose job the enqueuing thread runs;
/// 3. the one that has met the current task;
/// 4. the one that has met the job's own task, and no other after it: a known task is its
///    test's and no one else's (refused there, because it waits for its work to go quiet, it
///    goes where it was going);
/// 5. for a plain GCD block on the main queue (no scope, no job, no task), each executor that
///    asked for such blocks.
///
/// Steps 2, 3 and 5 offer a task's job only to an executor that admits its task (see
/// `TestExecutor.admits(task:)`): a task older than the executor that it has never met is not
/// its work because one of its tasks woke it. An executor offered the job once (or passed over
/// for not admitting its task) is not offered it again.
///
/// Each input is read only when its step comes: most jobs come from a job of their test, and
/// are taken at the first or second step, before the current task or the registry is read.
/// The scope is compared by address with the running executor first, and read (retained) only
/// when it is another: a contended reference count on the path of every job in a scope.
///
/// `@_transparent`, so that a debug build inlines it into its caller, specialised, as an
/// optimised build would. Called, it cost 2-5 % of whole debug tests
/// (`Benchmarks/Logs/routing-written-once-2026-11-29.md`), which is why the order was once
/// written out again in its two hottest callers. Its one caller,
/// `TestRegistry.firstCandidate(forJob:named:_:)`, is in this file: a debug build compiles each
/// file apart, and inlined it only from its own.
///
/// ```swift
/// let owner = Routing.firstTaker(
///   named: nil, readScopedAddress: { nil }, readScoped: { nil }, readRunning: { executor },
///   taskJob: task, currentTask: { nil }, members: { _ in (nil, nil) },
///   isOnMainQueue: { false }, mainQueueBlockTakers: { [] },
///   admits: { $0.admits(task: $1) }, takes: { $0.accept(job) })
/// ```
///
/// Generic over the executor so that its table of tests can use stand-ins.
enum Routing {
  /// The executor that takes the job, or nil if none does (the job goes where it was going).
  ///
  /// - Parameters:
  ///   - named: The executor offered first (step 0), if any.
  ///   - readScopedAddress: The address of the executor of the current task's `withTestExecutor`
  ///     scope, not retained, if it is open.
  ///   - readScoped: That executor, retained: nil if it has closed since.
  ///   - readRunning: The executor whose job (or advancing action) the enqueuing thread runs.
  ///   - taskJob: The job, if it is a task's rather than an actor's processing job or a
  ///     `Task.yield()` continuation: only a task's job is checked for admission.
  ///   - currentTask: The current task, or the task whose job the thread runs.
  ///   - members: The executors that have met the current task and the job's task.
  ///   - isOnMainQueue: Whether the caller runs on the main queue.
  ///   - mainQueueBlockTakers: The open executors that asked for main-queue blocks.
  ///   - admits: Whether an executor admits the job's task.
  ///   - takes: Offers the job; true if the executor took it.
  @_transparent
  static func firstTaker<Executor: AnyObject>(
    named: Executor?,
    readScopedAddress: () -> UnsafeRawPointer?,
    readScoped: () -> Executor?,
    readRunning: () -> Executor?,
    taskJob: UnsafeRawPointer?,
    currentTask: () -> UnsafeRawPointer?,
    members: (_ current: UnsafeRawPointer?) -> (byCurrent: Executor?, byJob: Executor?),
    isOnMainQueue: () -> Bool,
    mainQueueBlockTakers: () -> [Executor],
    admits: (Executor, _ task: UnsafeRawPointer) -> Bool,
    takes: (Executor) -> Bool
  ) -> Executor? {
    // Identities are compared as addresses, with no optional `===`: a debug build calls that,
    // retaining and releasing both sides.
    if let named, takes(named) { return named }
    let namedAddress = address(of: named)
    let running = readRunning()
    let runningAddress = address(of: running)
    var scoped: Executor?
    var scopedAddress = readScopedAddress()
    if scopedAddress != nil {
      scoped = scopedAddress == runningAddress ? running : readScoped()
      scopedAddress = address(of: scoped)
      if let scoped, scopedAddress != namedAddress, takes(scoped) { return scoped }
    }
    if let running, runningAddress != namedAddress, runningAddress != scopedAddress,
      taskJob == nil || admits(running, taskJob!), takes(running)
    {
      return running
    }
    let current = currentTask()
    let (byCurrent, byJob) = members(current)
    let byCurrentAddress = address(of: byCurrent)
    if let byCurrent, byCurrentAddress != namedAddress, byCurrentAddress != scopedAddress,
      byCurrentAddress != runningAddress, taskJob == nil || admits(byCurrent, taskJob!),
      takes(byCurrent)
    {
      return byCurrent
    }
    if let byJob {
      let byJobAddress = address(of: byJob)
      let wasOffered =
        byJobAddress == namedAddress || byJobAddress == scopedAddress
        || byJobAddress == runningAddress || byJobAddress == byCurrentAddress
      return !wasOffered && takes(byJob) ? byJob : nil
    }
    guard running == nil, scoped == nil, current == nil, isOnMainQueue() else { return nil }
    for executor in mainQueueBlockTakers()
    where address(of: executor) != namedAddress && (taskJob == nil || admits(executor, taskJob!))
      && takes(executor)
    {
      return executor
    }
    return nil
  }

  /// `executor`'s address, not retained; nil for none.
  @_transparent
  static func address<Executor: AnyObject>(of executor: Executor?) -> UnsafeRawPointer? {
    guard let executor else { return nil }
    return UnsafeRawPointer(Unmanaged.passUnretained(executor).toOpaque())
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestRegistry {
  /// The open executor of the current task, if it is one of a test's: the one of its
  /// `withTestExecutor` scope, the one whose job the thread is running, or the one that has
  /// met it.
  static func executorForCurrentContext() -> TestExecutor? {
    firstCandidate(forJob: nil) { _ in true }
  }

  /// Offers a job to the open executors it may belong to, most specific first, and answers the
  /// first that `takes` it: the one function that decides where a job arriving from the
  /// runtime goes (``Routing`` has the order and its reasons). An executor may have closed
  /// meanwhile; it refuses the job then, and the next is asked.
  ///
  /// - Parameter named: The executor offered first, if any (step 0 of ``Routing``).
  static func firstCandidate(
    forJob job: UnsafeRawPointer?, named: TestExecutor? = nil, _ takes: (TestExecutor) -> Bool
  ) -> TestExecutor? {
    // No `Optional.map` or `flatMap` here: a debug build calls them generically, for every job.
    var taskJob: UnsafeRawPointer?
    if let job, JobIdentity.isTask(job) { taskJob = job }
    return Routing.firstTaker(
      named: named,
      readScopedAddress: { TestExecutor.boundAddressIfAnyIsOpen },
      // Should the last bound executor have closed since its address was read, this reads
      // nil, the route of a job with no scope, which is the same: a closed executor takes no
      // job.
      readScoped: { TestExecutor.currentIfAnyBoundIsOpen },
      readRunning: { RunningJob.executor },
      taskJob: taskJob,
      // The runtime lets go of a task before it enqueues what the task leaves for (an actor's
      // processing job); the thread still runs the task's job then.
      currentTask: { TestExecutor.currentTaskPointer ?? RunningJob.task },
      members: { current in
        members(
          current: current, job: taskJob, opensDeferred: opensDeferred(job, isTask: taskJob != nil))
      },
      isOnMainQueue: { RuntimeHooks.isOnMainQueue },
      mainQueueBlockTakers: { openExecutors.filter { $0.includesMainQueueBlocks } },
      admits: { $0.admits(task: $1) },
      takes: takes)
  }

  /// Whether routing `job` may open a deferred executor (``members(current:job:opensDeferred:)``):
  /// any job but a yield's continuation job, which only resumes the current task.
  private static func opensDeferred(_ job: UnsafeRawPointer?, isTask: Bool) -> Bool {
    guard let job else { return false }
    return isTask || !JobIdentity.isContinuation(job)
  }
}
