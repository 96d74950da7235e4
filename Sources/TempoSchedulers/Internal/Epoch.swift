/// A scheduler type whose test, immediate and unimplemented stand-ins share a fixed start time.
///
/// `DispatchQueue`, ``UIScheduler``, `OperationQueue` and `RunLoop` conform, which gives each of
/// them the `.test`, `.immediate` and `.unimplemented` factories:
///
/// ```swift
/// let scheduler = DispatchQueue.test   // starts at DispatchQueue._tempoEpoch
/// ```
public protocol _TempoEpoch: _CombineScheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  /// The time at which the stand-ins start.
  static var _tempoEpoch: SchedulerTimeType { get }
}

extension DispatchQueue: _TempoEpoch {
  /// 1 ns of uptime: `DispatchTime(uptimeNanoseconds: 0)` means "now" to Dispatch.
  public static var _tempoEpoch: SchedulerTimeType { .init(.init(uptimeNanoseconds: 1)) }
}

extension UIScheduler: _TempoEpoch {
  /// 1 ns of uptime: `DispatchTime(uptimeNanoseconds: 0)` means "now" to Dispatch.
  public static var _tempoEpoch: SchedulerTimeType { .init(.init(uptimeNanoseconds: 1)) }
}

extension OperationQueue: _TempoEpoch {
  /// The 1970 epoch.
  public static var _tempoEpoch: SchedulerTimeType { .init(Date(timeIntervalSince1970: 0)) }
}

extension RunLoop: _TempoEpoch {
  /// The 1970 epoch.
  public static var _tempoEpoch: SchedulerTimeType { .init(Date(timeIntervalSince1970: 0)) }
}
