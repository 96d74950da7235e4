/// A time or stride that an issue prints in words a person reads ("-1.0 seconds") instead of
/// its raw value (`Stride(_nanoseconds: -1000000000)`).
///
/// The fronts of the timeline conform their time types: Dispatch, run-loop and operation-queue
/// times and strides in TempoSchedulers; the clocks' instants and durations print this way
/// already.
package protocol ReadableTime {
  /// The value as an issue prints it, such as "1.5 seconds" or "2.0 seconds since the
  /// scheduler's start".
  var readable: String { get }
}

/// `value` as an issue prints it: its ``ReadableTime/readable`` text if it has one, its
/// description otherwise.
package func readable<Value>(_ value: Value) -> String {
  (value as? any ReadableTime)?.readable ?? "\(value)"
}
