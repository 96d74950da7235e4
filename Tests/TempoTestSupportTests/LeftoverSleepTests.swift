import Foundation
import TempoClocks
@_spi(TempoInternals) import TempoExecutor
import TempoSchedulers
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

// A sleep left pending ends with its test: after the report, it throws CancellationError into
// its task, which is cancelled, and the end waits for that task to finish, so that its `catch`
// runs inside the test and nothing of it wakes into a later one. A task that does not finish
// when cancelled is named, and a loop that ignores cancellation parks rather than spinning.

/// How a test's end is seen: a `withTestExecutor` scope, or the `.testExecutor` trait.
enum TestEnd: String, CaseIterable, Sendable {
  case scope
  case trait

  /// Runs `body` as a test ending this way, with `leftoverWork`.
  func run(
    leftoverWork: LeftoverWork, _ body: @escaping @Sendable () async throws -> Void
  ) async throws {
    switch self {
    case .scope:
      try await withTestExecutor(leftoverWork: leftoverWork) { try await body() }
    case .trait:
      let test = try #require(Test.current)
      try await TestExecutorTrait(leftoverWork: leftoverWork).provideScope(
        for: test, testCase: Test.Case.current, performing: body)
    }
  }
}

/// A task that sleeps on `sleep`, logging how the sleep ended and when the task finished.
private func sleeper(
  _ log: Log<String>, _ sleep: @escaping @Sendable () async throws -> Void
) -> Task<Void, Never> {
  Task {
    do {
      try await sleep()
      log.append("woke")
    } catch is CancellationError {
      log.append("threw CancellationError, cancelled: \(Task.isCancelled)")
    } catch {
      log.append("threw \(error)")
    }
    log.append("finished")
  }
}

private let endedInside = ["threw CancellationError, cancelled: true", "finished", "test ended"]

@Suite struct LeftoverSleepTests {
  @Test(arguments: TestEnd.allCases)
  func aSleepOnATestClockEndsInsideItsTest(end: TestEnd) async throws {
    let log = Log<String>()
    try await end.run(leftoverWork: .ignore) {
      let clock = TestClock()
      _ = sleeper(log) { try await clock.sleep(for: .seconds(5)) }
      await clock.advance(by: .seconds(2))
      #expect(log.values == [], "still asleep at 2 s of 5")
    }
    log.append("test ended")
    #expect(log.values == endedInside)
  }

  @Test(arguments: TestEnd.allCases)
  func aSleepOnATestSchedulerEndsInsideItsTest(end: TestEnd) async throws {
    let log = Log<String>()
    try await end.run(leftoverWork: .ignore) {
      let scheduler = DispatchQueue.test
      _ = sleeper(log) { try await scheduler.sleep(for: .seconds(5)) }
      await scheduler.advance(by: .seconds(2))
    }
    log.append("test ended")
    #expect(log.values == endedInside)
  }

