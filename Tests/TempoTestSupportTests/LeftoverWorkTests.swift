import TempoClocks
import TempoExecutor
import TempoTestHelpers
import TempoTestSupport
import Testing
import XCTest

// The end of a test scope reports the work the test leaves behind: sleepers pending on its
// clocks, tasks it started that have not finished, background tasks that would not end; and
// says nothing when there is none, or when the check is off.

/// A continuation kept for later, so that a task can wait on something that is not time.
private final class Parked: @unchecked Sendable {
  // Invariant: `lock` guards `continuation`; it is resumed after unlocking.
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Void, Never>?

  func wait() async {
    await withCheckedContinuation { continuation in
      lock.withLock { self.continuation = continuation }
    }
  }

  var isWaiting: Bool { lock.withLock { continuation != nil } }

  func resume() {
    let continuation = lock.withLock {
      defer { self.continuation = nil }
      return self.continuation
    }
    continuation?.resume()
  }
}

@Suite struct LeftoverWorkTests {
  @Test func aPendingSleeperIsReportedWithItsDueTimeAndClock() async {
    var sleeper: Task<Void, Never>?
    await expectIssues(
      "due at 5.0 seconds on TestClock created at TempoTestSupportTests/LeftoverWorkTests.swift:"
    ) {
      await withTestExecutor(leftoverWork: .fail) {
        let clock = TestClock<Duration>(now: .init())
        sleeper = Task { try? await clock.sleep(for: .seconds(5)) }
        await clock.advance(by: .seconds(1))
      }
    }
    sleeper?.cancel()
    await sleeper?.value
  }

  @Test func aTaskWaitingOnSomethingElseIsReported() async {
    let parked = Parked()
    await expectIssues("A task started in the test has not finished") {
      await withTestExecutor(leftoverWork: .fail) {
        Task { await parked.wait() }
        await TestClock().advance()
      }
    }
    #expect(parked.isWaiting)
    parked.resume()
  }

  @Test func theDefaultIsAWarning() async {
    let parked = Parked()
    await expectIssues("(A warning: withTestExecutor(leftoverWork: .fail) makes it fail") {
      await withTestExecutor {
        Task { await parked.wait() }
        await TestClock().advance()
      }
    }
    parked.resume()
  }

  @Test func turnedOffNothingIsReported() async {
    let parked = Parked()
    var sleeper: Task<Void, Never>?
    do {
      await withTestExecutor(leftoverWork: .ignore) {
        let clock = TestClock()
        sleeper = Task { try? await clock.sleep(for: .seconds(5)) }
        Task { await parked.wait() }
        await clock.advance()
      }
    }
    sleeper?.cancel()
    parked.resume()
  }

  @Test func workThatEndsInTheTestLeavesNothing() async {
    do {
      await withTestExecutor(leftoverWork: .fail) {
        let clock = TestClock()
        // A finished task whose handle is still held is not running.
        let task = Task { try? await clock.sleep(for: .seconds(1)) }
        await clock.advance(by: .seconds(1))
        // A task that is runnable when the test's own work returns is let finish first.
        Task { _ = 1 + 1 }
        await task.value
      }
    }
  }

  @Test func backgroundWorkIsCancelledAndJoinedAtTheEnd() async {
    let ended = Log<String>()
    do {
      await withTestExecutor(leftoverWork: .fail) {
        let clock = TestClock()
        backgroundTask {
          while true {
            do { try await clock.sleep(for: .seconds(1)) } catch { break }
          }
          ended.append("poller")
        }
        await clock.advance(by: .seconds(3))
        #expect(ended.values.isEmpty)
      }
    }
    // Ended inside the scope, before its executor closed.
    #expect(ended.values == ["poller"])
  }

  @Test func backgroundWorkThatIgnoresCancellationIsReportedNotWaitedFor() async {
    let parked = Parked()
    await expectIssues(
      "The background task started at TempoTestSupportTests/LeftoverWorkTests.swift:"
    ) {
      await withTestExecutor(leftoverWork: .fail) {
        backgroundTask { await parked.wait() }
        await TestClock().advance()
      }
    }
    parked.resume()
  }

  @Test func backgroundTaskOutsideAScopeIsReported() async {
    await expectIssues("backgroundTask was called outside withTestExecutor") {
      await backgroundTask {}.value
    }
  }

  @Test func theOneLineCheckFailsWherePendingWorkIsLeft() async {
    let clock = TestClock()
    let sleeper = Task { try? await clock.sleep(for: .seconds(3)) }
    await expectIssues("due at 3.0 seconds on TestClock\n") {
      await expectNoLeftoverWork()
    }
    await clock.run()
    await sleeper.value
    await expectNoLeftoverWork()
  }
}

@Suite(.testExecutor(leftoverWork: .fail)) struct LeftoverWorkTraitTests {
  @Test func aTestThatEndsItsWorkPasses() async {
    let clock = TestClock()
    let task = Task { try? await clock.sleep(for: .seconds(1)) }
    await clock.run()
    await task.value
  }
}

