/// How much a ``RecordingSubscriber`` asks for.
///
/// ```swift
/// test.start(demand: .initial(1, thenAfter: 3)) { input.buffer(size: 10, prefetch: .byRequest, whenFull: .dropOldest) }
/// ```
public enum RecordingDemand: Sendable, Equatable {
  /// Everything, at subscription.
  case unlimited
  /// `count` values at subscription; then, `ticks` after each value arrives, one more.
  case initial(Int, thenAfter: Int?)
}
