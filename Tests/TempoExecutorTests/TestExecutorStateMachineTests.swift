import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// The test executor's state machine, driven directly: each event says who must run the queue
/// next, and quiet means nothing queued or running here or on the main actor.
@Suite struct TestExecutorStateMachineTests {
  let task = UnsafeRawPointer(bitPattern: 0x1000)!
  let driver = UnsafeRawPointer(bitPattern: 0x2000)!

  @Test func aJobQueuedWithNobodyRunningTheQueueStartsOnePump() {
    var queue = TestExecutorStateMachine<Int>()
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
    var queue = TestExecutorStateMachine<Int>()
    queue.beginDraining()
    #expect(queue.enqueue(1, task: task).wake == .backstop)
    #expect(queue.enqueue(2, task: task).wake == .none)
    #expect(queue.takeForDriver(giveUpAt: .max) == 1)
    #expect(queue.takeForDriver(giveUpAt: .max) == nil)  // one job at a time
    _ = queue.finishJob(byPump: false)
    #expect(queue.takeForDriver(giveUpAt: .max) == 2)
    _ = queue.finishJob(byPump: false)
    #expect(queue.endDraining() == .none)
    #expect(queue.isQuiet)
  }

  /// A backstop that comes due runs the queue only if a job waits there with none running: the
  /// driver's thread is then blocked or busy. Otherwise it only lets a later one be armed.
  @Test func aBackstopRunsTheQueueOnlyIfAJobWaitsWithNoneRunning() {
    var queue = TestExecutorStateMachine<Int>()
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
    var queue = TestExecutorStateMachine<Int>()
    queue.beginDraining()
    _ = queue.enqueue(1, task: task)
    #expect(queue.endDraining() == .pump)
  }

  @Test func aDriversOwnTaskIsRefusedWhileItWaitsForQuiet() {
    var queue = TestExecutorStateMachine<Int>()
    _ = queue.beginDriving(driver)
    #expect(!queue.enqueue(1, task: driver).accepted)
    let refused = queue.mainJobQueued(task: driver)
    #expect(!refused)
    #expect(queue.isDriver(driver))
    queue.endDriving(driver)
    #expect(!queue.isDriver(driver))
    #expect(queue.enqueue(1, task: driver).accepted)
  }

  @Test func mainActorJobsOfTheTestKeepItFromBeingQuiet() {
    var queue = TestExecutorStateMachine<Int>()
    let counted = queue.mainJobQueued(task: task)
    #expect(counted)
    #expect(!queue.isQuiet)
    #expect(queue.quietAnswer(giveUpAt: 10) == nil)
    _ = queue.mainJobFinished()
    #expect(queue.isQuiet)
    #expect(queue.jobsRun == 1)  // main-actor jobs count against the budget too
  }

  @Test func aSpentBudgetAnswersFalse() {
    var queue = TestExecutorStateMachine<Int>()
    for job in 0..<3 {
      _ = queue.enqueue(job, task: task)
      _ = queue.takeForDriver(giveUpAt: 3)
      _ = queue.finishJob(byPump: false)
    }
    _ = queue.enqueue(3, task: task)
    #expect(queue.takeForDriver(giveUpAt: 3) == nil)
    #expect(queue.quietAnswer(giveUpAt: 3) == false)
  }

  @Test func theLastLeaseClosesAndNoLeaseIsTakenAfterwards() {
    var queue = TestExecutorStateMachine<Int>()
    let retained = [queue.retainLease(), queue.retainLease()]
    #expect(retained == [true, true])
    let first = queue.releaseLease()
    #expect(first == nil)
    let last = queue.releaseLease()
    #expect(last != nil)
    #expect(queue.isClosed)
    let late = queue.retainLease()
    #expect(!late)
    #expect(!queue.enqueue(1, task: task).accepted)
  }

  @Test func aWaiterIsReleasedWhenTheLastJobFinishes() async {
    var queue = TestExecutorStateMachine<Int>()
    _ = queue.enqueue(1, task: task)
    _ = queue.takeForPump()
    let answer = await withUnsafeContinuation { continuation in
      let immediate = queue.wait(.init(continuation: continuation, giveUpAt: .max))
      #expect(immediate == nil)
      let released = queue.finishJob(byPump: true).released
      #expect(released.count == 1)
      for (waiter, quiet) in released { waiter.resume(returning: quiet) }
    }
    #expect(answer)
  }
}