/// The same report under XCTest: a failure at the scope's line, or nothing when turned off.
final class LeftoverWorkXCTests: XCTestCase {
  private let failures = Log<String>()

  // Failures are kept, not recorded: this test expects them.
  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
    expected: Bool
  ) {
    failures.append("\(filePath):\(lineNumber): \(description)")
  }

  func testAPendingSleeperFailsTheTest() async {
    let clock = TestClock()
    var sleeper: Task<Void, Never>?
    await withTestExecutor(leftoverWork: .fail) {
      sleeper = Task { try? await clock.sleep(for: .seconds(2)) }
      await clock.advance()
    }
    let line = #line - 4
    sleeper?.cancel()
    XCTAssertEqual(failures.values.count, 1)
    XCTAssert(failures.values.first?.contains("LeftoverWorkTests.swift:\(line): ") == true)
    XCTAssert(failures.values.first?.contains("due at 2.0 seconds on TestClock") == true)
  }

  func testTheDefaultWarningDoesNotFailTheTest() async {
    let clock = TestClock()
    var sleeper: Task<Void, Never>?
    await withTestExecutor {
      sleeper = Task { try? await clock.sleep(for: .seconds(2)) }
      await clock.advance()
    }
    sleeper?.cancel()
    XCTAssertEqual(failures.values, [])
  }

  func testTurnedOffNothingFails() async {
    let clock = TestClock()
    var sleeper: Task<Void, Never>?
    await withTestExecutor(leftoverWork: .ignore) {
      sleeper = Task { try? await clock.sleep(for: .seconds(2)) }
      await clock.advance()
    }
    sleeper?.cancel()
    XCTAssertEqual(failures.values, [])
  }
}

/// The trait reports at the test's declaration, as it says; turned off, it says nothing.
@Suite struct LeftoverWorkTraitReportTests {
  @Test func theTraitReportsLeftoverWorkAtTheTest() async throws {
    let parked = Parked()
    let test = try #require(Test.current)
    try await expectIssues("(.testExecutor(leftoverWork: .ignore) turns this check off") {
      try await TestExecutorTrait(leftoverWork: .fail).provideScope(
        for: test, testCase: Test.Case.current
      ) {
        Task { await parked.wait() }
      }
    }
    parked.resume()
  }

  @Test func theTraitTurnedOffSaysNothing() async throws {
    let parked = Parked()
    let test = try #require(Test.current)
    try await TestExecutorTrait.testExecutor(leftoverWork: .ignore).provideScope(
      for: test, testCase: Test.Case.current
    ) {
      Task { await parked.wait() }
    }
    parked.resume()
  }
}

// The examples of the article "Work left at the end of a test".

/// Ticks every second from start to stop.
@MainActor final class TimerModel {
  var ticks = 0
  private(set) var isTicking = false
  let clock: any Clock<Duration>
  private var timer: Task<Void, Never>?

  init(clock: any Clock<Duration>) { self.clock = clock }

  func startButtonTapped() {
    isTicking = true
    timer = Task {
      defer { isTicking = false }
      while true {
        do { try await clock.sleep(for: .seconds(1)) } catch { return }
        ticks += 1
      }
    }
  }

  func stopButtonTapped() { timer?.cancel() }
}

/// Polls every 30 seconds, for as long as it runs.
@MainActor final class FeedModel {
  var polls = 0
  let clock: any Clock<Duration>

  init(clock: any Clock<Duration>) { self.clock = clock }

  func pollForever() async {
    while true {
      do { try await clock.sleep(for: .seconds(30)) } catch { return }
      polls += 1
    }
  }
}

/// The model a test started, for the test to look at after its scope.
@MainActor private final class Started {
  var model: TimerModel?
}

@Suite struct LeftoverWorkArticleTests {
  @Test func stopTimerForgotten() async throws {
    let test = try #require(Test.current)
    let started = Started()
    try await expectIssues("- due at 4.0 seconds on TestClock\n") {
      try await TestExecutorTrait.testExecutor(leftoverWork: .fail).provideScope(
        for: test, testCase: Test.Case.current
      ) { @MainActor in
        let clock = TestClock()
        let model = TimerModel(clock: clock)
        started.model = model
        model.startButtonTapped()
        await clock.advance(by: .seconds(3))
        #expect(model.ticks == 3)
      }
    }
    // The end of the test ended the timer's sleep, and its task, before the scope returned.
    #expect(await started.model?.isTicking == false)
  }

  @MainActor @Test(.testExecutor(leftoverWork: .fail))
  func liveUpdates() async {
    let clock = TestClock()
    let model = FeedModel(clock: clock)
    backgroundTask { await model.pollForever() }
    await clock.advance(by: .seconds(30))
    #expect(model.polls == 1)
  }

  @MainActor @Test func stopTimer() async {
    let clock = TestClock()
    let model = TimerModel(clock: clock)
    model.startButtonTapped()
    await clock.advance(by: .seconds(3))
    model.stopButtonTapped()
    await expectNoLeftoverWork()
    #expect(model.ticks == 3)
  }
}
