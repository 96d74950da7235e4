import Foundation
import TempoClocks
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

@testable import TempoCore
@testable import TempoSchedulers

/// `run()` with work that never ends returns promptly, in and out of a test executor, and says
/// what is still pending, as times since the start.
///
/// The real-time guard is shortened to 50 ms here (`RunBudget.realTimeLimit`), except in the one
/// test that checks the default half second.
@Suite struct BoundedRunTests {
  /// A repeating timer nobody cancels: the count of actions stops it at the same step every
  /// time (here after 1,000 more actions than were pending, instead of 100,000).
  @Test func aSyncSchedulerRunStopsARunawayTimerByItsCountOfActions() {
    let scheduler = DispatchQueue.test
    var count = 0
    let timer = scheduler.schedule(
      after: scheduler.now.advanced(by: .milliseconds(100)), interval: .milliseconds(100)
    ) { count += 1 }
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) {}
    expectIssues(
      "TestScheduler stopped running after 1002 actions: 1 still pending, due at 100.2 "
        + "seconds since the scheduler's start (now is 100.1 seconds since the scheduler's "
        + "start)."
    ) {
      RunBudget.$realTimeLimit.withValue(.seconds(600)) {
        RunBudget.$extraActions.withValue(1_000) { scheduler.run() }
      }
    }
    #expect(count == 1_001)
    timer.cancel()
  }

  @Test func aSyncTimelineRunStopsARunawayTimerOnAnySource() {
    let time = TestTimeline()
    let runLoop = RunLoop.test(timeline: time)
    let mainQueue = DispatchQueue.test(timeline: time)
    let timer = runLoop.schedule(after: runLoop.now.advanced(by: 1), interval: 1) {}
    mainQueue.schedule(after: mainQueue.now.advanced(by: .nanoseconds(600))) {}
    expectIssues(
      "TestTimeline stopped running after 1002 actions: 1 still pending, due at 1002.0 "
        + "seconds (now is 1001.0 seconds)."
    ) {
      RunBudget.$realTimeLimit.withValue(.seconds(600)) {
        RunBudget.$extraActions.withValue(1_000) { time.run() }
      }
    }
    timer.cancel()
  }

  /// The guard's half second, driven by a clock moved by hand (`RunBudget.realTime`): real time
  /// is read when the first action beyond those pending starts the guard, and every sixteenth
  /// action after. With each read 100 ms after the one before, the sixth read is the first at
  /// the limit: the run stops at its 80th action, whatever the machine's speed.
  @Test func aSyncRunSpendsHalfASecondOfRealTimeOnWorkThatNeverEnds() {
    let scheduler = DispatchQueue.test
    var fired = 0
    let timer = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) {
      fired += 1
    }
    let reads = LockedBox(0)
    let start = ContinuousClock.Instant.now
    let handMoved: @Sendable () -> ContinuousClock.Instant = {
      let read = reads.withLock { count in
        defer { count += 1 }
        return count
      }
      return start.advanced(by: .milliseconds(100) * read)
    }
    expectIssues("TestScheduler stopped running after 80 actions and 0.5 seconds of real time") {
      RunBudget.$realTime.withValue(handMoved) { scheduler.run() }
    }
    #expect(reads.withLock { $0 } == 6)
    #expect(fired == 80)
    timer.cancel()
  }

  /// Synchronous work stopped by the real-time guard, which a slow machine reaches before the
  /// count of actions.
  @Test func aSyncRunStopsByTheGuardToo() {
    let scheduler = DispatchQueue.test
    let timer = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) {}
    expectIssues("actions and 0.0 seconds of real time: 1 still pending, due at") {
      RunBudget.$realTimeLimit.withValue(.zero) { scheduler.run() }
    }
    timer.cancel()
  }

  /// The default guard: a task that sleeps for a second in a loop until it is cancelled, run
  /// without a wrapper, where each step takes several rounds through the executors. The message
  /// says the half-second guard stopped the run; alone, it returns in about 0.55 s. The wall-time
  /// bound only catches a run that no guard stops (before the guard, 83 s to over 900 s): a
  /// test process whose concurrency pool is held by long synchronous tests (the model tests run
  /// for seconds in a debug build) can leave any async test waiting for seconds.
  @Test func anAsyncClockRunWithoutAWrapperIsStoppedByItsGuard() async {
    let clock = TestClock()
    let sleeper = Task {
      while !Task.isCancelled { try? await clock.sleep(for: .seconds(1)) }
    }
    await waitUntil { clock.pendingWorkCount == 1 }
    let started = ContinuousClock.now
    await expectIssues("actions and 0.5 seconds of real time: 1 still pending, due at") {
      await clock.run()
    }
    #expect(ContinuousClock.now - started < .seconds(30))
    sleeper.cancel()
    await sleeper.value
  }

  @Test func anAsyncClockRunInAnExecutorStops() async {
    await withTestExecutor {
      await RunBudget.$realTimeLimit.withValue(.milliseconds(50)) {
        let clock = TestClock()
        let sleeper = Task {
          while !Task.isCancelled { try? await clock.sleep(for: .seconds(1)) }
        }
        await clock.advance()
        await expectIssues("1 still pending, due at") {
          await clock.run()
        }
        sleeper.cancel()
        await sleeper.value
      }
    }
  }

  @Test(arguments: [false, true])
  func anAsyncSchedulerRunStops(inExecutor: Bool) async {
    await runEither(inExecutor: inExecutor) {
      let scheduler = DispatchQueue.test
      let sleeper = Task {
        while !Task.isCancelled { try? await scheduler.sleep(for: .seconds(1)) }
      }
      await waitUntil { scheduler.pendingWorkCount == 1 }
      await expectIssues("1 still pending, due at") {
        await scheduler.run()
      }
      sleeper.cancel()
      await sleeper.value
    }
  }

  @Test(arguments: [false, true])
  func anAsyncTimelineRunStops(inExecutor: Bool) async {
    await runEither(inExecutor: inExecutor) {
      let time = TestTimeline()
      let clock = TestClock(timeline: time)
      let runLoop = RunLoop.test(timeline: time)
      let timer = runLoop.schedule(after: runLoop.now.advanced(by: 1), interval: 1) {}
      let sleeper = Task {
        while !Task.isCancelled { try? await clock.sleep(for: .seconds(1)) }
      }
      await waitUntil { time.pendingWorkCount == 2 }
      await expectIssues("2 still pending, due at") {
        await time.run()
      }
      sleeper.cancel()
      await sleeper.value
      timer.cancel()
    }
  }

  @Test func anAsyncClockRunOnATimelineOutsideAnExecutorStops() async {
    await RunBudget.$realTimeLimit.withValue(.milliseconds(50)) {
      let time = TestTimeline()
      let clock = TestClock(timeline: time)
      let sleeper = Task {
        while !Task.isCancelled { try? await clock.sleep(for: .seconds(1)) }
      }
      await waitUntil { clock.pendingWorkCount == 1 }
      await expectIssues("1 still pending, due at") {
        await clock.run()
      }
      sleeper.cancel()
      await sleeper.value
    }
  }

  /// An explicit limit is a count of actions alone.
  @Test func anExplicitLimitCountsActionsOnly() {
    let scheduler = DispatchQueue.test
    var count = 0
    let timer = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) {
      count += 1
    }
    expectIssues("stopped running after 5000 actions: 1 still pending, due at 5001.0") {
      RunBudget.$realTimeLimit.withValue(.zero) { scheduler.run(limit: 5_000) }
    }
    #expect(count == 5_000)
    timer.cancel()
  }

  /// Finite work pending when `run` begins is never cut short by the guard, however long it
  /// takes: the clock starts once that work is done.
  @Test func workPendingAtTheStartIsNotCutShortByTheGuard() {
    let scheduler = DispatchQueue.test
    var count = 0
    for index in 0..<1_000 {
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(index))) { count += 1 }
    }
    RunBudget.$realTimeLimit.withValue(.zero) { scheduler.run() }
    #expect(count == 1_000)
  }

  private func runEither(inExecutor: Bool, _ body: () async -> Void) async {
    await RunBudget.$realTimeLimit.withValue(.milliseconds(50)) {
      if inExecutor {
        await withTestExecutor { await body() }
      } else {
        await body()
      }
    }
  }
}