/// The combined events a running queue uses: finishing a job and taking the next in one step.
@Suite struct TestExecutorStateMachineStepTests {
  let task = UnsafeRawPointer(bitPattern: 0x1000)!

  @Test func aDriverFinishesAndTakesTheNextJobInOneStep() {
    var queue = TestExecutorStateMachine<Int>()
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
    #expect(queue.isQuiet)
    #expect(queue.endDraining() == .none)
    #expect(queue.jobsRun == 2)
  }

  @Test func aDriverStopsTakingWhenItsBudgetIsSpent() {
    var queue = TestExecutorStateMachine<Int>()
    let giveUpAt = queue.beginDraining() + 1
    _ = queue.enqueue(1, task: task)
    _ = queue.enqueue(2, task: task)
    #expect(queue.takeForDriver(giveUpAt: giveUpAt) == 1)
    let step = queue.finishJobAndTakeForDriver(giveUpAt: giveUpAt)
    #expect(step.next == nil)
    #expect(queue.endDraining() == .pump)  // what is left goes to a pump
  }

  @Test func aPumpFinishesAndTakesTheNextJobInOneStep() {
    var queue = TestExecutorStateMachine<Int>()
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
    var queue = TestExecutorStateMachine<Int>()
    queue.beginOutsideWork()
    #expect(queue.quietAnswer(giveUpAt: .max) == true)
    #expect(queue.quietAnswer(giveUpAt: .max, respectingOutsideWork: true) == nil)
    // A spent budget still answers.
    #expect(queue.quietAnswer(giveUpAt: 0, respectingOutsideWork: true) == false)
  }

