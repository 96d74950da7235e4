import TempoClocks
import TempoTestHelpers
import TempoTestSupport
import Testing

/// A clock timer's ticks are due at `start + k × interval`, each computed from the start: a
/// duration type that rounds (here, seconds in a `Double`, far from the origin) cannot make them
/// drift, over a million ticks.
@Suite struct ClockTimerGridTests {
  @Test func aMillionTicksOfAFloatingPointClockStayOnTheGrid() async {
    let start = FloatClock.Instant(seconds: 1e9)
    let clock = FloatClock(now: start)
    let interval = FloatDuration(seconds: 0.1)
    var tick = 0
    var offGrid: [Int] = []
    for await instant in clock.timer(interval: interval) {
      tick += 1
      if instant != start.advanced(by: interval * tick) { offGrid.append(tick) }
      if tick == 1_000_000 { break }
    }
    #expect(offGrid.isEmpty, "ticks off the grid: \(offGrid.prefix(5))…")
    #expect(clock.now == FloatClock.Instant(seconds: 1e9 + 100_000))
  }

  /// On a test clock, in one advance: the count, the last tick and every tick exactly on the
  /// grid (in a test executor, so the advance waits for each tick's consumer).
  @Test(.testExecutor) func aThousandTicksOfATestClockInOneAdvance() async {
    let clock = TestClock<Duration>(now: .init(offset: .nanoseconds(7)))
    let ticks = Log<Duration>()
    let task = Task {
      for await instant in clock.timer(interval: .nanoseconds(100_000_001)) {
        ticks.append(instant.offset)
      }
    }
    await clock.advance()
    await clock.advance(by: .nanoseconds(100_000_001 * 1_000))
    #expect(ticks.values.count == 1_000)
    #expect(ticks.values.last == .nanoseconds(7 + 100_000_001 * 1_000))
    #expect(
      ticks.values.enumerated().allSatisfy { $1 == .nanoseconds(7 + 100_000_001 * ($0 + 1)) })
    task.cancel()
    await task.value
  }
}

/// A duration in seconds, kept in a `Double`: adding 0.1 to a billion seconds rounds.
struct FloatDuration: DurationProtocol, Hashable {
  var seconds: Double
  static var zero: Self { .init(seconds: 0) }
  static func + (lhs: Self, rhs: Self) -> Self { .init(seconds: lhs.seconds + rhs.seconds) }
  static func - (lhs: Self, rhs: Self) -> Self { .init(seconds: lhs.seconds - rhs.seconds) }
  static func < (lhs: Self, rhs: Self) -> Bool { lhs.seconds < rhs.seconds }
  static func / (lhs: Self, rhs: Int) -> Self { .init(seconds: lhs.seconds / Double(rhs)) }
  static func * (lhs: Self, rhs: Int) -> Self { .init(seconds: lhs.seconds * Double(rhs)) }
  static func / (lhs: Self, rhs: Self) -> Double { lhs.seconds / rhs.seconds }
}

/// A clock of ``FloatDuration`` whose sleep returns at once, moving `now` to the deadline.
final class FloatClock: Clock, @unchecked Sendable {
  struct Instant: InstantProtocol {
    var seconds: Double
    func advanced(by duration: FloatDuration) -> Self { .init(seconds: seconds + duration.seconds) }
    func duration(to other: Self) -> FloatDuration { .init(seconds: other.seconds - seconds) }
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.seconds < rhs.seconds }
  }

  // Invariant: only the one task that iterates the timer touches `now`.
  var now: Instant
  var minimumResolution: FloatDuration { .zero }

  init(now: Instant) { self.now = now }

  func sleep(until deadline: Instant, tolerance: FloatDuration?) async throws {
    if now < deadline { now = deadline }
  }
}
