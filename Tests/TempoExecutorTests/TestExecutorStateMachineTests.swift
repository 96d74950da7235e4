import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// The test executor's state machine, driven directly: each event says who must run the queue
/// next, and quiet means nothing queued or running here or on the main actor.
/// Jobs made of numbers: the machine only keeps a job and hands it back, never reads it.
extension QueuedJob: ExpressibleByIntegerLiteral {
  init(integerLiteral number: Int) { self.init(number) }
  init(_ number: Int) { self.init(address: UnsafeRawPointer(bitPattern: number + 1)!) }
}

@Suite struct TestExecutorStateMachineTests {
  let task = UnsafeRawPointer(bitPattern: 0x1000)!
  let driver = UnsafeRawPointer(bitPattern: 0x2000)!

  @Test func aJobQueuedWithNobodyRunningTheQueueStartsOnePump() {
    var queue = TestExecutorStateMachine()
    var wakes = [queue.enqueue(1, task: task).wake]
    wakes.append(queue.enqueue(2, task: task).wake)  // the pump takes both
    #expect(wakes == [.pump, .none])
    var taken = [queue.takeForPump()]
    #expect(queue.finishJob(byPump: true).wake == .none)
    taken.append(queue.takeForPump())
    _ = queue.finishJob(byPump: true)
    taken.append(queue.takeForPump())  // nil ends the pump
    #expect(taken == [1, 2, nil])
    let next = queue.enqueue(3, task: task).wake  // so the next job starts another
    #expect(next == .pump)
  }

  @Test func aJobQueuedWhileADriverDrainsIsItsToRunWithOneBackstop() {
    var queue = TestExecutorStateMachine()
    queue.beginDraining()
    #expect(queue.enqueue(1, task: task).wake == .backstop)
    #expect(queue.enqueue(2, task: task).wake == .none)
    #expect(queue.takeForDriver(giveUpAt: .max) == 1)
    #expect(queue.takeForDriver(giveUpAt: .max) == nil)  // one job at a time
    _ = queue.finishJob(byPump: false)
    #expect(queue.takeForDriver(giveUpAt: .max) == 2)
    _ = queue.finishJob(byPump: false)
    #expect(queue.endDraining() == .none)
    #expect(queue.isQuiet == true)
  }

  /// A backstop that comes due runs the queue only if a job waits there with none running: the
  /// driver's thread is then blocked or busy. Otherwise it only lets a later one be armed.
  @Test func aBackstopRunsTheQueueOnlyIfAJobWaitsWithNoneRunning() {
    var queue = TestExecutorStateMachine()
    queue.beginDraining()
    #expect(queue.enqueue(1, task: task).wake == .backstop)
    let firstRuns = queue.backstopFired()
    #expect(firstRuns)  // the driver has not taken it
    #expect(queue.enqueue(2, task: task).wake == .backstop)
    #expect(queue.takeForDriver(giveUpAt: .max) == 1)
    let secondRuns = queue.backstopFired()
    #expect(!secondRuns)  // a job runs: its end looks at the queue
    // Job 2 still waits when job 1 ends: that arms the next backstop.
    #expect(queue.finishJob(byPump: false).wake == .backstop)
    #expect(queue.takeForDriver(giveUpAt: .max) == 2)
    _ = queue.finishJob(byPump: false)
    let thirdRuns = queue.backstopFired()
    #expect(!thirdRuns)  // nothing left
    #expect(queue.endDraining() == .none)
  }

  @Test func whatADriverLeavesGoesToAPump() {
    var queue = TestExecutorStateMachine()
    queue.beginDraining()
    _ = queue.enqueue(1, task: task)
    #expect(queue.endDraining() == .pump)
  }

  @Test func aDriversOwnTaskIsRefusedWhileItWaitsForQuiet() {
    var queue = TestExecutorStateMachine()
    _ = queue.beginDriving(driver)
    #expect(!queue.enqueue(1, task: driver).accepted)
    let refused = queue.mainJobQueued(task: driver)
    #expect(!refused)
    #expect(queue.isDriver(driver) == true)
    queue.endDriving(driver)
    #expect(queue.isDriver(driver) == false)
    #expect(queue.enqueue(1, task: driver).accepted)
  }

  @Test func mainActorJobsOfTheTestKeepItFromBeingQuiet() {
    var queue = TestExecutorStateMachine()
    let counted = queue.mainJobQueued(task: task)
    #expect(counted)
    #expect(queue.isQuiet == false)
    #expect(queue.quietAnswer(giveUpAt: 10) == nil)
    _ = queue.mainJobFinished()
    #expect(queue.isQuiet == true)
    #expect(queue.jobsRun == 1)  // main-actor jobs count against the budget too
  }

  @Test func aSpentBudgetAnswersFalse() {
    var queue = TestExecutorStateMachine()
    for job in 0..<3 {
      _ = queue.enqueue(QueuedJob(job), task: task)
      _ = queue.takeForDriver(giveUpAt: 3)
      _ = queue.finishJob(byPump: false)
    }
    _ = queue.enqueue(3, task: task)
    #expect(queue.takeForDriver(giveUpAt: 3) == nil)
    #expect(queue.quietAnswer(giveUpAt: 3) == false)
  }

