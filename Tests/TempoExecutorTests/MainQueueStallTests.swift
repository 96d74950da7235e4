import Dispatch
import Synchronization
import TempoClocks
import TempoTestHelpers
import TempoTestSupport
import Testing

@testable import TempoExecutor

// A `@MainActor` test's work is run by pump blocks on the main queue, which runs only while
// something drains it. A main-actor job that blocks the main thread (a nested run loop, XCTest's
// `wait(for:)`, a semaphore, `DispatchQueue.main.sync`) stops them, and an advance that waits
// for that work would wait forever. Instead, when a pump block has not started for about a
// second while an advance waits, the advance reports it and goes on.

/// The executor's rules for pump blocks on the main queue, driven directly.
@Suite struct MainQueuePumpTests {
  let task = UnsafeRawPointer(bitPattern: 0x1000)!
  typealias Machine = TestExecutorStateMachine

  func pumpingOnTheMainQueue() -> Machine {
    var machine = Machine()
    machine.pumpsOnMainQueue = true
    return machine
  }

  @Test func aPumpBlockOnTheMainQueueIsCountedUntilItStarts() {
    var machine = pumpingOnTheMainQueue()
    #expect(machine.enqueue(1, task: task).wake == .pump)
    #expect(machine.mainQueuePumpBlocks == (queued: 1, started: 0))
    #expect(machine.takeForPump(starting: .mainQueue) == 1)
    #expect(machine.mainQueuePumpBlocks == (queued: 0, started: 1))
  }

  @Test func aPumpsNextTurnIsANewBlock() {
    var machine = pumpingOnTheMainQueue()
    _ = machine.enqueue(1, task: task)
    _ = machine.enqueue(2, task: task)
    _ = machine.takeForPump(starting: .mainQueue)
    let (_, goesOn) = machine.finishJobAndEndTurn(onMainQueue: true)
    #expect(goesOn)
    #expect(machine.mainQueuePumpBlocks == (queued: 1, started: 1))
  }

  @Test func pumpsElsewhereAreNotCounted() {
    var machine = Machine()
    #expect(machine.enqueue(1, task: task).wake == .pump)
    #expect(machine.mainQueuePumpBlocks == (queued: 0, started: 0))
  }

  /// A stall lets every waiter go, answered false; the first to ask reports it, a wait answers
  /// at once, and the queue is pumped off the main queue, until a pump block starts there again.
  @Test func aStallLetsTheWaitersGoUntilAPumpBlockStarts() async {
    var machine = pumpingOnTheMainQueue()
    _ = machine.enqueue(1, task: task)
    let answer = await withUnsafeContinuation { continuation in
      #expect(machine.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      let (released, wake) = machine.mainQueueStalled(since: 0)
      #expect(released.count == 1)
      #expect(wake == .pumpOffMainQueue)
      for waiter in released { waiter.continuation.resume(returning: waiter.quiet) }
    }
    #expect(!answer)
    #expect(machine.isMainQueueStalled == true)
    #expect(machine.quietAnswer(giveUpAt: .max) == false)
    #expect(machine.endedWithoutQuiet() == .mainQueueStalled)
    #expect(machine.endedWithoutQuiet() == .mainQueueStillStalled)
    // The pump off the main queue runs job 1; job 2 gets another.
    #expect(machine.takeForPump() == 1)
    #expect(machine.finishJobAndTakeForPump().next == nil)
    #expect(machine.enqueue(2, task: task).wake == .pumpOffMainQueue)
    #expect(machine.mainQueuePumpBlocks == (queued: 1, started: 0))
    // The block stuck on the main queue starts at last: it moves again.
    #expect(machine.takeForPump(starting: .mainQueue) == 2)
    #expect(machine.isMainQueueStalled == false)
    #expect(machine.quietAnswer(giveUpAt: .max) == nil)  // job 2 runs
    #expect(machine.endedWithoutQuiet() == .budgetSpent)
  }

