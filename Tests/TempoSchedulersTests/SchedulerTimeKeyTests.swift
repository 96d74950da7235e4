import TempoCore
import TempoSchedulers
import TempoTestHelpers
import Testing

/// The scheduler time types a test scheduler keys (see `TimelineKeyed`): their keys order as
/// they do and convert back exactly, so the timeline runs their work in the same order as it
/// would comparing the times themselves.
@Suite struct SchedulerTimeKeyTests {
  /// Dispatch's scheduler time orders by a signed distance that wraps for times 2^63 ns or more
  /// apart, so only nearer times have an order to keep. A timeline never holds times further
  /// apart: work dated after `now + 2^63 ns` counts as past, and runs at `now`.
  @Test func dispatchTimesKeepTheirOrderAndComeBack() {
    let nanoseconds: [UInt64] = [0, 1, 2, 999, 1_000_000_000, UInt64(Int64.max) - 1]
    let times =
      nanoseconds.map { DispatchQueue.SchedulerTimeType(.init(uptimeNanoseconds: $0)) }
      + [.init(.now())]
    expectKeys(times, key: \.timelineKey, back: DispatchQueue.SchedulerTimeType.init(timelineKey:))
  }

  @Test func dateBasedTimesKeepTheirOrderAndComeBack() {
    let dates = [
      Date.distantPast, .distantFuture, Date(timeIntervalSince1970: 0),
      Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.5),
      Date(timeIntervalSinceReferenceDate: 1e-9), Date(timeIntervalSince1970: 0.1),
      Date(timeIntervalSince1970: 0.1 + 0.2), Date(),
    ]
    expectKeys(
      dates.map(RunLoop.SchedulerTimeType.init), key: \.timelineKey,
      back: RunLoop.SchedulerTimeType.init(timelineKey:))
    expectKeys(
      dates.map(OperationQueue.SchedulerTimeType.init), key: \.timelineKey,
      back: OperationQueue.SchedulerTimeType.init(timelineKey:))
  }
}