  /// A switch handed off inside a running job counts as a job when that job finishes, not
  /// before (no waiter's budget runs out in the middle of a job); none is taken with no job
  /// running, for a task waiting for quiet, or once closed.
  @Test func switchesHandedOffCountAsJobsWhenTheirJobFinishes() {
    var queue = TestExecutorStateMachine()
    var taken = [queue.handOffSwitch(of: task)]  // no job running
    _ = queue.enqueue(1, task: task)
    _ = queue.takeForPump()
    for _ in 0..<5 { taken.append(queue.handOffSwitch(of: task)) }
    #expect(taken == [false, true, true, true, true, true])
    #expect(queue.jobsRun == 0)
    _ = queue.finishJob(byPump: true)
    #expect(queue.jobsRun == 6)
    _ = queue.beginDriving(driver)
    _ = queue.enqueue(2, task: task)
    _ = queue.takeForPump()
    let driversSwitch = queue.handOffSwitch(of: driver)
    _ = queue.close()
    let afterClose = queue.handOffSwitch(of: task)
    #expect(!driversSwitch && !afterClose)
    _ = queue.finishJob(byPump: true)
    #expect(queue.jobsRun == 7)
  }

  /// A yield goes on in the running job only when nothing else is queued (the queue would give
  /// its continuation job to the same runner next), is accepted like a queued job, and counts
  /// as a job when the running job finishes; none goes on with no job running, for a task
  /// waiting for quiet, or once closed.
  @Test func aYieldGoesOnInItsJobOnlyWhenNothingElseIsQueued() {
    var queue = TestExecutorStateMachine()
    var taken = [queue.handOffYield(of: task)]  // no job running
    _ = queue.enqueue(1, task: task)
    _ = queue.takeForPump()
    let acceptedBefore = queue.accepted
    for _ in 0..<3 { taken.append(queue.handOffYield(of: task)) }
    _ = queue.enqueue(2, task: task)
    taken.append(queue.handOffYield(of: task))  // job 2 is queued: the yield waits behind it
    #expect(taken == [false, true, true, true, false])
    #expect(queue.accepted == acceptedBefore + 4)
    #expect(queue.jobsRun == 0)
    _ = queue.finishJob(byPump: true)
    #expect(queue.jobsRun == 4)
    _ = queue.beginDriving(driver)
    _ = queue.takeForPump()
    let driversYield = queue.handOffYield(of: driver)
    _ = queue.close()
    let afterClose = queue.handOffYield(of: task)
    #expect(!driversYield && !afterClose)
  }

  /// A task leaving the main actor starts its next job in its main-actor job's block only
  /// where that block may be the pump: the executor pumps on the main queue, nothing of the
  /// test is queued or running, and no pump or driver would run the queue. The job is counted
  /// as accepted and running, and ends as a pump's does.
  @Test func aSwitchFromAMainActorJobStartsAJobOnlyWhereThatBlockMayPump() {
    var offMain = TestExecutorStateMachine()
    let takenOffMain = offMain.switchFromMainJob(of: task)  // its pumps run elsewhere

    var queue = TestExecutorStateMachine()
    queue.pumpsOnMainQueue = true
    let taken = queue.switchFromMainJob(of: task)
    #expect(!takenOffMain && taken)
    #expect(queue.accepted == 1 && queue.isQuiet == false)
    let takenWhileRunning = queue.switchFromMainJob(of: task)
    let wake = queue.enqueue(1, task: task).wake
    #expect(!takenWhileRunning && wake == .none)  // the block is the pump
    let step = queue.finishJobAndTakeForPump()
    #expect(step.next == QueuedJob(1))
    _ = queue.finishJobAndTakeForPump()
    #expect(queue.isQuiet == true && queue.jobsRun == 2)

    _ = queue.enqueue(2, task: task)  // queued, a pump scheduled for it
    let takenWhileQueued = queue.switchFromMainJob(of: task)
    _ = queue.takeForPump(starting: .mainQueue)
    _ = queue.finishJobAndTakeForPump()
    _ = queue.beginDriving(driver)
    let driversSwitch = queue.switchFromMainJob(of: driver)  // a task waiting for quiet
    _ = queue.close()
    let takenAfterClose = queue.switchFromMainJob(of: task)
    #expect(!takenWhileQueued && !driversSwitch && !takenAfterClose)
  }

  /// A counted main-actor job whose task leaves it for the executor ends with the switch: it
  /// is counted as run in the same step, and the test is quiet once the switched job has run,
  /// with no other finish of the main-actor job. A refused switch counts nothing, and with no
  /// main-actor job counted the switch is refused.
  @Test func aSwitchFromACountedMainActorJobFinishesThatJob() {
    var queue = TestExecutorStateMachine()
    queue.pumpsOnMainQueue = true
    let uncounted = queue.switchFromMainJob(of: task, finishingMainJob: true)
    let counted = queue.mainJobQueued(task: task)
    let taken = queue.switchFromMainJob(of: task, finishingMainJob: true)
    #expect(!uncounted && counted && taken)
    #expect(queue.jobsRun == 1 && queue.isQuiet == false)
    _ = queue.finishJobAndTakeForPump()
    #expect(queue.jobsRun == 2 && queue.isQuiet == true)

    let countedAgain = queue.mainJobQueued(task: task)
    _ = queue.enqueue(1, task: task)  // queued: the switch is refused
    let refused = queue.switchFromMainJob(of: task, finishingMainJob: true)
    #expect(countedAgain && !refused)
    #expect(queue.jobsRun == 2)
    _ = queue.takeForPump(starting: .mainQueue)
    _ = queue.finishJobAndTakeForPump()
    #expect(queue.isQuiet == false)  // the main-actor job still runs
    _ = queue.mainJobFinished()
    #expect(queue.isQuiet == true && queue.jobsRun == 4)
  }

