import TempoCore
@_spi(TempoInternals) package import TempoSupport

// How a test waits for its work to go quiet: the drive of an advancing clock or scheduler runs
// what its actions release on its own thread, and waits, off the executor, until nothing of the
// test is queued or running, here or on the main actor.

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  // MARK: Waiting for quiet

  /// Waits until no job of this test is queued or running, here or on the main actor, running
  /// jobs on the caller's thread while it can. Answers false, after reporting at `location`, if
  /// the work did not go quiet within ``jobBudget`` jobs (a task that yields or re-schedules
  /// itself forever).
  ///
  /// Runs on `isolation`, the caller's: a drive or the end of a test on the main actor waits
  /// in its own main-actor job, with no hop off it and back. (An `isolated` parameter rather
  /// than `nonisolated(nonsending)`, which Swift 6.1, the package's oldest compiler, does not
  /// know.)
  ///
  /// - Parameter respectingOutsideWork: Whether quiet also waits for the outside work the test
  ///   declared (`withOutsideWork`) to end: an auto-advance driver's wait, never an advance
  ///   the test asked for.
  @discardableResult
  package func settle(
    in isolation: isolated (any Actor)? = #isolation, at location: SourceLocation,
    respectingOutsideWork: Bool = false
  ) async -> Bool {
    guard let task = Self.currentTaskPointer else { return true }
    beginDriving(task)
    return await settleAgain(
      in: isolation, at: location, respectingOutsideWork: respectingOutsideWork)
  }

  /// ``settle(in:at:respectingOutsideWork:)`` for a task that has settled before and not
  /// rejoined since: a drive settles once before its first action and again after each, and
  /// the task is a driver already.
  @discardableResult
  package func settleAgain(
    in isolation: isolated (any Actor)? = #isolation, at location: SourceLocation,
    respectingOutsideWork: Bool = false
  ) async -> Bool {
    var giveUpAt: Int?
    // How long this settle has waited, since a task last came back, for tasks parked in yields
    // no hook saw, as `LookCredit` counts: not while every thread was busy with other work. A
    // task that comes back is making progress (one that yields in a loop forever spends the
    // job budget instead).
    var yieldWaitNanoseconds: UInt64 = 0
    while true {
      let jobsRun = lock.withLock { state.beginDraining() }
      let limit = giveUpAt ?? jobsRun + Self.jobBudget
      giveUpAt = limit
      guard await quietHere(giveUpAt: limit, respectingOutsideWork: respectingOutsideWork) else {
        switch lock.withLock({ state.endedWithoutQuiet() }) {
        case .budgetSpent:
          location.report(
            """
            The work started in this test did not go quiet after \(Self.jobBudget) jobs, so \
            the clock or scheduler went on without waiting for it. A task that yields or \
            re-schedules itself in a loop never lets the test executor finish.
            """
          )
        case .mainQueueStalled:
          location.report(Self.mainQueueStalledMessage)
        case .mainQueueStillStalled:
          break
        }
        return false
      }
      // Work may have arrived since the answer (a task back from a yield no hook saw), or a
      // task of the test may be parked in such a yield, still its work: then look again.
      switch await lookAfterQuiet(
        waitsForYields: Guesses.settleWaitsForYields(afterWaiting: yieldWaitNanoseconds),
        at: location)
      {
      case .settled: break
      case .busy: continue
      case .yieldReturned:
        yieldWaitNanoseconds = 0
        continue
      case .stillParked(let nanoseconds):
        yieldWaitNanoseconds += nanoseconds
        continue
      }
      // A pass through a main queue that does not move would never return.
      guard includesMainQueueBlocks, !isMainQueueStalled else { return true }
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
  ///
  /// Called on the caller's actor (`isolation`), with no hop off it to get here. It still hops
  /// onto the executor, on the main actor too: the rest of a job that this executor does not
  /// count is not the test's work, and a waiter released as quiet meanwhile (an auto-advance
  /// driver) would move time while the task runs on; AsyncStress's retry-calling-actor with
  /// auto-advance caught time moving during a call into an actor, 2 in 90,000 runs, when the
  /// task went on where it was.
  package func rejoin(isolation: isolated (any Actor)? = #isolation) async {
    guard let task = Self.currentTaskPointer else { return }
    let member = TaskRef(task)
    let isNoted = lock.withLock {
      state.endDriving(task)
      return lastNoted.isCurrent(member)
    }
    if !isNoted { noteMember(member) }
    // Already running one of this executor's jobs: here already. While the main queue, where
    // this executor's pumps run, is stalled, the task stays where it is rather than wait there.
    let (closed, stalled) = lock.withLock { (state.isClosed, state.isMainQueueStalled) }
    guard !closed, !stalled, RunningJob.executor !== self else { return }
    // `Task.yield()` may return without leaving the thread, and so may a continuation
    // resumed before the task has finished suspending; a switch to a task executor always
    // enqueues on it. The preference is a stand-in that lives as long as the process, which
    // sends the task's job here, where the task is now a member (see "Lifetimes" in
    // TestExecutor.swift).
    await withTaskExecutorPreference(TestExecutorStandIn.rejoining) {}
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
    // Its switches in the job it runs now are no longer the test's work.
    RunningJob.stopHandOffs(of: task, for: self)
    let uncount = MainExecutor.stopCountingRunningJob(of: task, for: self)
    let released = lock.withLock {
      // Joined only when there is something to join: a debug build's `+` is generic.
      guard uncount else { return state.beginDriving(task) }
      let uncounted = state.uncountRunningMainJob()
      let released = state.beginDriving(task)
      return uncounted.isEmpty ? released : uncounted + released
    }
    resume(released)
  }

  /// Waits until nothing is queued or running, or the budget is spent (false), for a caller
  /// that has begun draining; ends the draining.
  private func quietHere(
    giveUpAt: Int, respectingOutsideWork: Bool, isolation: isolated (any Actor)? = #isolation
  ) async -> Bool {
    drainOnCallersThread(giveUpAt: giveUpAt)
    lookWhetherOpenerSuspended()
    let (answer, outside, wake) = lock.withLock {
      (state.quietAnswer(giveUpAt: giveUpAt), state.outsideWork > 0, state.endDraining())
    }
    start(wake)
    // An auto-advance driver also waits for outside work.
    let respectsOutsideWork = outside && respectingOutsideWork
    // Usually quiet already: answer without suspending, since a continuation resumed at once
    // still sends the caller through the global executor's queue.
    if let answer, !(answer && respectsOutsideWork) { return answer }
    return await withUnsafeContinuation { continuation in
      let waiter = TestExecutorStateMachine.Waiter(
        continuation: continuation, giveUpAt: giveUpAt, respectsOutsideWork: respectsOutsideWork)
      let (answer, opener) = lock.withLock { (state.wait(waiter), state.openerToWatch()) }
      if let answer { continuation.resume(returning: answer) }
      if opener != nil {
        watchOpener(credit: .starting(on: time), every: Guesses.openerFirstLookMicroseconds)
      }
      // The work waited for may be pumped on the main queue, which something may keep from
      // running: the hang watch looks.
      if answer == nil, pumpsOnMainQueue {
        HangWatch.shared.watchMainQueue(of: self, looksToFire: Self.mainQueueLooksToFire)
      }
    }
  }

  /// Returns once everything queued on the main queue before the call has run.
  private func passThroughMainQueue(isolation: isolated (any Actor)? = #isolation) async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      MainQueueActivity.async { continuation.resume() }
    }
  }
}

/// The engine waits for quiet on a test executor (TempoCore's `Quiescence`).
@available(TempoTestExecutor 1.0, *)
extension TestExecutor: Quiescence {}
