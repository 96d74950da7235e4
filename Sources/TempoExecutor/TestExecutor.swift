import Dispatch
@_spi(TempoInternals) package import TempoSupport

/// Runs the work of one test, one job at a time, and knows when that work has gone quiet.
///
/// While a test executor is open, the jobs that the test's tasks make runnable — a task started
/// with `Task {}` or `Task.detached`, a child of a task group, a task resumed by a clock, a
/// stream or a continuation, a hop to an actor — are queued here instead of on the global
/// executor (see ``RuntimeHooks``), and its main-actor jobs are counted on their way through the
/// main queue (see ``MainExecutor``). So it knows whether any of them is runnable, and
/// ``settle(at:)`` waits for exactly that: nothing queued, nothing running, here or on the main
/// actor.
///
/// A job belongs to the executor when
/// - it is enqueued from a job this executor is running, here or on the main queue
///   (``RunningJob``),
/// - or from a task carrying ``current`` (a `withTestExecutor` scope: task-locals are inherited),
/// - or from a task the executor has met, or it is such a task: the task that opened the
///   executor, every task that has had a job here, and every task that slept on a test clock of
///   this test. (The runtime enqueues a task that leaves an actor after the task has stopped
///   being current, so only its identity tells.)
///
/// A task that is older than the executor joins it only when the executor has met it, or an
/// advancing clock resumes it: the task of the test runner, resumed when the test's task ends,
/// stays the runner's (``admits(task:)``). Tasks are known by address and ID, so a task of
/// another test that reuses the memory of one of this test's ended tasks is not taken for it.
///
/// Nothing here owns a thread. A clock or scheduler that is advancing runs the jobs its actions
/// release on its own thread (``runAndDrain(_:)``); any other job is run by a pump on a shared
/// system thread. Executors of tests that run in parallel are independent.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
package final class TestExecutor: TaskExecutor, @unchecked Sendable {
  // Invariant: `lock` guards `state`. Jobs are run, waiters resumed and pumps started only
  // after unlocking; `state` lets at most one job run at a time.
  private let lock = Lock()
  @exclusivity(unchecked) private var state = ExecutorQueue<UnownedJob>()

  /// How long the backstop waits before it runs a job that a draining driver has not run.
  static var backstopMilliseconds: Int { 5 }

  /// The executor of the current `withTestExecutor` scope, carried by the test's task and
  /// inherited by the tasks it starts.
  @TaskLocal package static var current: TestExecutor?

  /// How many jobs one ``settle(at:)`` lets run before it says the work does not go quiet
  /// (a task-local, so that a test can lower it for itself).
  @TaskLocal package static var jobBudget = 1_000_000

  /// Opens an executor for the current task: installs the runtime hooks while any executor is
  /// open. Call ``close()`` when the test ends.
  ///
  /// - Parameter includingMainQueueBlocks: See ``includesMainQueueBlocks``.
  package init(includingMainQueueBlocks: Bool = false) {
    state.includesMainQueueBlocks = includingMainQueueBlocks
    firstTaskID = Self.currentTaskPointer.map(JobIdentity.taskID) ?? 0
    outer = RuntimeHooks.executorThatMetCurrentTask()
    RuntimeHooks.open(self)
    Self.noteCurrentTask(in: self)
  }

  /// The ID of the task that opened the executor. Task IDs count up: a task with this ID or a
  /// later one was started after the executor opened (or is the one that opened it).
  private let firstTaskID: UInt32

  /// Whether a job of `task`, made runnable by a job this executor runs (or by its task), is
  /// this test's: the running task itself, a task started since the executor opened, a task
  /// the executor has met, or any task an advancing action resumes. An older task that only
  /// waits for one of the test's tasks (the test runner waiting for the test to end) is not:
  /// taking it would make the runner, and every test it starts next, part of this test.
  func admits(task: UnsafeRawPointer) -> Bool {
    if RunningJob.executor === self, RunningJob.isAction || RunningJob.task == task {
      return true
    }
    // Compared as a distance, so that the IDs may wrap around.
    if Int32(bitPattern: JobIdentity.taskID(task) &- firstTaskID) >= 0 { return true }
    return RuntimeHooks.executorThatMet(task: task) === self
  }

  /// The executor the opening task belonged to before (one a clock of the task opened), which
  /// takes the task back when this one closes.
  private let outer: TestExecutor?

  /// Whether ``settle(at:)`` also waits for what plain GCD blocks on the main queue start: a
  /// round trip through the main queue after the work is quiet, repeated until it finds nothing
  /// new; a task started from such a block with no other context is taken here. Off by
  /// default: main-actor jobs are counted without it. Once on, it stays on.
  package var includesMainQueueBlocks: Bool {
    get { lock.withLock { state.includesMainQueueBlocks } }
    set {
      lock.withLock { state.includesMainQueueBlocks = state.includesMainQueueBlocks || newValue }
    }
  }

  /// Whether the executor still takes jobs.
  package var isOpen: Bool { lock.withLock { !state.isClosed } }

  /// Whether a test executor's runtime hooks are installed now.
  package static var hooksAreInstalled: Bool { RuntimeHooks.areInstalled }

  /// Whether this runtime lets a test executor see jobs at all.
  package static var isSupported: Bool { RuntimeHooks.areAvailable }

  // MARK: Taking jobs

  /// Queues `job`, if this executor is open and the job is not a driver's; answers false
  /// otherwise.
  func accept(_ job: UnownedJob) -> Bool {
    let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
    let (accepted, wake) = lock.withLock { state.enqueue(job, task: task) }
    guard accepted else { return false }
    // Remembered every time, not only the first: another test may have met a task at the same
    // address since, the memory of an ended task being reused. A task that enqueues itself from
    // a job this executor runs for it (a hop, a yield) was remembered when that job came here.
    if JobIdentity.isTask(task), !isRunningJob(of: task) {
      RuntimeHooks.note(task, memberOf: self)
    }
    start(wake)
    return true
  }

  /// Counts a main-actor job of `task` that goes to the main queue; false if it is not counted
  /// (closed, or the task is a driver's).
  func acceptMainJob(task: UnsafeRawPointer) -> Bool {
    let accepted = lock.withLock { state.mainJobQueued(task: task) }
    if accepted, JobIdentity.isTask(task) { RuntimeHooks.note(task, memberOf: self) }
    return accepted
  }

  /// A counted main-actor job has run.
  func mainJobFinished() {
    let released = lock.withLock { state.mainJobFinished() }
    for (continuation, quiet) in released { continuation.resume(returning: quiet) }
  }

  /// Jobs of tasks that prefer this executor (`withTaskExecutorPreference`) are queued too.
  package func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    if !accept(job) {
      // Closed: nothing will run it here any more, so it runs where unpreferred jobs run.
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  /// Remembers the current task as one of this test's, so that its jobs come here even when
  /// the runtime enqueues them from no context. Test clocks call it when a task sleeps.
  package static func noteCurrentTask() {
    guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else {
      return
    }
    // Usually the task runs a job that its executor took, and was remembered then.
    if let running = RunningJob.executor, current == nil || current === running,
      let task = RunningJob.task, task == currentTaskPointer
    {
      return
    }
    guard let executor = RuntimeHooks.executorForCurrentContext() else { return }
    noteCurrentTask(in: executor)
  }

  /// Whether the current thread runs a job of `task` that this executor took.
  private func isRunningJob(of task: UnsafeRawPointer) -> Bool {
    RunningJob.task == task && RunningJob.executor === self
  }

  private static func noteCurrentTask(in executor: TestExecutor) {
    guard let task = currentTaskPointer,
      !executor.lock.withLock({ executor.state.isDriver(task) })
    else { return }
    RuntimeHooks.note(task, memberOf: executor)
  }

  /// The current task, as the runtime's job pointer.
  static var currentTaskPointer: UnsafeRawPointer? {
    withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UnsafeRawPointer.self) } }
  }

  // MARK: Leases

  /// A clock, scheduler or timeline holds the executor open; false if it has closed.
  func retainLease() -> Bool { lock.withLock { state.retainLease() } }

  /// A holder lets go; the last one closes the executor.
  func releaseLease() {
    guard let wake = lock.withLock({ state.releaseLease() }) else { return }
    RuntimeHooks.close(self)
    start(wake)
  }

  // MARK: Waiting for quiet

  /// Waits until no job of this test is queued or running, here or on the main actor, running
  /// jobs on the caller's thread while it can. Answers false, after reporting at `location`, if
  /// the work did not go quiet within ``jobBudget`` jobs (a task that yields or re-schedules
  /// itself forever).
  @discardableResult
  package func settle(at location: SourceLocation) async -> Bool {
    guard let task = Self.currentTaskPointer else { return true }
    beginDriving(task)
    return await settleAgain(at: location)
  }

  /// ``settle(at:)`` for a task that has settled before and not rejoined since: a drive
  /// settles once before its first action and again after each, and the task is a driver
  /// already.
  @discardableResult
  package func settleAgain(at location: SourceLocation) async -> Bool {
    let giveUpAt = lock.withLock { state.beginDraining() } + Self.jobBudget
    var isDraining = true
    while true {
      let quiet = await quietHere(giveUpAt: giveUpAt, isDraining: isDraining)
      isDraining = false
      guard quiet else {
        location.report(
          """
          The work started in this test did not go quiet after \(Self.jobBudget) jobs, so the \
          clock or scheduler went on without waiting for it. A task that yields or \
          re-schedules itself in a loop never lets the test executor finish.
          """
        )
        return false
      }
      guard includesMainQueueBlocks else { return true }
      // Plain GCD blocks on the main queue are not jobs: a block queued after them has run
      // when they have. Start over if they made anything runnable here.
      let acceptedBefore = lock.withLock { state.accepted }
      await passThroughMainQueue()
      if lock.withLock({ state.accepted == acceptedBefore && state.isQuiet }) { return true }
    }
  }

  /// Ends what ``settle(at:)`` began: the current task goes back to running its jobs here, like
  /// every other task of the test. It continues here at once, so that an actor it shares with
  /// the test's other tasks is only ever let go on this executor: a thread outside it that
  /// lets go of such an actor late would release their work where no one waits for it.
  package func rejoin() async {
    guard let task = Self.currentTaskPointer else { return }
    lock.withLock { state.endDriving(task) }
    RuntimeHooks.note(task, memberOf: self)
    // `Task.yield()` may return without leaving the thread, and so may a continuation
    // resumed before the task has finished suspending; a switch to a task executor always
    // enqueues on it.
    if isOpen { await withTaskExecutorPreference(self) {} }
  }

  /// Runs `action`, an action of a clock or scheduler that is advancing, then on the same
  /// thread the jobs it made runnable, for as long as it can. Everything the action enqueues
  /// belongs to this test. What this thread cannot run (a job already running, a spent budget)
  /// goes to a pump on the way out.
  package func runAndDrain(_ action: () -> Void) {
    let giveUpAt = lock.withLock { state.beginDraining() } + Self.jobBudget
    RunningJob.running(self, task: nil, isAction: true, action)
    drainOnCallersThread(giveUpAt: giveUpAt)
    start(lock.withLock { state.endDraining() })
  }

  /// The current task starts waiting for quiet: while it waits, its own jobs never run here
  /// (it would be waiting for itself), and a main-actor job of it that is running now does not
  /// count as the test's work.
  private func beginDriving(_ task: UnsafeRawPointer) {
    let uncount = MainExecutor.stopCountingRunningJob(of: task, for: self)
    lock.withLock {
      state.beginDriving(task)
      if uncount { state.uncountRunningMainJob() }
    }
  }

  /// Waits until nothing is queued or running, or the budget is spent (false). `isDraining`:
  /// the caller has begun draining already.
  private func quietHere(giveUpAt: Int, isDraining: Bool) async -> Bool {
    if !isDraining { _ = lock.withLock { state.beginDraining() } }
    drainOnCallersThread(giveUpAt: giveUpAt)
    let (answer, wake) = lock.withLock {
      (state.quietAnswer(giveUpAt: giveUpAt), state.endDraining())
    }
    start(wake)
    // Usually quiet already: answer without suspending, since a continuation resumed at once
    // still sends the caller through the global executor's queue.
    if let answer { return answer }
    return await withUnsafeContinuation { continuation in
      let answer = lock.withLock {
        state.wait(ExecutorQueue<UnownedJob>.Waiter(continuation: continuation, giveUpAt: giveUpAt))
      }
      if let answer { continuation.resume(returning: answer) }
    }
  }

  /// Returns once everything queued on the main queue before the call has run.
  private func passThroughMainQueue() async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      DispatchQueue.main.async { continuation.resume() }
    }
  }

  // MARK: Running jobs

  /// Runs queued jobs on the caller's thread while it may.
  private func drainOnCallersThread(giveUpAt: Int) {
    var next = lock.withLock { state.takeForDriver(giveUpAt: giveUpAt) }
    while let job = next {
      run(job)
      let (released, wake, taken) = lock.withLock {
        state.finishJobAndTakeForDriver(giveUpAt: giveUpAt)
      }
      for (continuation, quiet) in released { continuation.resume(returning: quiet) }
      start(wake)
      next = taken
    }
  }

  /// Runs queued jobs on a shared system thread until there are none, or another thread is
  /// running one (it looks at the queue when it finishes).
  private func pump() {
    var next = lock.withLock { state.takeForPump() }
    while let job = next {
      run(job)
      let (released, taken) = lock.withLock { state.finishJobAndTakeForPump() }
      for (continuation, quiet) in released { continuation.resume(returning: quiet) }
      next = taken
    }
  }

  private func start(_ wake: ExecutorQueue<UnownedJob>.Wake) {
    switch wake {
    case .none:
      break
    case .pump:
      DispatchQueue.global().async { self.pump() }
    case .backstop:
      DispatchQueue.global().asyncAfter(
        deadline: .now() + .milliseconds(Self.backstopMilliseconds)
      ) {
        self.lock.withLock { self.state.backstopFired() }
        self.pump()
      }
    }
  }

  /// Runs `job` with this executor as its task executor. (Run on the runtime's generic executor
  /// instead, a job would skip the switch its next nonisolated call makes here, but
  /// `Task.yield()` would then enqueue on the platform's global executor directly, unseen.)
  private func run(_ job: UnownedJob) {
    let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
    RunningJob.running(self, task: JobIdentity.isTask(task) ? task : nil) {
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  /// Closes the executor: it takes no more jobs (later ones go to the global executor) and
  /// runs those still queued.
  package func close() {
    let wake = lock.withLock { state.close() }
    RuntimeHooks.close(self)
    if let outer, outer.isOpen { Self.noteCurrentTask(in: outer) }
    start(wake)
  }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension TestExecutor {
  /// The open executor the current task belongs to, if any (for tests and diagnostics).
  package static var ofCurrentTask: TestExecutor? {
    RuntimeHooks.executorForCurrentContext()
  }
}