  @Test func theLastLeaseClosesAndNoLeaseIsTakenAfterwards() {
    var queue = TestExecutorStateMachine()
    let retained = [queue.retainLease(), queue.retainLease()]
    #expect(retained == [true, true])
    let first = queue.releaseLease()
    #expect(first == nil)
    let last = queue.releaseLease()
    #expect(last != nil)
    #expect(queue.isClosed == true)
    let late = queue.retainLease()
    #expect(!late)
    #expect(!queue.enqueue(1, task: task).accepted)
  }

  @Test func aWaiterIsReleasedWhenTheLastJobFinishes() async {
    var queue = TestExecutorStateMachine()
    _ = queue.enqueue(1, task: task)
    _ = queue.takeForPump()
    let answer = await withUnsafeContinuation { continuation in
      let immediate = queue.wait(.init(continuation: continuation, giveUpAt: .max))
      #expect(immediate == nil)
      let released = queue.finishJob(byPump: true).released
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer)
  }
}

/// The combined events a running queue uses: finishing a job and taking the next in one step.
@Suite struct TestExecutorStateMachineStepTests {
  let task = UnsafeRawPointer(bitPattern: 0x1000)!

  @Test func aDriverFinishesAndTakesTheNextJobInOneStep() {
    var queue = TestExecutorStateMachine()
    #expect(queue.beginDraining() == 0)
    _ = queue.enqueue(1, task: task)
    _ = queue.enqueue(2, task: task)
    #expect(queue.takeForDriver(giveUpAt: .max) == 1)
    let step = queue.finishJobAndTakeForDriver(giveUpAt: .max)
    #expect(step.next == 2)
    // The backstop was started by the first job queued behind the driver; no second one.
    #expect(step.wake == .none)
    let last = queue.finishJobAndTakeForDriver(giveUpAt: .max)
    #expect(last.next == nil)
    #expect(queue.isQuiet == true)
    #expect(queue.endDraining() == .none)
    #expect(queue.jobsRun == 2)
  }

  @Test func aDriverStopsTakingWhenItsBudgetIsSpent() {
    var queue = TestExecutorStateMachine()
    let giveUpAt = queue.beginDraining() + 1
    _ = queue.enqueue(1, task: task)
    _ = queue.enqueue(2, task: task)
    #expect(queue.takeForDriver(giveUpAt: giveUpAt) == 1)
    let step = queue.finishJobAndTakeForDriver(giveUpAt: giveUpAt)
    #expect(step.next == nil)
    #expect(queue.endDraining() == .pump)  // what is left goes to a pump
  }

  @Test func aPumpFinishesAndTakesTheNextJobInOneStep() {
    var queue = TestExecutorStateMachine()
    _ = queue.enqueue(1, task: task)
    _ = queue.enqueue(2, task: task)
    #expect(queue.takeForPump() == 1)
    #expect(queue.finishJobAndTakeForPump().next == 2)
    #expect(queue.finishJobAndTakeForPump().next == nil)
    #expect(queue.enqueue(3, task: task).wake == .pump)  // the pump ended; a new one starts
  }
}

/// Outside work the test declared (`withOutsideWork`) holds up an auto-advance driver's wait for
/// quiet, and never an advance the test asked for.
@Suite struct TestExecutorStateMachineOutsideWorkTests {
  @Test func onlyAWaitThatRespectsOutsideWorkWaitsForIt() {
    var queue = TestExecutorStateMachine()
    queue.beginOutsideWork()
    #expect(queue.quietAnswer(giveUpAt: .max) == true)
    #expect(queue.quietAnswer(giveUpAt: .max, respectingOutsideWork: true) == nil)
    // A spent budget still answers.
    #expect(queue.quietAnswer(giveUpAt: 0, respectingOutsideWork: true) == false)
  }

  @Test func theEndOfOutsideWorkReleasesTheWaitThatRespectedIt() async {
    var queue = TestExecutorStateMachine()
    queue.beginOutsideWork()
    queue.beginOutsideWork()
    let answer = await withUnsafeContinuation { continuation in
      let waiter = TestExecutorStateMachine.Waiter(
        continuation: continuation, giveUpAt: .max, respectsOutsideWork: true)
      #expect(queue.wait(waiter) == nil)
      #expect(queue.endOutsideWork().isEmpty)  // one of two ended: still waiting
      let released = queue.endOutsideWork()
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)
  }
}

/// The job the opening task was running when a clock opened the executor for it: the test's
/// work, though it came to no executor, until it is known to have ended.
@Suite struct TestExecutorStateMachineOpenerTests {
  let opener = UnsafeRawPointer(bitPattern: 0x3000)!
  let other = UnsafeRawPointer(bitPattern: 0x4000)!

