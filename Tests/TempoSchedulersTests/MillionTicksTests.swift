import Foundation
import TempoClocks
import TempoTestHelpers
import Testing

@testable import TempoCore
@testable import TempoSchedulers

/// Every timer type stays on its grid for a million ticks: the k-th repeat of a repeating action
/// is due at `start + k × interval`, to the resolution of its time type, on a lone scheduler and
/// in the shared time of a `TestTimeline`.
///
/// A debug build takes about 4.6 µs per timeline step, so a million real steps per type would
/// take several seconds each. A repeat's date is a function of its number alone (the timeline
/// keeps no running sum), so the million ticks are checked on the date the timeline computes
/// for each repeat (`dateOfRepeat`, the one its re-arming uses): tick one million and 20,000
/// ticks spread over the million, with a fixed seed. A real advance of 10,000 ticks per type
/// then checks that the timeline runs its repeats at exactly those dates.
@Suite struct MillionTicksTests {
  static let million = 1_000_000

  /// The ticks checked: the first ones, the millionth, and 20,000 spread over the million.
  static let ticks: [Int] = {
    var random = SystemRandomNumberGenerator.Seeded(state: 15)
    let spread = (0..<20_000).map { _ in Int.random(in: 1...million, using: &random) }
    return (Array(1...100) + [599, 600, 601, million - 1, million] + spread).sorted()
  }()

  @Test func dispatchTimeRepeatsLandOnTheirGridForAMillionTicks() {
    let start = DispatchQueue.test.now
    let timeline = Timeline<
      DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerTimeType.Stride
    >(
      now: start, name: "TestScheduler", advancedBy: { $0.advanced(by: $1) })
    let interval = DispatchQueue.SchedulerTimeType.Stride.nanoseconds(1_000_003)
    var previous = start
    for tick in Self.ticks {
      guard let date = timeline.dateOfRepeat(tick, from: start, every: interval) else {
        Issue.record("no date for tick \(tick)")
        return
      }
      let expected = 1 + UInt64(tick) * 1_000_003
      if date.dispatchTime.uptimeNanoseconds != expected || date < previous {
        Issue.record("tick \(tick) is at \(date), not \(expected) ns")
        return
      }
      previous = date
    }
  }

  @Test(arguments: [0.1, 0.001, 0.05, 1.0 / 3])
  func runLoopAndOperationQueueRepeatsLandOnTheirGridForAMillionTicks(seconds: Double) {
    checkDateGrid(RunLoop.test.now, every: .init(seconds))
    checkDateGrid(OperationQueue.test.now, every: .init(seconds))
  }

  /// Near 1970 a `Date` is good to 2^-23 s (about 0.12 µs): each repeat is within half of that
  /// of the exact grid, and in the shared time of a timeline (microseconds) exactly on it.
  private func checkDateGrid<Time: _TempoEpochTime & TimelineKeyed>(
    _ start: Time, every interval: Time.Stride,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) where Time.Stride: TimelineGridStride {
    let timeline = Timeline<Time, Time.Stride>(
      now: start, name: "TestScheduler", advancedBy: { $0.advanced(by: $1) })
    let step = start.distance(to: start.advanced(by: interval))
    let seconds = Self.secondsOf(interval)
    var previous = start
    for tick in Self.ticks {
      guard let date = timeline.dateOfRepeat(tick, from: start, every: interval) else {
        Issue.record("no date for tick \(tick)", sourceLocation: sourceLocation)
        return
      }
      let exact = seconds * Double(tick)
      let offset = Self.secondsOf(start.distance(to: date))
      let elapsed = date._tempoElapsed
      let microseconds = (exact * 1_000_000).rounded()
      if abs(offset - exact) > 0x1p-24 * 1.01 || date < previous
        || elapsed != .microseconds(Int64(microseconds))
      {
        Issue.record(
          "tick \(tick) of \(step) is \(offset) s from the start, not \(exact) s",
          sourceLocation: sourceLocation)
        return
      }
      previous = date
    }
  }

  private static func secondsOf<Stride>(_ stride: Stride) -> Double {
    if let stride = stride as? RunLoop.SchedulerTimeType.Stride { return stride.magnitude }
    if let stride = stride as? OperationQueue.SchedulerTimeType.Stride { return stride.magnitude }
    return .nan
  }

  @Test func clockRepeatsLandOnTheirGridForAMillionTicks() {
    let start = OffsetInstant<Duration>(offset: .seconds(7))
    let timeline = Timeline<OffsetInstant<Duration>, Duration>(
      now: start, name: "TestClock", advancedBy: { $0.advanced(by: $1) })
    let interval = Duration.nanoseconds(100_000_001)
    for tick in Self.ticks {
      #expect(
        timeline.dateOfRepeat(tick, from: start, every: interval)
          == start.advanced(by: .nanoseconds(100_000_001 * Int64(tick))))
    }
  }

  // MARK: - The timeline runs its repeats at those dates

  @Test func aLoneSchedulerOfEveryTypeRunsTenThousandTicksOnTheGrid() {
    checkTicks(DispatchQueue.test, every: .milliseconds(100))
    checkTicks(UIScheduler.test, every: .milliseconds(100))
    checkTicks(RunLoop.test, every: .milliseconds(100))
    checkTicks(OperationQueue.test, every: .milliseconds(50))
  }

  @Test func everyTypeOnASharedTimelineRunsTenThousandTicksOnTheGrid() {
    let time = TestTimeline()
    checkTicks(DispatchQueue.test(timeline: time), every: .milliseconds(100), time: time)
    checkTicks(UIScheduler.test(timeline: time), every: .milliseconds(100), time: time)
    checkTicks(RunLoop.test(timeline: time), every: .milliseconds(100), time: time)
    checkTicks(OperationQueue.test(timeline: time), every: .milliseconds(50), time: time)
  }

  /// One advance over 10,000 ticks: the count, the last tick and a sample of ticks are exactly
  /// on the grid, in the scheduler's own time and (on a shared timeline) in the shared time.
  private func checkTicks<Time: _TempoEpochTime, Options>(
    _ scheduler: TestScheduler<Time, Options>, every interval: Time.Stride,
    time: TestTimeline? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) where Time.Stride: TimelineGridStride {
    let count = 10_000
    let start = scheduler.now
    let sharedStart = time?.now ?? .zero
    let step = start.advanced(by: interval)._tempoElapsed - start._tempoElapsed
    var ticks: [(Time, Duration)] = []
    ticks.reserveCapacity(count)
    let timer = scheduler.schedule(
      after: start.advanced(by: interval), interval: interval, tolerance: .zero, options: nil
    ) { ticks.append((scheduler.now, time?.now ?? .zero)) }
    scheduler.advance(by: interval.timelineMultiplied(by: count)!)
    timer.cancel()
    #expect(ticks.count == count, sourceLocation: sourceLocation)
    for tick in [1, 2, 11, 21, 600, 1_234, 9_999, count] where tick <= ticks.count {
      let (date, shared) = ticks[tick - 1]
      #expect(
        date._tempoElapsed - start._tempoElapsed == step * tick,
        "tick \(tick) of \(Time.self)", sourceLocation: sourceLocation)
      if time != nil {
        #expect(
          shared - sharedStart == step * tick, "tick \(tick) of \(Time.self) in shared time",
          sourceLocation: sourceLocation)
      }
    }
  }
}

extension SystemRandomNumberGenerator {
  /// A small generator with a fixed seed, so the sampled ticks are the same on every run.
  struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }
}
