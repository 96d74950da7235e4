import Foundation
import TempoClocks
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import Testing

// Time that moves by itself: each test awaits the code under test directly, with no advance,
// and checks the exact virtual times it saw.

/// Fetches, retrying after 1 s, 2 s and 4 s; records the time of each attempt.
private func fetchWithRetry(
  clock: TestClock<Duration>, attempts: Log<Duration>, failures: Int
) async throws -> String {
  var failed = 0
  for delay in [1, 2, 4] {
    attempts.append(clock.now.offset)
    if failed == failures { return "data" }
    failed += 1
    try await clock.sleep(for: .seconds(delay))
  }
  attempts.append(clock.now.offset)
  return "data"
}

/// Runs `work`, or throws after `timeout`, whichever ends first.
private func withTimeout<Value: Sendable>(
  _ timeout: Duration, clock: TestClock<Duration>,
  _ work: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  try await withThrowingTaskGroup(of: Value.self) { group in
    group.addTask { try await work() }
    group.addTask {
      try await clock.sleep(for: timeout)
      throw CancellationError()
    }
    defer { group.cancelAll() }
    return try await group.next()!
  }
}

/// Shows a welcome message five seconds after it appears.
@MainActor private final class WelcomeModel {
  var message: String?
  let clock: any Clock<Duration>
  init(clock: any Clock<Duration>) { self.clock = clock }

  func task() async {
    try? await clock.sleep(for: .seconds(5))
    message = "Welcome!"
  }
}

@Suite struct AutoAdvanceTests {
  @Test func aRetryWithBackoffReturnsAtOnceHavingSeenEachDelay() async throws {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    let attempts = Log<Duration>()
    let value = try await fetchWithRetry(clock: clock, attempts: attempts, failures: 3)
    #expect(value == "data")
    #expect(attempts.values == [.zero, .seconds(1), .seconds(3), .seconds(7)])
    #expect(clock.now.offset == .seconds(7))
  }

  @Test func aPollingLoopStopsAtTheExactPoll() async throws {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    var polls: [Duration] = []
    while polls.count < 4 {
      try await clock.sleep(for: .seconds(5))
      polls.append(clock.now.offset)
    }
    #expect(polls == [.seconds(5), .seconds(10), .seconds(15), .seconds(20)])
  }

  @Test func aTimeoutRaceEndsAtTheEarlierOfTheTwo() async throws {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    let fast = try await withTimeout(.seconds(5), clock: clock) {
      try await clock.sleep(for: .seconds(2))
      return "work"
    }
    #expect(fast == "work")
    #expect(clock.now.offset == .seconds(2))
    await #expect(throws: CancellationError.self) {
      try await withTimeout(.seconds(5), clock: clock) {
        try await clock.sleep(for: .seconds(10))
        return "late"
      }
    }
    #expect(clock.now.offset == .seconds(7))
  }

  @MainActor @Test func aMainActorModelsTaskIsAwaitedDirectly() async {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    let model = WelcomeModel(clock: clock)
    await model.task()
    #expect(model.message == "Welcome!")
    #expect(clock.now.offset == .seconds(5))
  }

  @Test func aDebounceOnAClockSettlesOnTheLastValue() async {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    let saved = Log<(String, Duration)>()
    // A hand-written debounce: each edit restarts a 1 s pause; the last one is saved.
    let (edits, input) = AsyncStream.makeStream(of: (String, Duration).self)
    let saver = Task {
      var pending: Task<Void, Never>?
      for await (text, pause) in edits {
        pending?.cancel()
        pending = Task {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          saved.append((text, clock.now.offset))
        }
        try? await clock.sleep(for: pause)
      }
      await pending?.value
    }
    input.yield(("t", .milliseconds(300)))
    input.yield(("te", .milliseconds(300)))
    input.yield(("tempo", .zero))
    input.finish()
    await saver.value
    #expect(saved.values.map(\.0) == ["tempo"])
    #expect(saved.values.map(\.1) == [.milliseconds(1_600)])
  }

  @MainActor @Test func aCombineDebounceReadThroughValues() async {
    let mainQueue = DispatchQueue.test
    mainQueue.automaticallyAdvances = true
    let query = PassthroughSubject<String, Never>()
    let start = mainQueue.now
    let debounced = query.debounce(for: .milliseconds(300), scheduler: mainQueue)
      .map { ($0, start.distance(to: mainQueue.now).magnitude) }
    let reader = Task { @MainActor in
      var seen: [(String, Int)] = []
      for await value in debounced.values {
        seen.append(value)
        if seen.count == 1 { break }
      }
      return seen
    }
    await mainQueue.advance()
    query.send("te")
    query.send("tempo")
    let seen = await reader.value
    #expect(seen.map(\.0) == ["tempo"])
    #expect(seen.map(\.1) == [300_000_000])
  }

  @MainActor @Test func aSharedTimelineMovesASchedulerAndAClockTogether() async {
    let time = TestTimeline()
    time.automaticallyAdvances = true
    let mainQueue = DispatchQueue.test(timeline: time)
    let clock = TestClock(timeline: time)
    let events = Log<String>()
    mainQueue.schedule(after: mainQueue.now.advanced(by: .milliseconds(1_500))) {
      events.append("queue at \(time.now)")
    }
    try? await clock.sleep(for: .seconds(2))
    events.append("clock at \(time.now)")
    #expect(events.values == ["queue at 1.5 seconds", "clock at 2.0 seconds"])
  }

  @Test func turnedOffTimeStays() async {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    #expect(clock.automaticallyAdvances)
    clock.automaticallyAdvances = false
    let sleeper = Task { try? await clock.sleep(for: .seconds(1)) }
    await clock.advance()
    #expect(clock.pendingWorkCount == 1)
    #expect(clock.now.offset == .zero)
    // Turned on with work pending, time moves.
    clock.automaticallyAdvances = true
    await sleeper.value
    #expect(clock.now.offset == .seconds(1))
  }

  /// Turned off right after it moved time, while its driver still lets the woken work go
  /// quiet: the driver takes no further step, and the test advances by hand.
  @Test func turnedOffAfterItMovedTimeStaysOff() async {
    let clock = TestClock()
    clock.automaticallyAdvances = true
    try? await clock.sleep(for: .seconds(1))
    clock.automaticallyAdvances = false
    let woke = Log<Duration>()
    let sleeper = Task {
      try? await clock.sleep(for: .seconds(1))
      woke.append(clock.now.offset)
    }
    await clock.advance()
    #expect(clock.now.offset == .seconds(1))
    #expect(clock.pendingWorkCount == 1)
    #expect(woke.values.isEmpty)
    await clock.advance(by: .seconds(1))
    await sleeper.value
    #expect(woke.values == [.seconds(2)])
  }

  @Test func insideAScope() async throws {
    try await withTestExecutor(leftoverWork: .fail) {
      let clock = TestClock()
      clock.automaticallyAdvances = true
      let attempts = Log<Duration>()
      _ = try await fetchWithRetry(clock: clock, attempts: attempts, failures: 2)
      #expect(attempts.values == [.zero, .seconds(1), .seconds(3)])
    }
  }
}