  /// The waiter a stall let go reports it even if the main queue has moved again by the time
  /// it runs.
  @Test func aStallThatEndedBeforeItsWaiterRanIsStillReported() async {
    var machine = pumpingOnTheMainQueue()
    _ = machine.enqueue(1, task: task)
    let answer = await withUnsafeContinuation { continuation in
      #expect(machine.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      for waiter in machine.mainQueueStalled(since: 0).released {
        waiter.continuation.resume(returning: waiter.quiet)
      }
    }
    #expect(!answer)
    _ = machine.takeForPump(starting: .mainQueue)
    #expect(machine.isMainQueueStalled == false)
    #expect(machine.endedWithoutQuiet() == .mainQueueStalled)
    #expect(machine.endedWithoutQuiet() == .budgetSpent)
  }

  @Test func aPumpBlockThatStartedSinceTheLookIsNoStall() async {
    var machine = pumpingOnTheMainQueue()
    _ = machine.enqueue(1, task: task)
    _ = machine.takeForPump(starting: .mainQueue)
    _ = machine.finishJobAndTakeForPump()
    _ = machine.enqueue(2, task: task)
    let answer = await withUnsafeContinuation { continuation in
      #expect(machine.wait(.init(continuation: continuation, giveUpAt: .max)) == nil)
      #expect(machine.mainQueueStalled(since: 0).released.isEmpty)  // one started since
      #expect(machine.isMainQueueStalled == false)
      _ = machine.takeForPump(starting: .mainQueue)
      for waiter in machine.finishJobAndTakeForPump().released {
        waiter.continuation.resume(returning: waiter.quiet)
      }
    }
    #expect(answer)
  }

  /// A backstop that fired is pending until its pump block starts: until then it may take a
  /// job queued later.
  @Test func aBackstopIsPendingUntilItsPumpStarts() {
    var machine = pumpingOnTheMainQueue()
    machine.beginDraining()
    #expect(machine.enqueue(1, task: task).wake == .backstop)
    #expect(machine.isBackstopPending == true)
    let runs = machine.backstopFired()
    #expect(runs)
    #expect(machine.isBackstopPending == true)
    #expect(machine.takeForPump(starting: .backstop) == 1)
    #expect(machine.isBackstopPending == false)
  }

  @Test func noStallWithoutAWaiter() {
    var machine = pumpingOnTheMainQueue()
    _ = machine.enqueue(1, task: task)
    #expect(machine.mainQueueStalled(since: 0).wake == .none)
    #expect(machine.isMainQueueStalled == false)
  }
}

/// The rules of the main-queue watch, fed observations directly: a test is reported only after
/// its pump blocks waited on the main queue, none starting, for four looks in a row while an
/// advance waited.
@Suite struct MainQueueWatchStateTests {
  final class Watched {}
  let watched = Watched()
  var key: ObjectIdentifier { ObjectIdentifier(watched) }

  func seen(
    waited: Bool = true, queued: Int = 1, started: Int = 0, byAnyTest: Int = 0,
    behindAnotherTest: Bool = false
  ) -> MainQueueObservation {
    MainQueueObservation(
      isWaitedFor: waited, pumpBlocksQueued: queued, pumpBlocksStarted: started,
      blocksStartedByAnyTest: byAnyTest, isBehindAnotherTest: behindAnotherTest)
  }

  /// Records `observation` for `looks` looks, the main queue's thread able to run if
  /// `threadRuns`; answers the number of the look that fired, if any.
  func look(
    _ state: inout MainQueueWatchState<String>, _ observation: MainQueueObservation, looks: Int,
    afterGapAt gap: Int? = nil, threadRuns: Bool = false
  ) -> Int? {
    for number in 1...looks {
      let fired = state.record(
        [(key, observation)], afterGap: number == gap, threadRuns: threadRuns)
      if !fired.isEmpty { return number }
    }
    return nil
  }

