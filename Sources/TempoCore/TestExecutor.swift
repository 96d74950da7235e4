import Dispatch

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// Runs the work of one test, one job at a time, and knows when that work has gone quiet.
///
/// While a test executor is open, the jobs that the test's tasks make runnable — a task started
/// with `Task {}` or `Task.detached`, a child of a task group, a task resumed by a clock, a
/// stream or a continuation, a hop to an actor, a task leaving the main actor — are enqueued
/// here instead of on the global executor (see ``EnqueueHooks``). The executor runs them in the
/// order they were enqueued, on a thread of its own or on the thread of a clock that is waiting
/// for quiet. So it knows whether any of them is runnable, and ``settle(at:)`` waits for exactly
/// that: nothing queued, nothing running, and nothing left on the main queue that makes more.
///
/// A job belongs to the executor when
/// - it is enqueued from a job this executor is running (``RunningJob``),
/// - or from a task carrying ``current`` (the test's task and every task it starts: task-locals
///   are inherited),
/// - or it is a task the executor has met before (``members``): the runtime enqueues a task
///   that leaves an actor after the task has stopped being current, so only its identity tells,
/// - or it is a task leaving the main queue while this executor is open: the only way to meet
///   a main-actor task started by the test, since the runtime does not route main-actor jobs
///   through any hook (see ``passThroughMainQueue()`` for how their work is waited for).
///
/// Tasks are known by address, so a task of another test that reuses the memory of one of this
/// test's finished tasks, or leaves the main queue while this executor is open, runs here too:
/// correctly, on this executor's thread, and this test waits for it.
///
/// Test executors take turns (``Turns``): the main actor is one queue for the whole process, so
/// a main-actor task leaving it could not be told apart from another scope's.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
package final class TestExecutor: TaskExecutor, @unchecked Sendable {
  // Invariant: `condition` guards every `var` below. Jobs are run, and waiting tasks resumed,
  // only after unlocking; `isRunningJob` makes sure at most one job runs at a time.
  private let condition = Condition()
  private var jobs: [Job] = []
  private var head = 0
  private var isRunningJob = false
  private var isClosed = false
  private var jobsRun = 0
  private var accepted = 0
  private var drivers: Set<UnsafeRawPointer> = []
  /// Drivers that are running an action and will run what it makes runnable right after
  /// (``runAndDrain(_:)``): while there are any, a queued job needs no wake-up of the thread.
  private var drainers = 0
  /// The tasks that have had a job here, or slept on a test clock from this test.
  private var members: Set<UnsafeRawPointer> = []
  private var waiters: [Waiter] = []

  private struct Job {
    let job: UnownedJob
    let onMainActor: Bool
  }

  private struct Waiter {
    let continuation: UnsafeContinuation<Bool, Never>
    /// The value of `jobsRun` at which the waiter gives up.
    let giveUpAt: Int
  }

  /// How often the executor's thread looks at its queue without being woken (see `runLoop`).
  static var backstopMilliseconds: Int { 5 }

  /// The executor of the current test, carried by the test's task and inherited by the tasks it
  /// starts.
  @TaskLocal package static var current: TestExecutor?

  /// How many jobs one ``settle(at:)`` lets run before it says the work does not go quiet
  /// (a task-local, so that a test can lower it for itself).
  @TaskLocal package static var jobBudget = 1_000_000

  /// Opens an executor: installs the enqueue hooks and starts its thread. Call ``close()``
  /// when the test ends. Take a turn first (``Turns``).
  package init() {
    startThread()
    EnqueueHooks.open(self)
  }

  /// The turns that test executors take, one open at a time.
  package static let turns = Turns()

  /// Whether the executor still takes jobs.
  package var isOpen: Bool { condition.withLock { !isClosed } }

  /// Whether a test executor's enqueue hook is installed in the runtime now.
  package static var hooksAreInstalled: Bool { EnqueueHooks.areInstalled }

  /// Whether this runtime lets a test executor see jobs at all.
  package static var isSupported: Bool { EnqueueHooks.areAvailable }

  /// The executor whose jobs the current thread or task makes runnable, if any: the one whose
  /// job the thread is running, else the one the current task carries.
  static var routing: TestExecutor? {
    RunningJob.executor ?? current
  }

  // MARK: Taking jobs

  /// Queues `job`, enqueued from this test's context, if this executor is open and the job is
  /// not a driver's; answers false otherwise.
  func accept(_ job: UnownedJob, onMainActor: Bool) -> Bool {
    take(job, onMainActor: onMainActor) { _ in true }
  }

  /// Queues `job`, enqueued from no known context, if it is a task of this test, or if it
  /// leaves the main queue: a main-actor task that the test started is met no other way.
  func acceptStray(_ job: UnownedJob, fromMainQueue: Bool) -> Bool {
    take(job, onMainActor: false) { pointer in fromMainQueue || members.contains(pointer) }
  }

  private func take(
    _ job: UnownedJob, onMainActor: Bool, if belongs: (UnsafeRawPointer) -> Bool
  ) -> Bool {
    let pointer = unsafeBitCast(job, to: UnsafeRawPointer.self)
    return condition.withLock {
      guard !isClosed, !drivers.contains(pointer), belongs(pointer) else { return false }
      members.insert(pointer)
      jobs.append(Job(job: job, onMainActor: onMainActor))
      accepted += 1
      if drainers == 0 || onMainActor { condition.broadcast() }
      return true
    }
  }

  /// Remembers the current task as one of this test's, so that its jobs come here even when
  /// the runtime enqueues them from no context. Test clocks call it when a task sleeps.
  package static func noteCurrentTask() {
    guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
      let executor = current,
      let pointer = currentTaskPointer
    else { return }
    executor.condition.withLock {
      if !executor.drivers.contains(pointer) {
        executor.members.insert(pointer)
        executor.accepted += 1
      }
    }
  }

  /// Jobs of tasks that prefer this executor (`withTaskExecutorPreference`) are queued too.
  package func enqueue(_ job: UnownedJob) {
    if !accept(job, onMainActor: false) {
      // Closed: nothing will run it here any more, so it runs where unpreferred jobs run.
      job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
    }
  }

  /// The current task, as the runtime's job pointer.
  private static var currentTaskPointer: UnsafeRawPointer? {
    withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UnsafeRawPointer.self) } }
  }

  /// The current task starts waiting for quiet: while it waits, its own jobs never run here
  /// (it would be waiting for itself).
  private func beginDriving(_ task: UnsafeRawPointer) {
    condition.withLock {
      drivers.insert(task)
      members.remove(task)
    }
  }

  /// The current task has stopped waiting for quiet: from now on its jobs run here like every
  /// other task of the test, so that an actor it shares with them is always let go here.
  private func endDriving(_ task: UnsafeRawPointer) {
    condition.withLock {
      drivers.remove(task)
      members.insert(task)
    }
  }

  // MARK: Waiting for quiet

  /// Waits until no job of this test is queued or running, running jobs on the caller's thread
  /// while it can, then lets the main queue run what it holds and starts over if that made
  /// jobs runnable here. Answers false, after reporting at `location`, if the work did not go
  /// quiet within ``jobBudget`` jobs (a task that yields or re-schedules itself forever).
  @discardableResult
  package func settle(at location: SourceLocation) async -> Bool {
    guard let task = Self.currentTaskPointer else { return true }
    // If the caller is running as one of this executor's jobs (it rejoined after its last
    // advance), that job ends when the caller first suspends below, and it resumes on the
    // global executor: drivers' jobs are not taken here.
    beginDriving(task)
    let giveUpAt = condition.withLock { jobsRun } + Self.jobBudget
    while true {
      guard await quietHere(giveUpAt: giveUpAt) else {
        location.report(
          """
          The work started in this test did not go quiet after \(Self.jobBudget) jobs, so the \
          clock or scheduler went on without waiting for it. A task that yields or \
          re-schedules itself in a loop never lets the test executor finish.
          """
        )
        return false
      }
      // Quiet here; now the main queue. If anything became runnable here meanwhile, or while
      // the main queue ran what it held, start over: a job that ran here after the pass began
      // may have queued main-actor work behind it.
      guard let acceptedBefore = condition.withLock({ isQuiet ? accepted : nil }) else {
        continue
      }
      await passThroughMainQueue()
      if condition.withLock({ accepted == acceptedBefore && isQuiet }) { return true }
    }
  }

  /// Ends what ``settle(at:)`` began: the current task goes back to running its jobs here, like
  /// every other task of the test. It continues here at once, so that an actor it shares with
  /// the test's other tasks is only ever let go on this executor: a thread outside it that
  /// lets go of such an actor late would release their work where no one waits for it.
  package func rejoin() async {
    guard let task = Self.currentTaskPointer else { return }
    endDriving(task)
    // `Task.yield()` may return without leaving the thread, and so may a continuation
    // resumed before the task has finished suspending; a switch to a task executor always
    // enqueues on it.
    if isOpen { await withTaskExecutorPreference(self) {} }
  }

  /// Runs `action`, an action of a clock or scheduler that is advancing, then on the same
  /// thread the jobs it made runnable, for as long as it can. Meanwhile the executor's thread is
  /// not woken for them: waking it costs more than the jobs, and it would race this thread for
  /// them. What this thread cannot run (a job already running, main-actor work, a spent budget)
  /// it leaves to the executor's thread, waking it on the way out.
  package func runAndDrain(_ action: () -> Void) {
    condition.withLock { drainers += 1 }
    action()
    drain(giveUpAt: condition.withLock { jobsRun } + Self.jobBudget)
    condition.withLock {
      drainers -= 1
      if head < jobs.count { condition.broadcast() }
    }
  }

  /// Runs queued jobs on the caller's thread while it may (see ``takeJobForCallersThread``).
  private func drain(giveUpAt: Int) {
    while let job = takeJobForCallersThread(giveUpAt: giveUpAt) {
      run(job)
      finishJob()
    }
  }

  /// Waits until nothing is queued or running here, or the budget is spent (false).
  private func quietHere(giveUpAt: Int) async -> Bool {
    drain(giveUpAt: giveUpAt)
    // Usually quiet already: answer without suspending, since a continuation resumed at once
    // still sends the caller through the global executor's queue.
    if let answer = condition.withLock({ quietAnswer(giveUpAt: giveUpAt) }) { return answer }
    return await withUnsafeContinuation { continuation in
      let answer: Bool? = condition.withLock {
        let answer = quietAnswer(giveUpAt: giveUpAt)
        if answer == nil { waiters.append(Waiter(continuation: continuation, giveUpAt: giveUpAt)) }
        return answer
      }
      if let answer { continuation.resume(returning: answer) }
    }
  }

  /// Returns once everything queued on the main queue before the call has run.
  ///
  /// Jobs for the main actor do not pass through the runtime's enqueue hooks (the runtime
  /// hands them to the main executor directly), so this executor cannot take them. The main
  /// queue runs in order, though: what the test's work queued there has run when a block
  /// queued after it runs. Meanwhile, tasks that leave the main queue for the global executor
  /// are taken here (``acceptStray(_:fromMainQueue:)``).
  private func passThroughMainQueue() async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      DispatchQueue.main.async { continuation.resume() }
    }
  }

  /// The next job, if it may run on the thread of a waiting clock: queued first, not for the
  /// main actor, no other job running, budget left.
  private func takeJobForCallersThread(giveUpAt: Int) -> Job? {
    condition.withLock {
      guard !isRunningJob, head < jobs.count, !jobs[head].onMainActor, jobsRun < giveUpAt
      else { return nil }
      return takeJob()
    }
  }

  /// True if quiet, false if the budget is spent, nil if neither yet. Call with the lock held.
  private func quietAnswer(giveUpAt: Int) -> Bool? {
    if isQuiet { return true }
    if jobsRun >= giveUpAt { return false }
    return nil
  }

  /// Whether nothing is queued or running. Call with the lock held.
  private var isQuiet: Bool { head == jobs.count && !isRunningJob }

  /// Removes the first queued job and marks it running. Call with the lock held.
  private func takeJob() -> Job {
    let job = jobs[head]
    head += 1
    if head == jobs.count {
      jobs.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 1024, head * 2 >= jobs.count {
      jobs.removeFirst(head)
      head = 0
    }
    isRunningJob = true
    return job
  }

  /// Marks the running job done and resumes the waiters that this releases.
  private func finishJob() {
    let released = condition.withLock { () -> [(UnsafeContinuation<Bool, Never>, Bool)] in
      isRunningJob = false
      jobsRun += 1
      // The thread waits while a job runs elsewhere, and to end once closed; with nothing
      // queued and a drainer at work there is nothing for it to do.
      if isClosed || (head < jobs.count && (drainers == 0 || jobs[head].onMainActor)) {
        condition.broadcast()
      }
      guard !waiters.isEmpty else { return [] }
      let quiet = isQuiet
      var released: [(UnsafeContinuation<Bool, Never>, Bool)] = []
      waiters.removeAll { waiter in
        guard quiet || jobsRun >= waiter.giveUpAt else { return false }
        released.append((waiter.continuation, quiet))
        return true
      }
      return released
    }
    for (continuation, quiet) in released { continuation.resume(returning: quiet) }
  }

  // MARK: Running jobs

  private func run(_ job: Job) {
    let executor = RunningJob.executor
    RunningJob.executor = self
    defer { RunningJob.executor = executor }
    if job.onMainActor {
      DispatchQueue.main.sync {
        let executor = RunningJob.executor
        RunningJob.executor = self
        defer { RunningJob.executor = executor }
        job.job.runSynchronously(on: MainActor.sharedUnownedExecutor)
      }
    } else {
      job.job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  private func startThread() {
    let box = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
      &thread, nil,
      { box in
        #if canImport(Darwin)
          let executor = Unmanaged<TestExecutor>.fromOpaque(box).takeRetainedValue()
        #else
          let executor = Unmanaged<TestExecutor>.fromOpaque(box!).takeRetainedValue()
        #endif
        executor.runLoop()
        return nil
      }, box)
    precondition(status == 0, "pthread_create failed with \(status)")
    pthread_detach(thread)
  }

  /// The executor's own thread: runs queued jobs while no waiting clock does, until the
  /// executor is closed and its queue is empty.
  ///
  /// A job queued while a drainer is at work does not wake this thread (``runAndDrain(_:)``).
  /// Should the drainer's action itself wait for that job, only this thread could run it, so
  /// the thread also looks at its queue every ``backstopMilliseconds`` of real time. That only
  /// decides which thread runs a job, never whether the work is quiet.
  private func runLoop() {
    condition.lock()
    while true {
      if isRunningJob || head == jobs.count {
        if isClosed && !isRunningJob && head == jobs.count { break }
        condition.wait(milliseconds: Self.backstopMilliseconds)
        continue
      }
      let job = takeJob()
      condition.unlock()
      run(job)
      finishJob()
      condition.lock()
    }
    condition.unlock()
  }

  /// Closes the executor: it takes no more jobs (later ones go to the global executor), runs
  /// those still queued, then its thread ends.
  package func close() {
    condition.withLock {
      isClosed = true
      condition.broadcast()
    }
    EnqueueHooks.close(self)
  }
}

/// Which test executor's job the current thread is running, kept in a thread-specific value.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
enum RunningJob {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "pthread_key_create failed with \(status)")
    return key
  }()

  static var executor: TestExecutor? {
    get {
      pthread_getspecific(key).map { Unmanaged<TestExecutor>.fromOpaque($0).takeUnretainedValue() }
    }
    set {
      pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() })
    }
  }
}

/// The turns that test executors take: one is open at a time, the others wait in order.
package final class Turns: @unchecked Sendable {
  // Invariant: `lock` guards both `var`s; waiters are resumed after unlocking.
  private let lock = Lock()
  private var isTaken = false
  private var waiting: [UnsafeContinuation<Void, Never>] = []

  /// Waits for the turn.
  package func take() async {
    await withUnsafeContinuation { continuation in
      let now = lock.withLock {
        if isTaken {
          waiting.append(continuation)
          return false
        }
        isTaken = true
        return true
      }
      if now { continuation.resume() }
    }
  }

  /// Passes the turn to the next waiter, if any.
  package func pass() {
    let next = lock.withLock { () -> UnsafeContinuation<Void, Never>? in
      guard !waiting.isEmpty else {
        isTaken = false
        return nil
      }
      return waiting.removeFirst()
    }
    next?.resume()
  }
}
