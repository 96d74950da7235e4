import Foundation
import TempoClocks
@_spi(TempoInternals) import TempoExecutor
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing
import XCTest

// Code that never took a clock: `Task.sleep` and the system clocks' sleeps, put on a test clock
// by `controlSystemSleeps()`. (Linux with Swift 6.3: the runtime hands these sleeps to the test
// executor; elsewhere the call warns, and the suite does not run.)

/// A model that waits with `Task.sleep` directly.
@MainActor private final class WelcomeModel {
  var message: String?
  func onAppear() async {
    do { try await Task.sleep(for: .seconds(5)) } catch { return }
    message = "Welcome!"
  }
}

/// Times read from `clock` as each attempt of a retry loop starts, sleeping 1 s, 2 s, 4 s with
/// `Task.sleep(nanoseconds:)` between.
private func retryTimes(on clock: TestClock<Duration>) async -> [Duration] {
  var times: [Duration] = []
  var backoff: UInt64 = 1_000_000_000
  for _ in 0..<4 {
    times.append(clock.now.offset)
    do { try await Task.sleep(nanoseconds: backoff) } catch { break }
    backoff *= 2
  }
  return times
}

private actor Counter {
  var value = 0
  func increment() { value += 1 }
}

/// An actor that polls in its own method, sleeping with `Task.sleep` and then with the
/// continuous clock: the sleeps the runtime sends to the task's preferred executor.
private actor Poller {
  var polls = 0
  func poll(times: Int) async {
    for round in 0..<times {
      if round.isMultiple(of: 2) {
        do { try await Task.sleep(for: .seconds(10)) } catch { return }
      } else {
        do { try await ContinuousClock().sleep(for: .seconds(10)) } catch { return }
      }
      polls += 1
    }
  }
}

/// Whether this build and system hand system sleeps to test executors.
var systemSleepsAreAvailable: Bool {
  guard #available(macOS 15.4, iOS 18.4, tvOS 18.4, watchOS 11.4, visionOS 2.4, *) else {
    return false
  }
  return SystemSleep.areAvailable
}