  @Test func aPumpBlockThatDoesNotStartFiresAtTheFourthLook() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen(started: 7))
    let fired = state.record([(key, seen(started: 7))], afterGap: false)
    #expect(fired.isEmpty)
    #expect(look(&state, seen(started: 7), looks: 10) == 3)
    #expect(state.isEmpty)
  }

  @Test func itFiresWithTheCountOfBlocksStarted() {
    var state = MainQueueWatchState<String>(looksToFire: 1)
    state.add(key, "test", first: seen(started: 3))
    let fired = state.record([(key, seen(started: 3))], afterGap: false)
    #expect(fired.map(\.payload) == ["test"])
    #expect(fired.map(\.pumpBlocksStarted) == [3])
  }

  @Test func aMainQueueThatMovesStartsTheCountAgain() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    #expect(look(&state, seen(), looks: 3) == nil)
    #expect(look(&state, seen(started: 1), looks: 1) == nil)
    #expect(look(&state, seen(started: 1), looks: 10) == 4)
  }

  /// The main queue runs other tests' blocks, queued ahead of this test's pump block: busy,
  /// not stalled. (Beside a whole parallel suite on two busy cores, a `@MainActor` test's
  /// pump block waited more than a second behind them, and was reported as a stall.)
  @Test func aMainQueueBusyWithOtherTestsWorkNeverFires() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    for look in 1...20 {
      #expect(state.record([(key, seen(byAnyTest: look))], afterGap: false).isEmpty)
    }
    #expect(look(&state, seen(byAnyTest: 20), looks: 10) == 4)
  }

  /// The main thread runs a job of another test that does not end (it blocks the main
  /// thread): that test's own watch reports it, so this one waits four times as long before
  /// reporting the stall as well. (In Tempo's own parallel suite, on a loaded machine, a
  /// `@MainActor` test beside one that blocks the main queue on purpose reported a stall.)
  @Test func aStallBehindAnotherTestsJobFiresFourTimesLater() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    let behind = seen(behindAnotherTest: true)
    state.add(key, "test", first: behind)
    #expect(Guesses.mainQueueLooksBehindAnotherTest == 4)
    #expect(look(&state, behind, looks: 30) == 16)
    #expect(state.isEmpty)
  }

  /// The other test's job ends and the main thread stays blocked, now by something of no
  /// other test: the count starts again, at the usual number of looks.
  @Test func aStallThatIsNoLongerBehindAnotherTestFiresAtTheUsualCount() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen(behindAnotherTest: true))
    #expect(look(&state, seen(behindAnotherTest: true), looks: 10) == nil)
    // The look that sees the change starts the count; four more fire.
    #expect(look(&state, seen(), looks: 10) == 5)
  }

  /// The main queue stands still while the thread that drains it could run: the process is
  /// starved (a ThreadSanitizer run on two loaded cores went more than a second without
  /// running a block the main queue held, and a test was told its main queue had stalled), or
  /// the thread is busy with blocks that are not Tempo's. Reported ten times later, for a
  /// main thread that spins for ever.
  @Test func aMainQueueWhoseThreadCouldRunFiresTenTimesLater() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    #expect(Guesses.mainQueueLooksWhileItsThreadRuns == 10)
    #expect(look(&state, seen(), looks: 100, threadRuns: true) == 40)
  }

  /// Behind another test's job, with the thread able to run: both waits, one on the other.
  @Test func aStarvedMainQueueBehindAnotherTestFiresLaterStill() {
    var state = MainQueueWatchState<String>(looksToFire: 1)
    let behind = seen(behindAnotherTest: true)
    state.add(key, "test", first: behind)
    #expect(look(&state, behind, looks: 100, threadRuns: true) == 40)
  }

  /// Only looks in a row that find the thread waiting in the kernel fire at the usual count: a
  /// look that finds it able to run starts that count again, not the longer one.
  @Test func aLookThatFindsTheThreadAbleToRunStartsTheBlockedCountAgain() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    #expect(look(&state, seen(), looks: 3) == nil)
    #expect(look(&state, seen(), looks: 1, threadRuns: true) == nil)
    #expect(look(&state, seen(), looks: 10) == 4)
  }

  /// The longer count is of every look the queue stood still, whatever the thread did.
  @Test func aThreadThatWaitsAtTimesIsReportedAfterTheLongerCountAtMost() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    for look in 1...39 {
      let fired = state.record([(key, seen())], afterGap: false, threadRuns: look % 3 != 0)
      #expect(fired.isEmpty)
    }
    #expect(look(&state, seen(), looks: 1, threadRuns: true) == 1)
  }

  @Test func noPumpBlockQueuedNeverFires() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen(queued: 0))
    #expect(look(&state, seen(queued: 0), looks: 20) == nil)
    #expect(!state.isEmpty)
  }

  @Test func aTestNoLongerWaitedForIsDropped() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    #expect(look(&state, seen(waited: false), looks: 1) == nil)
    #expect(state.isEmpty)
  }

  @Test func aGapInTheLooksStartsTheCountAgain() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    #expect(look(&state, seen(), looks: 10, afterGapAt: 3) == 7)
  }

  @Test func aTestMayFireAfterFewerLooks() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen(queued: 0), looksToFire: 1)
    #expect(look(&state, seen(), looks: 10) == 2)  // the first look sees the block queued
  }

  @Test func addingATestWatchedAlreadyKeepsItsCount() {
    var state = MainQueueWatchState<String>(looksToFire: 4)
    state.add(key, "test", first: seen())
    #expect(look(&state, seen(), looks: 3) == nil)
    state.add(key, "again", first: seen())
    let fired = state.record([(key, seen())], afterGap: false)
    #expect(fired.map(\.payload) == ["test"])
  }
}

