/// A scheduler time type with a fixed instant for Tempo's stand-ins to start at.
///
/// Dispatch time (used by `DispatchQueue` and ``UIScheduler``) starts at 1 ns of uptime, since
/// `DispatchTime(uptimeNanoseconds: 0)` means "now" to Dispatch; run-loop and operation-queue
/// time start at the 1970 epoch.
public protocol _TempoEpochTime: Strideable
where Stride: SchedulerTimeIntervalConvertible {
  /// The time at which the stand-ins start.
  static var _tempoEpoch: Self { get }
}

extension DispatchQueue.SchedulerTimeType: _TempoEpochTime {
  /// 1 ns of uptime.
  public static var _tempoEpoch: Self { .init(.init(uptimeNanoseconds: 1)) }
}

extension RunLoop.SchedulerTimeType: _TempoEpochTime {
  /// The 1970 epoch.
  public static var _tempoEpoch: Self { .init(Date(timeIntervalSince1970: 0)) }
}

extension OperationQueue.SchedulerTimeType: _TempoEpochTime {
  /// The 1970 epoch.
  public static var _tempoEpoch: Self { .init(Date(timeIntervalSince1970: 0)) }
}

/// A scheduler type whose test, immediate and unimplemented stand-ins share a fixed start time.
///
/// `DispatchQueue`, ``UIScheduler``, `OperationQueue` and `RunLoop` conform, which gives each of
/// them the `.test`, `.immediate` and `.unimplemented` factories:
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
