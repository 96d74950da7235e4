import TempoTimeline

/// A scheduler time type with a fixed instant for Tempo's stand-ins to start at.
///
/// Dispatch time (used by `DispatchQueue` and ``UIScheduler``) starts at 1 ns of uptime, since
/// `DispatchTime(uptimeNanoseconds: 0)` means "now" to Dispatch; run-loop and operation-queue
/// time start at the 1970 epoch.
///
/// A shared ``TestTimeline`` counts time from there: `_tempoElapsed` and `_tempoInstant(elapsed:)`
/// convert between a time of this type and the time since the epoch.
public protocol _TempoEpochTime: Strideable
where Stride: SchedulerTimeIntervalConvertible {
  /// The time at which the stand-ins start.
  static var _tempoEpoch: Self { get }
  /// The time since ``_tempoEpoch``.
  var _tempoElapsed: Duration { get }
  /// The time `elapsed` after ``_tempoEpoch``.
  static func _tempoInstant(elapsed: Duration) -> Self
}

extension DispatchQueue.SchedulerTimeType: _TempoEpochTime {
  /// 1 ns of uptime.
  public static var _tempoEpoch: Self { .init(.init(uptimeNanoseconds: 1)) }

  /// The time since 1 ns of uptime.
  public var _tempoElapsed: Duration {
    .nanoseconds(Int64(clamping: dispatchTime.uptimeNanoseconds) - 1)
  }

  /// The dispatch time `elapsed` after 1 ns of uptime.
  public static func _tempoInstant(elapsed: Duration) -> Self {
    let (seconds, attoseconds) = elapsed.components
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    return .init(.init(uptimeNanoseconds: UInt64(clamping: nanoseconds) &+ 1))
  }
}

extension RunLoop.SchedulerTimeType: _TempoEpochTime {
  /// The 1970 epoch.
  public static var _tempoEpoch: Self { .init(Date(timeIntervalSince1970: 0)) }

  /// The time since 1970, to the microsecond.
  public var _tempoElapsed: Duration { date.tempoElapsed }

  /// The date `elapsed` after 1970.
  public static func _tempoInstant(elapsed: Duration) -> Self {
    .init(Date(tempoSince1970: elapsed))
  }
}

extension OperationQueue.SchedulerTimeType: _TempoEpochTime {
  /// The 1970 epoch.
  public static var _tempoEpoch: Self { .init(Date(timeIntervalSince1970: 0)) }

  /// The time since 1970, to the microsecond.
  public var _tempoElapsed: Duration { date.tempoElapsed }

  /// The date `elapsed` after 1970.
  public static func _tempoInstant(elapsed: Duration) -> Self {
    .init(Date(tempoSince1970: elapsed))
  }
}

extension Date {
  /// The time since 1970, to the microsecond: a `Date` keeps its time as seconds since 2001 in a
  /// `Double`, so near 1970 it is only good to about a tenth of a microsecond, and rounding
  /// makes 0.4 s + 0.5 s come back as 0.9 s.
  fileprivate var tempoElapsed: Duration {
    .microseconds(Int64((timeIntervalSince1970 * 1_000_000).rounded()))
  }
}

/// A scheduler type whose test, immediate and unimplemented stand-ins share a fixed start time.
///
/// `DispatchQueue`, ``UIScheduler``, `OperationQueue` and `RunLoop` conform. Their `.test`,
/// `.immediate` and `.unimplemented` factories are declared on each type itself, not here: a
/// protocol extension's member loses the overload, silently, to a concrete type's member of the
/// same name in another library.
///
/// ```swift
/// let scheduler = DispatchQueue.test   // starts at 1 ns of uptime
/// ```
public protocol _TempoEpoch: _CombineScheduler where SchedulerTimeType: _TempoEpochTime {}

extension _TempoEpoch {
  /// The time at which the stand-ins start.
  public static var _tempoEpoch: SchedulerTimeType { SchedulerTimeType._tempoEpoch }
}

extension DispatchQueue: _TempoEpoch {}
extension UIScheduler: _TempoEpoch {}
extension OperationQueue: _TempoEpoch {}
extension RunLoop: _TempoEpoch {}