/// Whose work the main queue runs, as the watch of another test reads it.
@Suite struct MainQueueWorkTests {
  /// A main-actor job of a test is its executor's work, and another executor's watch reads it
  /// as another test's. (Read on the main thread, which runs this test's job now.)
  @MainActor @Test func aMainActorJobOfATestIsItsOwnExecutorsWork() async {
    await Self.expectTheScopesJobIsItsOwn()
  }

  /// A scope opened in a main-actor job of no test runs its body in a job of its own executor,
  /// also while a task of another test prefers Tempo's task executor (`controlSystemSleeps { }`
  /// beside it). The scope's start pushes a preference of its own to leave that job
  /// (`rejoin()`), and that switch is not taken in place, in the job it leaves. (It was, while
  /// any task preferred the stand-in: the body ran on in a job of no test, and
  /// `aMainActorJobOfATestIsItsOwnExecutorsWork` failed in one run of the suite in two.)
  @MainActor @Test func aScopeLeavesAJobOfNoTestBesideAPreference() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    TestExecutor.tasksPreferring.add(1, ordering: .relaxed)
    defer { TestExecutor.tasksPreferring.subtract(1, ordering: .relaxed) }
    // Another test's executor is open: the hooks are in, and a task started now runs its
    // main-actor jobs through Tempo's main executor, as jobs of no test.
    let another = await Task.detached { TestExecutor() }.value
    defer { another.close() }
    let ranInItsExecutorsJob = await Task { @MainActor in
      await withTestExecutor {
        let runsIn = RunningJob.executor
        return runsIn != nil && runsIn === TestExecutor.openScope
      }
    }.value
    #expect(ranInItsExecutorsJob, "the body ran on in the job of no test it began in")
  }

  /// A main-actor job of a test that does not use Tempo, run while another test's executor is
  /// open (so that it comes through Tempo's main executor), is not that executor's work: a test
  /// stuck behind it waits four times as long before it reports the main queue stalled, as
  /// behind another test's job. (Read as no test's, a long synchronous `@MainActor` test would
  /// make a `@MainActor` test beside it report a stall of its own after a second.)
  @MainActor @Test func aMainActorJobOfNoTestIsAnotherTestsWork() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let other = await Task.detached { TestExecutor() }.value
    defer { other.close() }
    let read = await Task { @MainActor in
      (
        ofNoTest: RunningJob.executor == nil,
        isAnothers: MainQueueActivity.runsWork(ofAnotherTestThan: other),
        isBehind: other.mainQueueObservation.isBehindAnotherTest
      )
    }.value
    #expect(read.ofNoTest, "the job ran as a test's")
    #expect(read.isAnothers)
    #expect(read.isBehind)
  }

  /// A job of a `@MainActor` test that its executor runs in a pump block on the main queue (a
  /// task of the test with no isolation) is that test's work, as its main-actor jobs are.
  @MainActor @Test func aJobInAPumpBlockIsItsTestsWork() async {
    await withTestExecutor {
      guard let mine = TestExecutor.openScope, mine.pumpsOnMainQueue else {
        Issue.record("the scope has no executor, or pumps elsewhere than on the main queue")
        return
      }
      let other = TestExecutor()
      defer { other.close() }
      let read = await Task.detached {
        (
          inAPumpBlock: RunningJob.executor === mine && RuntimeHooks.isOnMainQueue,
          isMine: !MainQueueActivity.runsWork(ofAnotherTestThan: mine),
          isAnothers: MainQueueActivity.runsWork(ofAnotherTestThan: other)
        )
      }.value
      #expect(read.inAPumpBlock, "the job did not run in a pump block of the scope's executor")
      #expect(read.isMine)
      #expect(read.isAnothers)
    }
  }

  @MainActor static func expectTheScopesJobIsItsOwn() async {
    await withTestExecutor {
      guard let mine = TestExecutor.openScope else {
        Issue.record("the scope has no executor")
        return
      }
      let other = TestExecutor()
      defer { other.close() }
      #expect(!MainQueueActivity.runsWork(ofAnotherTestThan: mine))
      #expect(MainQueueActivity.runsWork(ofAnotherTestThan: other))
      #expect(other.mainQueueObservation.isBehindAnotherTest)
      #expect(!mine.mainQueueObservation.isBehindAnotherTest)
    }
  }
}