  @Test(arguments: TestEnd.allCases)
  func aSleepOnAnErasedSchedulerOfASharedTimelineEndsInsideItsTest(end: TestEnd) async throws {
    let log = Log<String>()
    try await end.run(leftoverWork: .ignore) {
      let time = TestTimeline()
      let mainQueue = DispatchQueue.test(timeline: time).eraseToAnyScheduler()
      let clock = TestClock(timeline: time)
      _ = sleeper(log) { try await mainQueue.sleep(for: .seconds(5)) }
      _ = sleeper(log) { try await clock.sleep(for: .seconds(3)) }
      await time.advance(by: .seconds(2))
    }
    log.append("test ended")
    #expect(
      log.values == [
        "threw CancellationError, cancelled: true", "finished",
        "threw CancellationError, cancelled: true", "finished", "test ended",
      ])
  }

  /// The report comes first, naming the sleep as it was; the sleep ends after it.
  @Test(arguments: TestEnd.allCases)
  func theReportNamesTheSleepThenItEnds(end: TestEnd) async throws {
    let log = Log<String>()
    try await expectIssues("due at 5.0 seconds on TestClock") {
      try await end.run(leftoverWork: .fail) {
        let clock = TestClock()
        _ = sleeper(log) { try await clock.sleep(for: .seconds(5)) }
        await clock.advance(by: .seconds(2))
      }
    }
    log.append("test ended")
    #expect(log.values == endedInside)
  }

  /// A loop that checks for cancellation ends, since its task is cancelled, not only its sleep.
  @Test(arguments: TestEnd.allCases)
  func aPollingLoopEndsWithItsTest(end: TestEnd) async throws {
    let log = Log<String>()
    try await end.run(leftoverWork: .ignore) {
      let clock = TestClock()
      Task {
        while !Task.isCancelled {
          try? await clock.sleep(for: .seconds(1))
        }
        log.append("finished")
      }
      await clock.advance(by: .seconds(3))
    }
    log.append("test ended")
    #expect(log.values == ["finished", "test ended"])
  }

  /// A task that sleeps again after cancellation, ignoring it, is named; its next sleep parks
  /// instead of throwing at once, so that the loop does not spin into later tests.
  @Test(arguments: TestEnd.allCases)
  func aLoopThatIgnoresCancellationIsNamedAndParks(end: TestEnd) async throws {
    let turns = Log<Int>()
    let loop = LockedBox<Task<Void, Never>?>(nil)
    try await expectIssues("The task of the sleep due at 1.0 seconds on TestClock") {
      try await end.run(leftoverWork: .fail) {
        let clock = TestClock()
        let task = Task {
          var turn = 0
          while turn >= 0 {
            try? await clock.sleep(for: .seconds(1))
            turn += 1
            turns.append(turn)
          }
        }
        loop.withLock { $0 = task }
      }
    }
    // Once as its sleep threw, then parked: no turn since, however long later tests run.
    #expect(turns.values == [1])
    await withTestExecutor {
      let clock = TestClock()
      await clock.advance(by: .seconds(10))
    }
    #expect(turns.values == [1])
    #expect(loop.withLock { $0?.isCancelled } == true)
  }

  /// A task that goes on to wait on something that ignores cancellation is named, not waited
  /// for.
  @Test(arguments: TestEnd.allCases)
  func aTaskThatWaitsOnSomethingElseIsNamed(end: TestEnd) async throws {
    let gate = Gate()
    let log = Log<String>()
    try await expectIssues("The task of the sleep due at 5.0 seconds on TestClock") {
      try await end.run(leftoverWork: .fail) {
        let clock = TestClock()
        Task {
          try? await clock.sleep(for: .seconds(5))
          log.append("waits")
          await gate.wait()
          log.append("finished")
        }
        await clock.advance()
      }
    }
    #expect(log.values == ["waits"])
    gate.open()
  }

  /// A check in the middle of a test reports, and ends nothing.
  @Test func expectNoLeftoverWorkEndsNoSleep() async {
    let log = Log<String>()
    await withTestExecutor(leftoverWork: .ignore) {
      let clock = TestClock()
      _ = sleeper(log) { try await clock.sleep(for: .seconds(5)) }
      await clock.advance(by: .seconds(1))
      await expectIssues("due at 5.0 seconds") {
        await expectNoLeftoverWork()
      }
      await clock.advance(by: .seconds(4))
      #expect(log.values == ["woke", "finished"])
    }
  }

  /// A test that throws has failed already: its sleeps end all the same, unreported.
  @Test func theSleepsOfATestThatThrowsEnd() async {
    struct Failed: Error {}
    let log = Log<String>()
    await #expect(throws: Failed.self) {
      try await withTestExecutor(leftoverWork: .fail) {
        let clock = TestClock()
        _ = sleeper(log) { try await clock.sleep(for: .seconds(5)) }
        await clock.advance(by: .seconds(1))
        throw Failed()
      }
    }
    log.append("test ended")
    #expect(log.values == endedInside)
  }

  /// A sleep cancelled by its own task still throws at once, and a task cancelled by the test
  /// itself (not by the end of a test) is never parked.
  @Test func aCancelledTaskThatSleepsThrowsAtOnce() async {
    let clock = TestClock()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      do {
        try await clock.sleep(for: .seconds(1))
        return "woke"
      } catch {
        return "\(type(of: error))"
      }
    }
    #expect(await task.value == "CancellationError")
  }

  /// Many tests in turn, each leaving a sleeper that holds an object: none of those objects
  /// outlives its test, so memory stays flat however many tests a process runs.
  @Test func leakyTestsLeaveNothingAlive() async {
    let alive = Counted.alive
    for _ in 0..<1_000 {
      await withTestExecutor(leftoverWork: .ignore) {
        let clock = TestClock()
        let held = Counted()
        Task {
          try? await clock.sleep(for: .seconds(5))
          withExtendedLifetime(held) {}
        }
        await clock.advance(by: .seconds(1))
      }
      #expect(Counted.alive == alive)
    }
  }
}

/// Something to wait on that ignores cancellation, until opened.
private final class Gate: Sendable {
  private let state = LockedBox<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiting.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }

  func open() {
    let waiting = state.withLock { state in
      defer { state = (true, []) }
      return state.waiting
    }
    for continuation in waiting { continuation.resume() }
  }
}

/// An object that counts how many of its kind are alive.
private final class Counted: Sendable {
  private static let count = LockedBox(0)
  static var alive: Int { count.withLock { $0 } }
  init() { Self.count.withLock { $0 += 1 } }
  deinit { Self.count.withLock { $0 -= 1 } }
}