@Suite(.enabled(if: systemSleepsAreAvailable)) struct SystemSleepTests {
  @Test(.testExecutor) func aMainActorModelWakesAtItsDeadline() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    let model = WelcomeModel()
    let task = Task { await model.onAppear() }
    await clock.advance(by: .seconds(4))
    #expect(await model.message == nil)
    await clock.advance(by: .seconds(1))
    #expect(await model.message == "Welcome!")
    await task.value
  }

  /// The same from a `@MainActor` test, as the article writes it.
  @MainActor @Test(.testExecutor) func aMainActorTestDrivesAMainActorModel() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    let model = WelcomeModel()
    let task = Task { await model.onAppear() }
    await clock.advance(by: .seconds(4))
    #expect(model.message == nil)
    await clock.advance(by: .seconds(1))
    #expect(model.message == "Welcome!")
    await task.value
  }

  /// A main-actor job of a test whose clock controls system sleeps records when it began, so
  /// that a sleep's length is recovered over the whole job, not the millisecond kept for a job
  /// whose start is unknown: beside a loaded run, under ThreadSanitizer, a `@MainActor` model's
  /// one-second `Task.sleep` was read as 0.999 seconds.
  @MainActor @Test(.testExecutor) func aMainActorJobRecordsWhenItBegan() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    // A new main-actor job of the test's task, through the main executor.
    await Task { @MainActor in }.value
    #expect(TestExecutor.currentJobRecordsItsStart)
    withExtendedLifetime(clock) {}
  }

  @Test func aRetryLoopSleepsExactlyInAScope() async {
    let times = await withTestExecutor {
      let clock = TestClock()
      await clock.controlSystemSleeps()
      clock.automaticallyAdvances = true
      return await retryTimes(on: clock)
    }
    #expect(times == [.zero, .seconds(1), .seconds(3), .seconds(7)])
  }

  @Test func withoutAScopeTheTestsOwnSleepsAreVirtual() async throws {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    clock.automaticallyAdvances = true
    try await Task.sleep(for: .seconds(90))
    try await ContinuousClock().sleep(for: .milliseconds(250))
    try await SuspendingClock().sleep(for: .seconds(1))
    try await Task.sleep(until: .now + .seconds(2), clock: .continuous)
    #expect(clock.now.offset == .milliseconds(93_250))
  }

  @Test(.testExecutor) func sleepsWakeInDeadlineOrderWithTheClocksOwnSleepers() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    let order = Log<String>()
    let tasks = [
      Task {
        try? await Task.sleep(for: .seconds(2))
        order.append("system 2 s")
      },
      Task {
        try? await clock.sleep(for: .seconds(1))
        order.append("clock 1 s")
      },
      Task {
        try? await SuspendingClock().sleep(for: .seconds(3))
        order.append("suspending 3 s")
      },
    ]
    await clock.advance(by: .seconds(3))
    for task in tasks { await task.value }
    #expect(order.values == ["clock 1 s", "system 2 s", "suspending 3 s"])
  }

  @Test(.testExecutor) func aTimeoutRaceIsDecidedByTheClock() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    clock.automaticallyAdvances = true
    let winner = await withTaskGroup(of: String.self) { group in
      group.addTask {
        try? await Task.sleep(for: .seconds(2))
        return "timeout"
      }
      group.addTask {
        try? await clock.sleep(for: .seconds(1))
        return "work"
      }
      let first = await group.next()!
      group.cancelAll()
      return first
    }
    #expect(winner == "work")
    #expect(clock.now.offset == .seconds(1))
  }

  @Test(.testExecutor) func taskGroupChildrenAndActorsSleepOnTheClock() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    let counter = Counter()
    await withDiscardingTaskGroup { group in
      for seconds in 1...3 {
        group.addTask {
          try? await Task.sleep(for: .seconds(seconds))
          await counter.increment()
        }
      }
      await clock.advance(by: .seconds(2))
      #expect(await counter.value == 2)
      await clock.advance(by: .seconds(1))
    }
    #expect(await counter.value == 3)
  }

  @Test(.testExecutor) func aCancelledSleepThrowsAtOnceAndLeavesNothingPending() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    let task = Task { () -> Bool in
      do {
        try await Task.sleep(for: .seconds(60))
        return false
      } catch {
        return error is CancellationError
      }
    }
    await clock.advance()
    #expect(clock.pendingWorkCount == 1)
    task.cancel()
    #expect(await task.value)
    await clock.advance()
    #expect(clock.pendingWorkCount == 0)
    #expect(clock.now.offset == .zero)
  }

  @Test(.testExecutor) func reachedDeadlinesEndAtOnce() async throws {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    try await Task.sleep(for: .zero)
    try await Task.sleep(for: .seconds(-5))
    try await Task.sleep(nanoseconds: 0)
    try await Task.sleep(until: .now - .seconds(1), clock: .continuous)
    #expect(clock.now.offset == .zero)
    #expect(clock.pendingWorkCount == 0)
  }

  @Test(.testExecutor) func theLongestSleepIsPendingAndCancellable() async {
    let clock = TestClock()
    await clock.controlSystemSleeps()
    let task = Task { try? await Task.sleep(for: .seconds(Int64.max)) }
    await clock.advance()
    #expect(clock.pendingWorkCount == 1)
    task.cancel()
    await task.value
    await clock.advance(by: .seconds(1))
    #expect(clock.pendingWorkCount == 0)
  }

  @Test func aSleepLeftPendingIsReportedAndCancelledWhenTheTestEnds() async {
    var sleeper: Task<Bool, Never>?
    await expectIssues("- due at 30.0 seconds on TestClock: a system sleep (ContinuousClock)") {
      await withTestExecutor(leftoverWork: .fail) {
        let clock = TestClock()
        await clock.controlSystemSleeps()
        sleeper = Task {
          do {
            try await Task.sleep(for: .seconds(30))
            return false
          } catch {
            return error is CancellationError
          }
        }
        await clock.advance(by: .seconds(1))
      }
    }
    #expect(await sleeper?.value == true)
  }

  /// Its task finishes before the test ends, as a sleep on the clock's own does: its `catch`
  /// runs inside the test.
  @Test func aSleepLeftPendingEndsInsideItsTest() async {
    let log = Log<String>()
    await withTestExecutor(leftoverWork: .ignore) {
      let clock = TestClock()
      await clock.controlSystemSleeps()
      Task {
        do {
          try await Task.sleep(for: .seconds(30))
          log.append("woke")
        } catch {
          // On its way out, a hop to the main actor and back: the end waits for that too.
          let ended = "threw \(type(of: error)), cancelled: \(Task.isCancelled)"
          await MainActor.run {}
          log.append(ended)
        }
      }
      await clock.advance(by: .seconds(1))
    }
    log.append("test ended")
    #expect(log.values == ["threw CancellationError, cancelled: true", "test ended"])
  }

  /// A test that does not call `controlSystemSleeps()` sleeps in real time; its sleep is not
  /// the clock's (cancelled here, so that nothing waits for it).
  @Test(.testExecutor) func withoutControlSleepsStayReal() async {
    let clock = TestClock()
    let task = Task { () -> Bool in
      do {
        try await Task.sleep(for: .seconds(3_600))
        return false
      } catch {
        return true
      }
    }
    await clock.advance(by: .seconds(3_600))
    #expect(clock.pendingWorkCount == 0)
    task.cancel()
    #expect(await task.value)
  }

  /// A test that awaits a system sleep nobody advances is reported and let go, as for a sleep
  /// on the clock itself, except that the sleep returns early; the report is made as the
  /// test's executor closes, from the test.
  @Test func aSystemSleepNobodyAdvancesIsReportedAndEnded() async {
    var returned = false
    let issues = await countingIssues {
      await withTestExecutor {
        let clock = TestClock()
        await clock.controlSystemSleeps()
        returned = (try? await Task.sleep(for: .seconds(5))) != nil
        #expect(clock.now.offset == .zero)  // ended, not advanced
      }
    }
    #expect(returned)
    #expect(issues.count == 1)
    let report = issues.first ?? ""
    #expect(report.contains("The test is blocked on time"))
    #expect(report.contains("- due at 5.0 seconds on TestClock"))
    #expect(report.contains("(its time is 0.0 seconds): a system sleep (ContinuousClock)"))
    #expect(report.contains("it returned early instead"))
  }

  /// Inside `controlSystemSleeps { }`, an actor's own sleeps are on the clock: awaited by the
  /// test's task, an `async let` child and a task group's child, each advance wakes them at
  /// their deadline, `Task.sleep` and the continuous clock's alike. Without the closure, each
  /// would take its ten seconds of real time.
  @Test(.testExecutor, arguments: ["task", "async let", "group"])
  func anActorsOwnSleepsAreOnTheClockInsideTheClosure(awaitedBy awaiter: String) async {
    let clock = TestClock()
    let poller = Poller()
    let seen = LockedBox<[Int]>([])
    await clock.controlSystemSleeps {
      // Another task advances, while this one (or its child) waits in the actor's sleeps.
      let advances = Task {
        for _ in 0..<2 {
          await clock.advance(by: .seconds(10))
          let polls = await poller.polls
          seen.withLock { $0.append(polls) }
        }
      }
      switch awaiter {
      case "task":
        await poller.poll(times: 2)
      case "async let":
        async let polling: Void = poller.poll(times: 2)
        await polling
      default:
        await withDiscardingTaskGroup { group in group.addTask { await poller.poll(times: 2) } }
      }
      await advances.value
    }
    #expect(seen.withLock { $0 } == [1, 2])
    #expect(clock.now.offset == .seconds(20))
  }

  /// The same, on the main actor, with the clock advancing by itself: the test's task waits in
  /// the actor's sleeps, and time moves to each deadline.
  @MainActor @Test(.testExecutor) func anActorsSleepsAutoAdvanceOnTheMainActor() async {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    let poller = Poller()
    await clock.controlSystemSleeps { await poller.poll(times: 3) }
    #expect(await poller.polls == 3)
    #expect(clock.now.offset == .seconds(30))
  }

  /// An actor's sleep inside the closure is a sleeper of the clock: it is listed with the
  /// clock's pending work until an advance reaches it.
  @Test(.testExecutor) func anActorsSleepIsListedInsideTheClosure() async {
    let clock = TestClock()
    let poller = Poller()
    await clock.controlSystemSleeps {
      async let polling: Void = poller.poll(times: 1)
      // The advance waits for the child's sleep to arrive: a sleeper due at 10 s.
      await clock.advance(by: .seconds(1))
      #expect(clock.pendingWorkDescription.contains("a system sleep (ContinuousClock)"))
      await clock.advance(by: .seconds(9))
      await polling
      #expect(clock.pendingWorkDescription.contains("nothing pending"))
    }
    #expect(await poller.polls == 1)
  }

  /// A task that has just returned from an actor's method runs on with no task executor, so
  /// its sleep goes to the system's timers: the test is told, instead of waiting in vain.
  @Test func aSleepAfterAnActorCallIsReportedAsReal() async {
    let counter = Counter()
    var task: Task<Void, Never>?
    await expectIssues("sleeps in real time although its clock controls") {
      await withTestExecutor(leftoverWork: .ignore) {
        let clock = TestClock()
        await clock.controlSystemSleeps()
        task = Task {
          await counter.increment()
          try? await Task.sleep(for: .seconds(3_600))
        }
        await clock.advance(by: .seconds(1))
        await clock.advance(by: .seconds(1))  // reported once
      }
    }
    task?.cancel()
    await task?.value
  }

  /// The length is the roundest value between the delay left when the sleep arrived and that
  /// delay plus the time its job had run.
  @Test func lengthsAreTheRoundestInTheirWindow() {
    let micro = Duration.microseconds(1)
    #expect(SystemSleep.length(from: .seconds(5) - micro * 13, window: micro * 40) == .seconds(5))
    #expect(
      SystemSleep.length(from: .seconds(30) - .milliseconds(2), window: .milliseconds(3))
        == .seconds(30))
    #expect(
      SystemSleep.length(from: .milliseconds(1_234) - micro * 5, window: micro * 20)
        == .milliseconds(1_234))
    #expect(
      SystemSleep.length(from: .nanoseconds(1_234_566_700), window: .nanoseconds(500))
        == .microseconds(1_234_567))
    #expect(SystemSleep.length(from: .nanoseconds(1), window: .zero) == .nanoseconds(1))
    #expect(SystemSleep.length(from: .zero, window: .seconds(1)) == .zero)
    #expect(SystemSleep.length(from: .seconds(-3), window: .seconds(1)) == .zero)
    #expect(
      SystemSleep.length(from: .seconds(Int64.max), window: .milliseconds(1))
        == .seconds(Int64.max))
  }
}

/// The same in an XCTest test with no scope: the clock made in the test method opens the test's
/// executor, and `controlSystemSleeps()` moves the test's task onto it.
final class SystemSleepXCTests: XCTestCase {
  func testAModelCallingTaskSleepWakesAtItsDeadline() async throws {
    guard systemSleepsAreAvailable else { throw XCTSkip("system sleeps need Swift 6.3 on Linux") }
    let clock = TestClock()
    await clock.controlSystemSleeps()
    let model = WelcomeModel()
    let task = Task { await model.onAppear() }
    await clock.advance(by: .seconds(4))
    let before = await model.message
    XCTAssertNil(before)
    await clock.advance(by: .seconds(1))
    let after = await model.message
    XCTAssertEqual(after, "Welcome!")
    await task.value
  }

  func testARetryLoopWithTaskSleepNanosecondsRunsOnAutoAdvance() async throws {
    guard systemSleepsAreAvailable else { throw XCTSkip("system sleeps need Swift 6.3 on Linux") }
    let clock = TestClock()
    await clock.controlSystemSleeps()
    clock.automaticallyAdvances = true
    let times = await retryTimes(on: clock)
    XCTAssertEqual(times, [.zero, .seconds(1), .seconds(3), .seconds(7)])
  }
}
