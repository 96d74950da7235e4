// Where an advance may move a timeline's `now`: the checks of its stride or instant.

extension TimelineState {
  /// The instant an advance by `stride` moves to, or `now` and the reason it cannot move.
  @inline(__always)
  func target(advancingBy stride: Interval) -> (target: Time, problem: TargetProblem?) {
    var moved = now
    let problem = timelineTarget(
      from: now, advancingBy: stride, advancedBy: advancedBy, into: &moved)
    return (moved, problem)
  }

  /// The instant an advance to `instant` moves to, or `now` and the reason it cannot move.
  @inline(__always)
  func target(advancingTo instant: Time) -> (target: Time, problem: TargetProblem?) {
    guard instant == instant else { return (now, .invalidInstant) }
    guard instant >= now else { return (now, .instantInPast) }
    return (instant, nil)
  }
}

/// The instant an advance by `stride` from `now` moves to, written to `target` (`now` when it
/// cannot move), and the reason it cannot move, if any (see
/// ``TimelineState/target(advancingBy:)``).
///
/// A free function rather than a method of ``TimelineState``, and with no tuple result:
/// unspecialized code that calls a method of a generic struct, or makes a tuple of a generic
/// type, looks up that type's metadata (a few hundred instructions) at every call.
func timelineTarget<Time: Comparable, Interval: Comparable & AdditiveArithmetic>(
  from now: Time, advancingBy stride: Interval, advancedBy: (Time, Interval) -> Time,
  into target: inout Time
) -> TimelineTargetProblem? {
  // `>=` alone lets NaN through for strides that derive it from `<`.
  guard stride == stride, stride >= .zero else {
    target = now
    return .negativeStride
  }
  target = advancedBy(now, stride)
  guard target == target, !(target < now), !(now == target && stride > .zero) else {
    target = now
    return .unrepresentableTarget
  }
  return nil
}