/// Lets the main queue run until the advance waits for the test's work, and the backstop its
/// draining armed has fired and its pump (if any) has started: from then on only a pump on the
/// main queue runs a job of the test (a backstop's pump runs the queue, whoever waits, on a
/// thread of its own). The caller stays on the main actor
/// throughout, so that nothing of its own runs between the last look and its next step.
@MainActor private func untilTheAdvanceWaits(on executor: TestExecutor) async {
  let giveUpAt = DispatchTime.now() + .seconds(60)
  while !executor.mainQueueObservation.isWaitedFor || executor.isBackstopPending {
    guard DispatchTime.now() < giveUpAt else {
      Issue.record("the advance never waited")
      return
    }
    await Task.yield()
  }
}

/// `@MainActor` tests whose main queue runs, and ones whose main queue is blocked. The main
/// queue is the whole process's: a test that blocks it runs in a process of its own, so that
/// the tests beside it never see a main queue that does not run (for as long as the blocked
/// one waits on a loaded machine, every `@MainActor` test of the process would wait, and any
/// watch of theirs would report it). Their watch fires after one look unchanged instead of four.
@Suite struct MainQueueStallTests {
  /// A main-actor job of the test waits synchronously for async work of the test, which is
  /// pumped on the main queue behind it: without Tempo's watch, a deadlock. The advance that
  /// waits for that work reports it at its line, the work runs off the main queue, and the
  /// test goes on.
  @Test func aSynchronousWaitForAsyncWorkOnTheMainActorIsReportedAndTheWorkRuns() async {
    let result = await #expect(
      processExitsWith: .success, observing: [\.standardErrorContent]
    ) {
      await Self.aSynchronousWaitForAsyncWorkOnTheMainActor()
    }
    #expect(!standardError(of: result).contains("Fatal error"), "\(standardError(of: result))")
  }

  @MainActor private static func aSynchronousWaitForAsyncWorkOnTheMainActor() async {
    let clock = TestClock()
    let ran = Log<String>()
    let issues = await countingIssues {
      let blocker = Task { @MainActor in
        try? await clock.sleep(for: .seconds(1))
        guard let executor = TestExecutor.ofCurrentTest else {
          preconditionFailure("the task has no executor")
        }
        await untilTheAdvanceWaits(on: executor)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
          ran.append("pumped")
          done.signal()
        }
        // Bounded only so that a failure of this test does not hang the suite.
        precondition(
          done.wait(timeout: .now() + .seconds(60)) == .success,
          "the work waited for never ran")
      }
      await TestExecutor.$mainQueueLooksToFire.withValue(1) {
        await clock.advance(by: .seconds(1))
      }
      await blocker.value
    }
    precondition(issues.count == 1, "\(issues)")
    precondition(issues.allSatisfy { $0.contains("the main queue") }, "\(issues)")
    precondition(ran.values == ["pumped"], "\(ran.values)")
    precondition(clock.now == .init(offset: .seconds(1)), "\(clock.now)")
  }

  /// A main-actor job of the test blocks the main thread, on something that is not the test's
  /// work (as XCTest's `wait(for:)` does), after the advance has begun to wait for that work.
  /// The advance reports it, at its line, and goes on; the blocking job waits for that report,
  /// so the test then ends as it would have.
  @Test func aMainQueueThatDoesNotRunIsReportedAndTheAdvanceReturns() async {
    let result = await #expect(
      processExitsWith: .success, observing: [\.standardErrorContent]
    ) {
      await Self.aMainQueueThatDoesNotRun()
    }
    #expect(!standardError(of: result).contains("Fatal error"), "\(standardError(of: result))")
  }

  @MainActor private static func aMainQueueThatDoesNotRun() async {
    let clock = TestClock()
    let reported = DispatchSemaphore(value: 0)
    let ran = Log<String>()
    // The main queue's thread waits in the kernel when the stall is reported: it was read as
    // blocked, not starved.
    let issues = await countingIssues(whenReported: {
      precondition(
        !MainQueueActivity.drainerRuns, "the blocked main queue's thread reads as running")
      reported.signal()
    }) {
      let blocker = Task { @MainActor in
        try? await clock.sleep(for: .seconds(1))
        guard let executor = TestExecutor.ofCurrentTest else {
          preconditionFailure("the task has no executor")
        }
        await untilTheAdvanceWaits(on: executor)
        // Work of the test that only a pump block on the main queue runs, queued behind this
        // job, which blocks the main thread until the advance has reported.
        Task.detached { ran.append("pumped") }
        reported.wait()
      }
      await TestExecutor.$mainQueueLooksToFire.withValue(1) {
        await clock.advance(by: .seconds(1))
      }
      await blocker.value
    }
    precondition(issues.count == 1, "\(issues)")
    precondition(
      issues.allSatisfy { $0.contains("the main queue") && $0.contains("wait(for:)") },
      "\(issues)")
    precondition(ran.values == ["pumped"], "\(ran.values)")
    precondition(clock.now == .init(offset: .seconds(1)), "\(clock.now)")
    // The main queue moves again: nothing stays stalled.
    precondition(TestExecutor.ofCurrentTest?.isMainQueueStalled == false, "still stalled")
  }

  /// The same test whose main queue runs: its work is pumped there, and nothing is reported.
  @MainActor @Test func aMainQueueThatRunsIsNeverReported() async {
    let clock = TestClock()
    let ran = Log<String>()
    let issues = Log<String>()
    // Any issue is recorded here instead of failing the test, for the expectation below.
    await withKnownIssue(isIntermittent: true) {
      for _ in 0..<3 {
        Task { @MainActor in
          try? await clock.sleep(for: .seconds(1))
          Task.detached { ran.append("pumped") }
          await Task.yield()
        }
        await clock.advance(by: .seconds(1))
      }
    } matching: { issue in
      issues.append(String(describing: issue))
      return true
    }
    #expect(issues.values == [])
    #expect(ran.values.count == 3)
    let pumps = TestExecutor.ofCurrentTest.map { $0.mainQueueObservation }
    #expect(pumps?.pumpBlocksQueued == 0)
    #expect((pumps?.pumpBlocksStarted ?? 0) > 0)
  }
}

/// The main-queue watch holds each executor it follows, and with it the tasks that executor
/// retains: it lets go of an executor as the executor closes, not at its next look.
@Suite struct MainQueueWatchLifetimeTests {
  /// A `@MainActor` scope followed on the main queue is followed no more once it has closed.
  /// (Held until the next look, a quarter of a second later, the executors of the `@MainActor`
  /// tests run back to back meanwhile raised MemoryGrowth's `main` form by about 50 MB.)
  @MainActor @Test func aClosedExecutorIsFollowedNoMore() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    var executor: TestExecutor?
    await withTestExecutor {
      executor = TestExecutor.current
      guard let executor else { return }
      // As an advance that does not find its test quiet at once starts it.
      HangWatch.shared.watchMainQueue(of: executor)
      #expect(HangWatch.shared.watchesMainQueue(of: executor))
    }
    guard let executor else {
      Issue.record("the scope opened no executor")
      return
    }
    #expect(!HangWatch.shared.watchesMainQueue(of: executor))
  }
}
