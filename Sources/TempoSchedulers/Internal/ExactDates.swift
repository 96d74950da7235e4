import TempoCore
import TempoExecutor
import TempoSupport
import TempoTimeline

/// A scheduler time type that keeps its time in a `Date`: `RunLoop`'s and `OperationQueue`'s.
///
/// A `Date` holds seconds since 2001 in a `Double`. Adding a stride to it rounds, so a
/// scheduler that moved its `now` by adding would drift: a thousand steps of a millisecond
/// would land some tens of microseconds off. A test scheduler of such a type keeps its
/// position as its start plus an exact `Duration` instead (see
/// ``TestScheduler/loneTimeline(startingAt:)``).
protocol DateKeptSchedulerTime {
  var date: Date { get }
  init(_ date: Date)
}

extension RunLoop.SchedulerTimeType: DateKeptSchedulerTime {}
extension OperationQueue.SchedulerTimeType: DateKeptSchedulerTime {}

extension TestScheduler {
  /// The timeline of a test scheduler of its own, starting at `start`.
  ///
  /// For a time kept in a `Date`, the timeline counts the time since `start` as a `Duration`, to
  /// the microsecond a `Date` near today can tell apart, and derives `now` from it with one
  /// rounding: however many steps a test takes, `now` (and the wall-clock `date`) land
  /// exactly where the steps add up to. Such a timeline is the one member of a group of its
  /// own, the way a `TestTimeline`'s sources keep their time. Other time types (dispatch time
  /// counts whole nanoseconds) add their strides exactly and keep a lone timeline.
  static func loneTimeline(
    startingAt start: SchedulerTimeType
  ) -> Timeline<SchedulerTimeType, SchedulerTimeType.Stride> {
    guard let kept = start as? any DateKeptSchedulerTime else {
      return Timeline(
        now: start, name: "TestScheduler", describe: { readable($0) },
        scope: ImplicitScope.init(lock:), advancedBy: { $0.advanced(by: $1) })
    }
    let origin = kept.date
    let keptType = type(of: kept)
    return Timeline(
      sharing: SharedTimeline(scope: ImplicitScope(), soleSource: "TestScheduler"),
      name: "TestScheduler",
      advancedBy: { $0.advanced(by: $1) },
      // The casts cannot fail: `SchedulerTimeType` is the type `start` was cast to.
      toShared: {
        .roundedToMicroseconds(
          ($0 as! any DateKeptSchedulerTime).date.timeIntervalSince(origin))
      },
      fromShared: {
        keptType.init(origin.addingTimeInterval($0.timeInterval)) as! SchedulerTimeType
      }
    )
  }
}

extension Duration {
  /// `seconds` to the nearest microsecond, clamped to about ±285,000 years (a date that far
  /// cannot be scheduled meaningfully), and zero for a number that is not one.
  fileprivate static func roundedToMicroseconds(_ seconds: Double) -> Duration {
    let microseconds = (seconds * 1e6).rounded()
    guard !microseconds.isNaN else { return .zero }
    return .microseconds(Int64(min(max(microseconds, -9.0e18), 9.0e18)))
  }

  /// The duration in seconds, as a `Double`.
  fileprivate var timeInterval: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