  @Test func theOpenersJobKeepsTheTestFromBeingQuietUntilItSuspends() async {
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener)
    #expect(queue.isQuiet == false)
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      // Watched once, however often asked.
      let watched = [queue.openerToWatch(), queue.openerToWatch()]
      #expect(watched == [opener, nil])
      let released = queue.openerSuspended()
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)
    #expect(queue.isQuiet == true)
  }

  @Test func nobodyWatchesTheOpenerUntilSomeoneWaits() {
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener)
    let watched = queue.openerToWatch()
    #expect(watched == nil)
  }

  /// A job of the opener arriving, here, for the main queue, or resumed inside a continuation
  /// job that runs here, means the job it was running has ended: the new one is counted
  /// instead.
  @Test(arguments: ["queue", "main queue", "continuation job"])
  func aJobOfTheOpenerEndsTheWaitForItsFirstJob(arrivesThrough path: String) {
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener)
    _ = queue.enqueue(1, task: other)
    _ = queue.takeForPump()
    _ = queue.finishJob(byPump: true)
    #expect(queue.opener == opener)  // another task's job says nothing about the opener's
    switch path {
    case "main queue":
      let counted = queue.mainJobQueued(task: opener)
      #expect(counted)
      _ = queue.mainJobFinished()
    case "continuation job":
      _ = queue.enqueue(2, task: other)
      _ = queue.takeForPump()
      let switched = queue.handOffSwitch(of: opener)
      #expect(switched && queue.opener == opener)  // the opener's own switch: no job arrived
      let resumed = queue.handOffSwitch(of: opener, isResumed: true)
      #expect(resumed)
      _ = queue.finishJob(byPump: true)
    default:
      _ = queue.enqueue(2, task: opener)
      _ = queue.takeForPump()
      _ = queue.finishJob(byPump: true)
    }
    #expect(queue.opener == nil)
    #expect(queue.isQuiet == true)
  }

  /// A task reads as suspended from the moment it marks itself so, before it publishes itself
  /// as waiting; if what it waits for completes in between, it reads as running again and goes
  /// on in the same job. Only reads that say "suspended" for the whole confirmation end its job.
  @Test func theOpenersStatusMustReadSuspendedForTheWholeConfirmation() {
    let confirmation = Guesses.openerConfirmationNanoseconds
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener)
    #expect(queue.openerRead(runnable: false, at: 1_000).isEmpty)
    #expect(queue.opener == opener)
    // Running again before the confirmation: the suspended read was the window.
    #expect(queue.openerRead(runnable: true, at: 1_000 + confirmation / 2).isEmpty)
    #expect(queue.openerRead(runnable: false, at: 1_000 + confirmation).isEmpty)
    #expect(queue.opener == opener)
    #expect(queue.openerRead(runnable: false, at: 1_000 + 2 * confirmation - 1).isEmpty)
    #expect(queue.opener == opener)
    #expect(queue.openerRead(runnable: false, at: 1_000 + 2 * confirmation).isEmpty)
    #expect(queue.opener == nil)
    #expect(queue.isQuiet == true)
  }

  @Test func aConfirmedSuspensionReleasesTheWaiters() async {
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener)
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      #expect(queue.openerRead(runnable: false, at: 0).isEmpty)
      let released = queue.openerRead(
        runnable: false, at: Guesses.openerConfirmationNanoseconds)
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)
  }

  /// An opener on the main queue: until the pass through the queue has run, its job is still
  /// running whatever a read says, and nobody watches it; after, one read of "suspended" ends
  /// it, and one running says it went on elsewhere (an actor whose job no executor took).
  @Test func anOpenersReadsOnTheMainQueueCountOnlyAfterThePass() async {
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener, onMainQueue: true)
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      #expect(queue.openerToWatch() == nil)
      #expect(queue.openerRead(runnable: false, at: 0).isEmpty)
      #expect(queue.openerRead(runnable: false, at: .max).isEmpty)
      #expect(queue.opener == opener)
      // The pass: someone waits, so the opener is to be watched now.
      #expect(queue.mainQueuePassRan() == opener)
      #expect(queue.openerRead(runnable: true, at: 0).isEmpty)
      #expect(queue.opener == opener)
      let released = queue.openerRead(runnable: false, at: 0)
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)
    #expect(queue.opener == nil)
  }

  /// An opener on the main queue read the platform's main executor, so its later hops back to
  /// the main actor go to the main queue unseen: read as runnable after its first job has
  /// ended, with nothing else of the test queued or running, its job is watched again until a
  /// pass through the main queue has run. Not while the counts show work (that work is
  /// waited for anyway), not while it waits for quiet itself, and never for an opener off the
  /// main queue, whose hops the hooks see.
  @Test func aMainQueueOpenerReadRunnableAfterItsJobIsWatchedAgain() async {
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener, onMainQueue: true)
    #expect(queue.openerReadRunnable() == false)  // its first job is still watched
    _ = queue.mainQueuePassRan()
    _ = queue.openerRead(runnable: false, at: 0)
    let quietAfterTheFirstJob = queue.opener == nil && queue.isQuiet
    #expect(quietAfterTheFirstJob)
    // Work of the test counted: waited for by the counts; no second watch.
    _ = queue.enqueue(1, task: other)
    #expect(queue.openerReadRunnable() == false)
    _ = queue.takeForPump()
    _ = queue.finishJob(byPump: true)
    // Waiting for quiet itself: its own job is not the test's work.
    queue.beginDriving(opener).forEach { _ in Issue.record("nobody waited") }
    #expect(queue.openerReadRunnable() == false)
    queue.endDriving(opener)
    // Quiet by the counts, and the opener runnable: watched again, until the pass.
    #expect(queue.openerReadRunnable() == true)
    let watchedAgain = queue.opener == opener && !queue.isQuiet
    #expect(watchedAgain)
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      #expect(queue.openerReadRunnable() == false)  // watched already
      #expect(queue.openerRead(runnable: false, at: 0).isEmpty)  // before the pass: ignored
      _ = queue.mainQueuePassRan()
      let released = queue.openerRead(runnable: false, at: 0)
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)

    var offMain = TestExecutorStateMachine()
    offMain.openerIsRunning(opener)
    _ = offMain.openerSuspended()
    let offMainWatched = offMain.openerReadRunnable()
    let offMainQuiet = offMain.isQuiet
    #expect(!offMainWatched && offMainQuiet)
  }

  /// Each pass through the main queue queued for the opener's job counts as a pump block there,
  /// so that a main thread that never runs it is reported as stalled, not waited on for good;
  /// and its reads count only once the last pass queued has run: a pass queued after a read
  /// that found it runnable runs after the job that read saw.
  @Test func passesForTheOpenerAreCountedAndTheLastOneDecides() async {
    var queue = TestExecutorStateMachine()
    queue.pumpsOnMainQueue = true
    queue.openerIsRunning(opener, onMainQueue: true)
    let queuedAtOpen = queue.mainQueuePumpBlocks.queued
    #expect(queuedAtOpen == 1)
    // The job the pass was queued behind comes to the executor: it has ended.
    _ = queue.mainJobQueued(task: opener)
    _ = queue.mainJobFinished()
    let endedByTheJob = queue.opener == nil
    #expect(endedByTheJob)
    // Read runnable again before the first pass ran: watched again, a second pass queued.
    let watchedAgain = queue.openerReadRunnable()
    let queuedNow = queue.mainQueuePumpBlocks.queued
    #expect(watchedAgain && queuedNow == 2)
    let afterFirstPass = queue.mainQueuePassRan()
    let readBeforeTheLastPass = queue.openerRead(runnable: false, at: 0)
    let stillWatched = queue.opener == opener
    #expect(afterFirstPass == nil && readBeforeTheLastPass.isEmpty && stillWatched)
    _ = queue.mainQueuePassRan()
    let queuedAfterBoth = queue.mainQueuePumpBlocks.queued
    _ = queue.openerRead(runnable: false, at: 0)
    let endedAfterTheLastPass = queue.opener == nil
    #expect(queuedAfterBoth == 0 && endedAfterTheLastPass)
    // A pass that never runs: the main queue is stalled, and a waiter is let go.
    let watchedOnceMore = queue.openerReadRunnable()
    #expect(watchedOnceMore)
    let started = queue.mainQueuePumpBlocks.started
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      let (released, _) = queue.mainQueueStalled(since: started)
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == false)
  }

  /// The opener that waits for quiet itself (it advances) is no longer the test's work; a
  /// waiter before it (an auto-advance driver) is released.
  @Test func theOpenerBeginningToWaitReleasesTheOthersWaiting() async {
    var queue = TestExecutorStateMachine()
    queue.openerIsRunning(opener)
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      let released = queue.beginDriving(opener)
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)
    let none = queue.beginDriving(other)
    #expect(none.isEmpty)
  }
}