  @Test func theEndOfOutsideWorkReleasesTheWaitThatRespectedIt() async {
    var queue = TestExecutorStateMachine<Int>()
    queue.beginOutsideWork()
    queue.beginOutsideWork()
    let answer = await withUnsafeContinuation { continuation in
      let waiter = TestExecutorStateMachine<Int>.Waiter(
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
    var queue = TestExecutorStateMachine<Int>()
    queue.openerIsRunning(opener)
    #expect(!queue.isQuiet)
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
    #expect(queue.isQuiet)
  }

  @Test func nobodyWatchesTheOpenerUntilSomeoneWaits() {
    var queue = TestExecutorStateMachine<Int>()
    queue.openerIsRunning(opener)
    let watched = queue.openerToWatch()
    #expect(watched == nil)
  }

  /// A job of the opener arriving, here or for the main queue, means the job it was running
  /// has ended: the new one is counted instead.
  @Test(arguments: [false, true])
  func aJobOfTheOpenerEndsTheWaitForItsFirstJob(onMainQueue: Bool) {
    var queue = TestExecutorStateMachine<Int>()
    queue.openerIsRunning(opener)
    _ = queue.enqueue(1, task: other)
    _ = queue.takeForPump()
    _ = queue.finishJob(byPump: true)
    #expect(queue.opener == opener)  // another task's job says nothing about the opener's
    if onMainQueue {
      let counted = queue.mainJobQueued(task: opener)
      #expect(counted)
      _ = queue.mainJobFinished()
    } else {
      _ = queue.enqueue(2, task: opener)
      _ = queue.takeForPump()
      _ = queue.finishJob(byPump: true)
    }
    #expect(queue.opener == nil)
    #expect(queue.isQuiet)
  }

  /// A task reads as suspended from the moment it marks itself so, before it publishes itself
  /// as waiting; if what it waits for completes in between, it reads as running again and goes
  /// on in the same job. Only reads that say "suspended" for the whole confirmation end its job.
  @Test func theOpenersStatusMustReadSuspendedForTheWholeConfirmation() {
    let confirmation = TestExecutorStateMachine<Int>.OpenerWatch.confirmation
    var queue = TestExecutorStateMachine<Int>()
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
    #expect(queue.isQuiet)
  }

  @Test func aConfirmedSuspensionReleasesTheWaiters() async {
    var queue = TestExecutorStateMachine<Int>()
    queue.openerIsRunning(opener)
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      #expect(queue.openerRead(runnable: false, at: 0).isEmpty)
      let released = queue.openerRead(
        runnable: false, at: TestExecutorStateMachine<Int>.OpenerWatch.confirmation)
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)
  }

  /// An opener on the main queue: until the pass through the queue has run, its job is still
  /// running whatever a read says, and nobody watches it; after, one read of "suspended" ends
  /// it, and one running says it went on elsewhere (an actor whose job no executor took).
  @Test func anOpenersReadsOnTheMainQueueCountOnlyAfterThePass() async {
    var queue = TestExecutorStateMachine<Int>()
    queue.openerIsRunning(opener, onMainQueue: true)
    let answer = await withUnsafeContinuation { continuation in
      #expect(queue.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      #expect(queue.openerToWatch() == nil)
      #expect(queue.openerRead(runnable: false, at: 0).isEmpty)
      #expect(queue.openerRead(runnable: false, at: .max).isEmpty)
      #expect(queue.opener == opener)
      // The pass: someone waits, so the opener is to be watched now.
      #expect(queue.mainQueuePassRan() == opener)
      #expect(queue.mainQueuePassRan() == nil)
      #expect(queue.openerRead(runnable: true, at: 0).isEmpty)
      #expect(queue.opener == opener)
      let released = queue.openerRead(runnable: false, at: 0)
      #expect(released.count == 1)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(answer == true)
    #expect(queue.opener == nil)
  }

  /// The opener that waits for quiet itself (it advances) is no longer the test's work; a
  /// waiter before it (an auto-advance driver) is released.
  @Test func theOpenerBeginningToWaitReleasesTheOthersWaiting() async {
    var queue = TestExecutorStateMachine<Int>()
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

/// The state machine driven by seeded random programs of the events the executor sends it — jobs
/// queued and run by pumps (whose turns end) and draining drivers, main-actor jobs queued and
/// finished — against a model of what it must do: run the queue first in, first out, one job
/// at a time, count every job run, and be quiet exactly when nothing is queued, running or on
/// the main queue. The state machine checks its own invariants after every event (in debug
/// builds), among them that a queued job always has someone to run it.
@Suite struct TestExecutorStateMachineModelTests {
  struct Model {
    var queued: [Int] = []
    var running: Int?
    var mainJobs = 0
    var jobsRun = 0
    var isQuiet: Bool { queued.isEmpty && running == nil && mainJobs == 0 }
  }

  /// Who holds the running job, so that it is finished by the same hand.
  enum Runner { case pump, driver }

  @Test(arguments: 0..<40 as Range<UInt64>)
  func randomProgramsFollowTheModel(seed: UInt64) {
    var random = SplitMix(state: seed)
    var queue = TestExecutorStateMachine<Int>()
    var model = Model()
    let task = UnsafeRawPointer(bitPattern: 0x1000)!
    var nextJob = 0
    var pumps = 0  // scheduled pumps not yet started
    var activePump = false
    var runner: Runner?
    var drainers = 0
    func apply(_ wake: TestExecutorStateMachine<Int>.Wake) {
      if wake == .pump { pumps += 1 }
    }
    func took(_ job: Int?, by who: Runner) {
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
    for _ in 0..<2_000 {
      switch random.next() % 10 {
      case 0, 1:
        let (accepted, wake) = queue.enqueue(nextJob, task: task)
        #expect(accepted)
        model.queued.append(nextJob)
        nextJob += 1
        apply(wake)
      case 2 where pumps > 0 && !activePump:
        // A scheduled pump starts.
        pumps -= 1
        let job = queue.takeForPump()
        activePump = job != nil
        took(job, by: .pump)
      case 3 where runner == .pump:
        finished()
        let (_, next) = queue.finishJobAndTakeForPump()
        activePump = next != nil
        took(next, by: .pump)
      case 4:
        queue.beginDraining()
        drainers += 1
        if runner == nil { took(queue.takeForDriver(giveUpAt: .max), by: .driver) }
      case 5 where runner == .driver:
        finished()
        let (_, wake, next) = queue.finishJobAndTakeForDriver(giveUpAt: .max)
        apply(wake)
        took(next, by: .driver)
      case 6 where drainers > 0 && runner != .driver:
        drainers -= 1
        apply(queue.endDraining())
      case 7:
        let counted = queue.mainJobQueued(task: task)
        #expect(counted)
        model.mainJobs += 1
      case 8 where model.mainJobs > 0:
        _ = queue.mainJobFinished()
        model.mainJobs -= 1
        model.jobsRun += 1
      case 9 where runner == .pump:
        // The pump's turn ends: it goes to the back of its queue if a job is left.
        finished()
        let (_, goesOn) = queue.finishJobAndEndTurn()
        activePump = false
        if goesOn { pumps += 1 }
      default:
        continue
      }
      #expect(queue.isQuiet == model.isQuiet, "seed \(seed)")
      #expect(queue.jobsRun == model.jobsRun, "seed \(seed)")
    }
  }
}
