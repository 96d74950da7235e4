/// Which open test executor a job belongs to: the decision alone, apart from the hooks that ask
/// (``RuntimeHooks``, ``MainExecutor``) and from the executors that take the job.
///
/// An executor is offered the job in this order, and the first that takes it has it:
///
/// 0. for a job that reaches a task executor Tempo shows the runtime, the test executor it
///    names: the one whose job the enqueuing thread runs, or, for a task going back to its
///    executor, the one that met it (`TestExecutorStandIn.enqueue` offers it, then routes
///    the job here if it refused);
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
/// The second, third and fifth are offered a task's job only if they admit its task (see
/// `TestExecutor.admits(task:)`): a task older than the executor that it has never met is not
/// its work because one of its tasks woke it. An executor offered the job once (or passed over
/// for not admitting its task) is not offered it again.
///
/// The order is written here. Two callers on the path of every job write its first offer out
/// in place, since a debug build would run this route as written: step 0 in
/// `TestExecutorStandIn.enqueue`, and steps 1 and 2 for a job enqueued from a job of its test
/// at the top of `TestRegistry.firstCandidate(forJob:_:)`. Routing through here alone cost
/// 2-5 % of whole debug tests (`Benchmarks/Logs/routing-written-once-2026-11-29.md`).
///
/// ```swift
/// let route = Routing(scoped: nil, running: executor, isTask: true, isPlainMainQueueBlock: false)
/// let owner = route.firstTaker(
///   members: { (byCurrent: nil, byJob: nil) }, mainQueueBlockTakers: { [] },
///   admits: { $0.admits(task: task) }, takes: { $0.accept(job) })
/// ```
///
/// Generic over the executor so that its table of tests can use stand-ins.
struct Routing<Executor: AnyObject> {
  /// The executor of the current task's `withTestExecutor` scope.
  var scoped: Executor?
  /// The executor whose job (or advancing action) the enqueuing thread runs.
  var running: Executor?
  /// Whether the job is a task, rather than an actor's processing job or a `Task.yield()`
  /// continuation: only a task's job is checked for admission.
  var isTask: Bool
  /// Whether the job is enqueued from a plain GCD block on the main queue: no scope, no
  /// executor's job and no task on the thread.
  var isPlainMainQueueBlock: Bool

  /// The executor that takes the job, or nil if none does (the job goes where it was going).
  ///
  /// - Parameters:
  ///   - members: The executors that have met the current task and the job's task; asked only
  ///     if neither the scope's nor the running executor took the job.
  ///   - mainQueueBlockTakers: The open executors that asked for main-queue blocks; asked only
  ///     for a plain main-queue block whose task no executor has met.
  ///   - admits: Whether an executor admits the job's task; asked only for a task's job.
  ///   - takes: Offers the job; true if the executor took it.
  func firstTaker(
    members: () -> (byCurrent: Executor?, byJob: Executor?),
    mainQueueBlockTakers: () -> [Executor],
    admits: (Executor) -> Bool,
    takes: (Executor) -> Bool
  ) -> Executor? {
    func admitted(_ executor: Executor) -> Bool { !isTask || admits(executor) }
    if let scoped, takes(scoped) { return scoped }
    if let running, running !== scoped, admitted(running), takes(running) { return running }
    let (byCurrent, byJob) = members()
    if let byCurrent, byCurrent !== scoped, byCurrent !== running, admitted(byCurrent),
      takes(byCurrent)
    {
      return byCurrent
    }
    if let byJob {
      let wasOffered = byJob === scoped || byJob === running || byJob === byCurrent
      return !wasOffered && takes(byJob) ? byJob : nil
    }
    guard isPlainMainQueueBlock else { return nil }
    for executor in mainQueueBlockTakers() where admitted(executor) && takes(executor) {
      return executor
    }
    return nil
  }
}