/// The state machine driven by seeded random programs of the events the executor sends it,
/// against a model of what it must do. The events: jobs of the test's tasks queued and run by
/// pumps (whose turns end), by draining drivers and by backstops; main-actor and outside jobs
/// counted and finished; outside work; tasks beginning and ending to wait for quiet, and
/// waiters; the opener's job, ended by a job of the opener, by its beginning to wait, or by reads
/// of its status (confirmed over time, or after the main queue's pass); leases taken and let go,
/// and closing. The model: the queue runs first in, first out, one job at a time; every job run
/// is counted; the test is quiet exactly when nothing is queued, running, on the main queue or
/// outside, and the opener's job is over; a closed executor, or a task waiting for quiet, is
/// refused; each waiter is released exactly when its answer is known, with that answer. When an
/// executor has closed and its work is over, the program goes on with the next one. The state
/// machine's invariants are checked after every step (with Tempo's internal checks on), among
/// them that a queued job always has someone to run it.
@Suite struct TestExecutorStateMachineModelTests {
  typealias Machine = TestExecutorStateMachine

  struct Model {
    struct Waiter {
      let id: Int
      let giveUpAt: Int
      let respectsOutsideWork: Bool
    }

    var queued: [QueuedJob] = []
    var running: QueuedJob?
    var mainJobs = 0
    var outsideJobs = 0
    var outsideWork = 0
    var jobsRun = 0
    var accepted = 0
    var lifecycle = Machine.Lifecycle.open(leases: 0)
    var drivers: Set<UnsafeRawPointer> = []
    var waiters: [Waiter] = []
    /// The opener, while its job may run; whether its reads wait for the main queue's pass.
    var opener: UnsafeRawPointer?
    var openerOnMainQueue = false
    var mainQueuePassRan = false
    var openerWatched = false
    /// The first of the reads that said "suspended" since the last that said "runnable".
    var firstSuspendedRead: UInt64?

