import Dispatch
import Synchronization
@_spi(TempoInternals) import TempoSupport

// Who runs a test's queued jobs, and where: the advancing thread drains what its action
// released; a pump runs the rest on the main queue or the system's pool, a turn at a time; a
// backstop runs them on a thread of its own when a blocked action waits for one.

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Runs queued jobs on the caller's thread while it may.
  ///
  /// (This loop and the pump's take the lock by hand rather than through `withLock`: a debug
  /// build, what `swift test` compiles, calls the generic closure through a thunk and looks its
  /// result type up at every job. Nothing between `lock()` and `unlock()` throws.)
  func drainOnCallersThread(giveUpAt: Int) {
    lock.lock()
    var next = state.takeForDriver(giveUpAt: giveUpAt)
    lock.unlock()
    while let job = next {
      let ran = run(job)
      lock.lock()
      let step = state.finishJobAndTakeForDriver(giveUpAt: giveUpAt, switches: ran.switches)
      lock.unlock()
      resume(step.released)
      start(step.wake)
      next = step.next
    }
  }

  /// Runs queued jobs on `queue`, ``pumpTurn`` at most, until there are none or another
  /// thread is running one (it looks at the queue when it finishes). After its turn the pump
  /// goes to the back of `queue`, as the global executor's jobs do: the main queue and the
  /// system's pool are shared with the tests beside this one, and a pump that kept its thread
  /// while a task of its test yields in a loop would starve them (on two cores, two such pumps
  /// left no pool thread for the work those tasks waited for: the suite hung).
  ///
  /// - Parameters:
  ///   - block: Which block this is: on the main queue the executor counts the pump blocks it
  ///     queues until they start (``TestExecutorStateMachine/MainQueuePumps``), and a
  ///     backstop's until it starts.
  ///   - first: A job the pump has started already (``pump(startingWith:)``), in a block that
  ///     is not a pump block.
  private func pump(
    on queue: DispatchQueue, block: TestExecutorStateMachine.PumpBlock = .elsewhere,
    first: QueuedJob? = nil
  ) {
    let isMain = block == .mainQueue
    var turn = Self.pumpTurn
    var next = first
    if next == nil {
      if isMain { MainQueueActivity.blockStarted() }
      lock.lock()
      next = state.takeForPump(starting: block)
      lock.unlock()
    }
    // On the main queue, the watch of a test stuck behind this block reads it as this test's
    // work (marked once a block, not once a job: per job it cost 4–8 % of a debug test that
    // yields on the main actor).
    let marks = isMain && next != nil
    var work: UInt = 0
    if marks {
      work = MainQueueActivity.enterWork(MainQueueActivity.workID(Unmanaged.passUnretained(self)))
    }
    defer { if marks { MainQueueActivity.leaveWork(to: work) } }
    while let job = next {
      let ran = run(job)
      // A yield that went on in the job counts toward the turn as the job it would have been.
      turn -= 1 + ran.yields
      guard turn > 0 else {
        lock.lock()
        let end = state.finishJobAndEndTurn(onMainQueue: isMain, switches: ran.switches)
        lock.unlock()
        resume(end.released)
        if end.goesOn {
          queue.async { self.pump(on: queue, block: isMain ? .mainQueue : .elsewhere) }
        }
        return
      }
      lock.lock()
      let step = state.finishJobAndTakeForPump(switches: ran.switches)
      lock.unlock()
      resume(step.released)
      next = step.next
    }
  }

  /// How many jobs a pump runs before it lets the other blocks of its queue run.
  static let pumpTurn = 16

  /// Runs `job`, the next job of a task that left the main actor in the main-queue block that
  /// calls this, which the executor took to run here (``takesSwitch(fromMainJobOf:)``), and
  /// goes on as a pump of the main queue would.
  func pump(startingWith job: UnsafeRawPointer) {
    pump(on: .main, block: .mainQueue, first: QueuedJob(address: job))
  }

  /// Resumes the waiters an event released, after unlocking.
  func resume(_ released: [TestExecutorStateMachine.Release]) {
    guard !released.isEmpty else { return }
    for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
  }

  func start(_ wake: TestExecutorStateMachine.Wake) {
    switch wake {
    case .none:
      break
    case .pump:
      // A pump block goes to the main queue with `DispatchQueue.main.async`, not through the
      // runtime's own main executor (the `original` of `swift_task_getMainExecutor_hook`),
      // which might one day run main-actor jobs elsewhere than the main queue: an executor
      // takes jobs, not closures, and Swift has no public way to make a job of a closure but a
      // task, which would cost a task per pump turn on the path of every `@MainActor` test and
      // would itself be routed through Tempo's hooks as the test's work. Nor would it keep the
      // test's work in one place: ``MainExecutor`` runs every main-actor job with
      // `DispatchQueue.main.async` too, for the same reason (it must run its bookkeeping
      // around the job), so the pump stays on the queue where the main-actor jobs it runs
      // beside are.
      let queue = pumpsOnMainQueue ? DispatchQueue.main : .global()
      queue.async { self.pump(on: queue, block: self.pumpsOnMainQueue ? .mainQueue : .elsewhere) }
    case .backstop:
      Backstops.shared.arm(self, milliseconds: Guesses.backstopMilliseconds)
    case .pumpOffMainQueue:
      // A serial queue's thread, as for the backstop: the main thread may be blocked waiting
      // for these jobs, and the shared pool's threads too.
      let queue = DispatchQueue(label: "Tempo test executor pump off the stalled main queue")
      queue.async { self.pump(on: queue) }
    }
  }

  /// The backstop armed by a driver's action is due: if a job is still queued with no job
  /// running, a driver blocked in its action may be waiting for it, so a pump runs the queue
  /// on a thread of its own: a serial queue's, which libdispatch gives a thread even when
  /// every thread of the shared pool is blocked (by drivers like this one), and never the main
  /// queue, which the blocked driver may hold.
  func backstopIsDue() {
    guard lock.withLock({ state.backstopFired() }) else { return }
    let queue = DispatchQueue(label: "Tempo test executor backstop")
    queue.async { self.pump(on: queue, block: .backstop) }
  }

  /// Runs `job` with a task executor, which sends what the job enqueues there back here
  /// (``TestExecutorStandIn/running``). (Run on the runtime's generic executor instead, a job
  /// would skip the switch its next nonisolated call makes here, but `Task.yield()` would then
  /// enqueue on the platform's global executor directly, unseen.)
  ///
  /// A task's job goes on where the task switches between two nonisolated functions (or leaves
  /// an actor for one): the runtime enqueues the task for that, since its task executor is not
  /// the one it prefers, and the global hook hands it back here (``RunningJob/handOff(_:)``),
  /// where it runs next, as the runtime's own executor would go on running it. After
  /// ``handOffLimit`` such switches in a row it goes through the queue, behind the jobs that
  /// came meanwhile: a task that only hops never starves the rest of its test.
  ///
  /// A continuation job (a `Task.yield()`'s) resumes its task, which the runtime then enqueues
  /// on the generic executor: the task goes on in this job too, at the yield's place in the
  /// queue. Not while a clock controls the test's system sleeps, whose wake jobs are
  /// continuation jobs too, and whose tasks `accept(_:)` must see come back. And a task that
  /// yields while nothing else of its test is queued goes on in its own job: its continuation
  /// job, which the queue would give this runner next, runs next here
  /// (``takesYield(of:)``).
  ///
  /// - Returns: How many switches and yields went on in the job (``RanJob``).
  private func run(_ queued: QueuedJob) -> RanJob {
    let job = queued.job
    let task = queued.address
    let isTask = JobIdentity.isTask(task)
    let startedAt = isTask ? systemSleepWindowStart(of: task) : 0
    let resumesTask =
      !isTask && JobIdentity.isContinuation(task)
      && !controlsSystemSleeps.load(ordering: .relaxed)
    let previous = RunningJob.enter(
      self, task: isTask ? task : nil, startedAt: startedAt, handOffs: Self.handOffLimit,
      resumesTask: resumesTask)
    let executor = TestExecutorStandIn.running.asUnownedTaskExecutor()
    job.runSynchronously(on: executor)
    while let next = RunningJob.takeHandedOff() {
      unsafeBitCast(next, to: UnownedJob.self).runSynchronously(on: executor)
    }
    let ran = RunningJob.ranInJob
    RunningJob.leave(to: previous)
    return ran
  }

  /// What went on in a job besides its own work, which its runner counts when it finishes.
  struct RanJob {
    /// Switches of the job's task that went on in it without the lock (``takesSwitch()``):
    /// each counts toward the job budget as a job.
    var switches = 0
    /// Yields that went on in it (``takesYield(of:)``): each counts toward a pump's turn as the
    /// job it would have been (and was counted toward the budget under the lock).
    var yields = 0
  }

  /// How many switches in a row a task's job goes on through (see ``run(_:)``). (Computed: a
  /// stored static is read through a lazy initializer's check at every job in a debug build.)
  static var handOffLimit: Int { 64 }

  /// Whether the task whose job the caller's thread runs for this executor goes on in that job
  /// after a switch between two nonisolated functions, the commonest hand-off by far (dozens a
  /// test): unless the executor has closed or the task is in another executor's scope. Read
  /// without the lock: only the task itself can make it a driver, which waits for quiet and
  /// whose jobs are not the test's work, and that stops its hand-offs in the job it runs
  /// (``RunningJob/stopHandOffs(of:for:)``); the job is this executor's running job, which
  /// counts the switch as a job when it finishes (``RanJob``). An executor that closes
  /// meanwhile takes no job after, and this job was running before.
  func takesSwitch() -> Bool {
    if isInAnotherScope() { return false }
    return !hasClosedForHandOffs.load(ordering: .relaxed)
  }

  /// Whether `task`, which the continuation job the caller's thread runs for this executor
  /// resumes, goes on in that job (counted toward the job budget as a job): unless the executor
  /// has closed, the task waits for it to go quiet (a driver's jobs are not the test's work), or
  /// the task is in another executor's scope. Its yield came from a job of it here, so it is
  /// this test's; unless it is one of the members this executor noted last, with no change
  /// since to who met whom (a task yielding in a loop is), it is noted again, as `accept(_:)`
  /// would.
  func takesResumedTask(_ task: UnsafeRawPointer) -> Bool {
    if isInAnotherScope() { return false }
    lock.lock()
    let isNoted = lastNoted.isCurrent(TaskRef(task))
    let takes = state.handOffSwitch(of: task, isResumed: true)
    lock.unlock()
    // The task is alive: the runtime is enqueuing it.
    if takes, !isNoted { noteMember(TaskRef(task)) }
    return takes
  }

  /// Whether the continuation job of a yield of `task`, whose job the caller's thread runs for
  /// this executor, runs next in that job (counted as a job): unless something else of the test
  /// is queued, which the yield lets run first, the executor has closed, the task waits for it
  /// to go quiet, or is in another executor's scope. Not while a clock controls the test's
  /// system sleeps: their wake jobs are continuation jobs too, whose tasks `accept(_:)` must
  /// see come back.
  func takesYield(of task: UnsafeRawPointer) -> Bool {
    if isInAnotherScope() { return false }
    guard !controlsSystemSleeps.load(ordering: .relaxed) else { return false }
    lock.lock()
    let takes = state.handOffYield(of: task)
    // As for a continuation job that is queued: the next look for unseen yields looks.
    if takes { yieldedTasks.processingJobQueued() }
    lock.unlock()
    return takes
  }

  /// Whether `task`, whose main-actor job the caller runs on the main queue for this executor,
  /// and which is leaving the main actor for the generic executor, starts its next job here now,
  /// to run on the main queue right after its main-actor job (``pump(startingWith:)``): if this
  /// executor's jobs run on the main queue, none is queued or running, and no pump or driver
  /// would run them. The task's work then goes on where a pump block queued behind the
  /// main-actor job would have run it, with nothing of the test between; the main queue's other
  /// blocks, which might have come between, are other work, as they would be on the runtime's
  /// own executor, where the task goes on in the pool at once.
  ///
  /// The main-actor job ends with the switch, and is counted as run in the same step; its
  /// block does not finish it again (``MainExecutor``). It is counted for this executor: the
  /// only thing that stops counting a running main-actor job is its task beginning to wait for
  /// quiet in it, which also ends the job's hand-offs (`beginDriving`), so no switch of that job
  /// comes here.
  func takesSwitch(fromMainJobOf task: UnsafeRawPointer) -> Bool {
    if isInAnotherScope() { return false }
    lock.lock()
    let takes = state.switchFromMainJob(of: task, finishingMainJob: true)
    lock.unlock()
    return takes
  }
}