    var isClosed: Bool { if case .closed = lifecycle { true } else { false } }
    var isQuiet: Bool {
      queued.isEmpty && running == nil && mainJobs == 0 && outsideJobs == 0 && opener == nil
    }
    func answer(giveUpAt: Int, respectingOutsideWork: Bool) -> Bool? {
      if isQuiet, !respectingOutsideWork || outsideWork == 0 { return true }
      return jobsRun >= giveUpAt ? false : nil
    }
    /// Whether a job of `task` is taken (and counted).
    func accepts(_ task: UnsafeRawPointer) -> Bool { !isClosed && !drivers.contains(task) }
    mutating func arrived(_ task: UnsafeRawPointer) {
      if task == opener { endOpenersJob() }
    }
    mutating func endOpenersJob() {
      opener = nil
      openerWatched = false
      firstSuspendedRead = nil
    }
    var openerReadsCount: Bool { !openerOnMainQueue || mainQueuePassRan }
    /// The opener to watch: someone waits, its reads count, and nobody watches it yet.
    mutating func openerToWatch() -> UnsafeRawPointer? {
      guard let opener, openerReadsCount, !openerWatched, !waiters.isEmpty else { return nil }
      openerWatched = true
      return opener
    }
  }

  /// Who holds the running job, so that it is finished by the same hand.
  enum Runner { case pump, driver }

  /// A waiter's continuation, for the machine to hold and hand back: a stand-in that is never
  /// resumed, told apart by its bit pattern.
  static func continuation(_ id: Int) -> UnsafeContinuation<Bool, Never> {
    unsafeBitCast(
      UnsafeRawPointer(bitPattern: 0x10_0000 + id * 16)!, to: UnsafeContinuation<Bool, Never>.self)
  }

  static func id(of continuation: UnsafeContinuation<Bool, Never>) -> Int {
    (Int(bitPattern: unsafeBitCast(continuation, to: UnsafeRawPointer.self)) - 0x10_0000) / 16
  }

  /// What one program reached, so that the suite can tell that the programs cover every part.
  struct Coverage {
    var executors = 0
    var closedByScope = 0
    var closedByLastLease = 0
    var refused = 0
    var openerEnds: [String: Int] = [:]
    var released: [Bool: Int] = [:]
    var backstopRuns = 0

    mutating func add(_ other: Coverage) {
      executors += other.executors
      closedByScope += other.closedByScope
      closedByLastLease += other.closedByLastLease
      refused += other.refused
      openerEnds.merge(other.openerEnds, uniquingKeysWith: +)
      released.merge(other.released, uniquingKeysWith: +)
      backstopRuns += other.backstopRuns
    }
  }

  @Test(arguments: 0..<40 as Range<UInt64>)
  func randomProgramsFollowTheModel(seed: UInt64) {
    _ = Self.run(seed: seed)
  }

  /// The programs together reach every way the lifecycle and the opener's job can go.
  @Test func theProgramsCoverEveryPart() {
    var coverage = Coverage()
    for seed in 0..<40 as Range<UInt64> { coverage.add(Self.run(seed: seed)) }
    #expect(coverage.executors > 40, "no executor closed and made way for the next")
    #expect(coverage.closedByScope > 0 && coverage.closedByLastLease > 0)
    #expect(coverage.refused > 0)
    let routes = ["job arrived", "began driving", "read confirmed", "read after pass", "gave up"]
    for route in routes {
      #expect(
        coverage.openerEnds[route, default: 0] > 0, "the opener's job never ended by \(route)")
    }
    #expect(coverage.released[true, default: 0] > 0 && coverage.released[false, default: 0] > 0)
    #expect(coverage.backstopRuns > 0)
  }

  /// Runs the program of `seed` against the model.
  static func run(seed: UInt64) -> Coverage {
    var coverage = Coverage()
    var random = SplitMix(state: seed)
    let task = UnsafeRawPointer(bitPattern: 0x1000)!
    let driver = UnsafeRawPointer(bitPattern: 0x2000)!
    let opener = UnsafeRawPointer(bitPattern: 0x3000)!
    let confirmation = Guesses.openerConfirmationNanoseconds
    var queue = Machine()
    var model = Model()
    var nextJob = 0
    var nextWaiter = 0
    var now: UInt64 = 1_000
    var pumps = 0  // scheduled pumps not yet started
    var activePump = false
    var runner: Runner?
    var drainers = 0
    var backstops = 0  // armed backstops not yet fired
    func open() {
      queue = Machine()
      model = Model()
      (pumps, activePump, drainers, backstops) = (0, false, 0, 0)
      coverage.executors += 1
      // An executor opened by a scope (no opener), or by a clock for a task running a job
      // elsewhere, or on the main queue.
      switch random.next() % 3 {
      case 0: break
      case let kind:
        queue.openerIsRunning(opener, onMainQueue: kind == 2)
        model.opener = opener
        model.openerOnMainQueue = kind == 2
      }
    }
    func apply(_ wake: Machine.Wake) {
      switch wake {
      case .none: break
      case .pump: pumps += 1
      case .backstop: backstops += 1
      case .pumpOffMainQueue: Issue.record("seed \(seed): a pump off the main queue")
      }
    }
    func took(_ job: QueuedJob?, by who: Runner) {
      guard let job else { return }
      #expect(job == model.queued.first, "seed \(seed): took \(job), not the first queued")
      model.queued.removeFirst()
      model.running = job
      runner = who
    }
    func finished() {
      model.running = nil
      model.jobsRun += 1
      runner = nil
    }
    /// The waiters an event released: exactly those whose answer the model knows now, each
    /// with that answer.
    func released(_ released: [Machine.Release]) {
      var expected: [Int: Bool] = [:]
      let known = model
      model.waiters.removeAll { waiter in
        let answer = known.answer(
          giveUpAt: waiter.giveUpAt, respectingOutsideWork: waiter.respectsOutsideWork)
        guard let answer else { return false }
        expected[waiter.id] = answer
        return true
      }
      let actual = Dictionary(
        released.map { (Self.id(of: $0.continuation), $0.quiet) }, uniquingKeysWith: { _, b in b })
      #expect(actual == expected, "seed \(seed): released waiters")
      #expect(actual.count == released.count, "seed \(seed): a waiter released twice")
      for answer in actual.values { coverage.released[answer, default: 0] += 1 }
    }
    func someTask() -> UnsafeRawPointer {
      switch random.next() % 6 {
      case 0: driver
      case 1: opener
      default: task
      }
    }
    open()
    for _ in 0..<3_000 {
      var release: [Machine.Release] = []
      switch random.next() % 26 {
      case 0, 1:
        let of = someTask()
        let (accepted, wake) = queue.enqueue(QueuedJob(nextJob), task: of)
        #expect(accepted == model.accepts(of), "seed \(seed): enqueue")
        if !accepted { coverage.refused += 1 }
        if accepted {
          if of == model.opener { coverage.openerEnds["job arrived", default: 0] += 1 }
          model.arrived(of)
          model.queued.append(QueuedJob(nextJob))
          model.accepted += 1
          nextJob += 1
        }
        apply(wake)
      case 2 where pumps > 0 && !activePump:
        // A scheduled pump starts.
        pumps -= 1
        let job = queue.takeForPump()
        activePump = job != nil
        took(job, by: .pump)
      case 3 where runner == .pump:
        finished()
        let (released, next) = queue.finishJobAndTakeForPump()
        release = released
        activePump = next != nil
        took(next, by: .pump)
      case 4:
        queue.beginDraining()
        drainers += 1
        if runner == nil { took(queue.takeForDriver(giveUpAt: .max), by: .driver) }
      case 5 where runner == .driver:
        finished()
        let (released, wake, next) = queue.finishJobAndTakeForDriver(giveUpAt: .max)
        release = released
        apply(wake)
        took(next, by: .driver)
      case 6 where drainers > 0 && runner != .driver:
        drainers -= 1
        apply(queue.endDraining())
      case 7:
        let of = someTask()
        let counted = queue.mainJobQueued(task: of)
        #expect(counted == model.accepts(of), "seed \(seed): main-actor job")
        if counted {
          if of == model.opener { coverage.openerEnds["job arrived", default: 0] += 1 }
          model.arrived(of)
          model.mainJobs += 1
          model.accepted += 1
        }
      case 8 where model.mainJobs > 0:
        release = queue.mainJobFinished()
        model.mainJobs -= 1
        model.jobsRun += 1
      case 9 where runner == .pump:
        // The pump's turn ends: it goes to the back of its queue if a job is left.
        finished()
        let (released, goesOn) = queue.finishJobAndEndTurn()
        release = released
        activePump = false
        #expect(goesOn == !model.queued.isEmpty, "seed \(seed): a pump's next turn")
        if goesOn { pumps += 1 }
      case 10 where model.mainJobs > 0:
        // A task whose main-actor job runs begins to drive.
        release = queue.uncountRunningMainJob()
        model.mainJobs -= 1
      case 11:
        let count = Int(random.next() % 3)
        queue.addOutsideJobs(count)
        model.outsideJobs += count
      case 12:
        let of = someTask()
        let counted = queue.outsideJobLeft(task: of)
        #expect(counted == model.accepts(of), "seed \(seed): outside job")
        if counted { model.outsideJobs += 1 }
      case 13 where model.outsideJobs > 0:
        release = queue.outsideJobFinished()
        model.outsideJobs -= 1
        model.jobsRun += 1
      case 14:
        queue.beginOutsideWork()
        model.outsideWork += 1
      case 15 where model.outsideWork > 0:
        release = queue.endOutsideWork()
        model.outsideWork -= 1
      case 16:
        let who = random.next() % 4 == 0 ? opener : driver
        release = queue.beginDriving(who)
        model.drivers.insert(who)
        // The opener waiting for quiet: the job it was running is over.
        if who == model.opener {
          model.endOpenersJob()
          coverage.openerEnds["began driving", default: 0] += 1
        }
      case 17:
        let who = random.next() % 2 == 0 ? driver : opener
        queue.endDriving(who)
        model.drivers.remove(who)
      case 18:
        let giveUpAt = random.next() % 4 == 0 ? .max : model.jobsRun + Int(random.next() % 30)
        let respects = random.next() % 2 == 0
        let waiter = Machine.Waiter(
          continuation: Self.continuation(nextWaiter), giveUpAt: giveUpAt,
          respectsOutsideWork: respects)
        let answer = queue.wait(waiter)
        let expected = model.answer(giveUpAt: giveUpAt, respectingOutsideWork: respects)
        #expect(answer == expected, "seed \(seed): a wait's answer")
        if expected == nil {
          model.waiters.append(
            .init(id: nextWaiter, giveUpAt: giveUpAt, respectsOutsideWork: respects))
        }
        nextWaiter += 1
      case 19, 24, 25:
        // A look at the opener's status, up to 4 ms after the last.
        now += random.next() % 4_000_000
        let runnable = random.next() % 4 == 0
        release = queue.openerRead(runnable: runnable, at: now)
        if model.opener != nil, model.openerReadsCount {
          let ends: Bool
          if !model.openerOnMainQueue {
            if runnable { model.firstSuspendedRead = nil }
            if !runnable, model.firstSuspendedRead == nil { model.firstSuspendedRead = now }
            ends = !runnable && now - model.firstSuspendedRead! >= confirmation
          } else {
            ends = !runnable  // after the pass, one read that says "suspended"
          }
          if ends {
            model.endOpenersJob()
            let route = model.openerOnMainQueue ? "read after pass" : "read confirmed"
            coverage.openerEnds[route, default: 0] += 1
          }
        }
      case 20:
        // The executor runs only the pass it queued as it opened for an opener there.
        if random.next() % 2 == 0, model.openerOnMainQueue, !model.mainQueuePassRan {
          let watch = queue.mainQueuePassRan()
          var expected: UnsafeRawPointer?
          if model.openerOnMainQueue, !model.mainQueuePassRan {
            model.mainQueuePassRan = true
            expected = model.openerToWatch()
          }
          #expect(watch == expected, "seed \(seed): the main queue's pass")
        } else {
          #expect(queue.openerToWatch() == model.openerToWatch(), "seed \(seed): opener to watch")
        }
      case 21 where backstops > 0:
        backstops -= 1
        let runs = queue.backstopFired()
        #expect(runs == (!model.queued.isEmpty && model.running == nil), "seed \(seed): backstop")
        if runs {
          // Its pump runs the queue.
          let job = queue.takeForPump()
          #expect(job != nil, "seed \(seed): a backstop's pump found nothing")
          activePump = job != nil
          took(job, by: .pump)
          coverage.backstopRuns += 1
        }
      case 22:
        if random.next() % 5 < 3 {
          let retained = queue.retainLease()
          #expect(retained == !model.isClosed, "seed \(seed): a lease taken")
          if case .open(let leases) = model.lifecycle {
            model.lifecycle = .open(leases: leases + 1)
          }
        } else {
          let wake: Machine.Wake?
          switch model.lifecycle {
          case .open(let leases) where leases > 1:
            model.lifecycle = .open(leases: leases - 1)
            wake = queue.releaseLease()
            #expect(wake == nil, "seed \(seed): a lease let go closed the executor")
          case .open(leases: 1):
            model.lifecycle = .closed(leases: 0)
            wake = queue.releaseLease()
            #expect(wake != nil, "seed \(seed): the last lease let go did not close it")
            coverage.closedByLastLease += 1
          case .closed(let leases) where leases > 0:
            model.lifecycle = .closed(leases: leases - 1)
            wake = queue.releaseLease()
            #expect(wake == nil, "seed \(seed): a lease let go after closing")
          case .open, .closed:
            wake = nil  // no lease held: letting go would stop the process
          }
          apply(wake ?? .none)
        }
      case 23:
        switch random.next() % 8 {
        case 0:
          // The scope ends.
          apply(queue.close())
          if case .open(let leases) = model.lifecycle {
            model.lifecycle = .closed(leases: leases)
            coverage.closedByScope += 1
          }
        case 1:
          // The watch gives up on the opener after a second.
          release = queue.openerSuspended()
          if model.opener != nil { coverage.openerEnds["gave up", default: 0] += 1 }
          model.endOpenersJob()
        default:
          continue
        }
      default:
        continue
      }
      released(release)
      queue.checkInvariants()
      #expect(queue.isQuiet == model.isQuiet, "seed \(seed)")
      #expect(queue.isRunningJob == (model.running != nil), "seed \(seed)")
      #expect(queue.jobsRun == model.jobsRun, "seed \(seed)")
      #expect(queue.accepted == model.accepted, "seed \(seed)")
      #expect(queue.outsideWork == model.outsideWork, "seed \(seed)")
      #expect(queue.lifecycle == model.lifecycle, "seed \(seed)")
      #expect(queue.isClosed == model.isClosed, "seed \(seed)")
      #expect(queue.opener == model.opener, "seed \(seed)")
      #expect(queue.hasDrivers == !model.drivers.isEmpty, "seed \(seed)")
      #expect(queue.isDriver(driver) == model.drivers.contains(driver), "seed \(seed)")
      #expect(
        queue.quietAnswer(giveUpAt: .max, respectingOutsideWork: true)
          == model.answer(giveUpAt: .max, respectingOutsideWork: true), "seed \(seed)")
      // The next test's executor, once this one has closed and its work is over (what is still
      // scheduled for it finds nothing to do, and goes with it).
      if model.isClosed, model.isQuiet { open() }
    }
    return coverage
  }
}
