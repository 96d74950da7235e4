/// An interval that a timeline can multiply exactly, so that the repeats of a repeating action
/// land on their grid: the k-th repeat is due at `start + k × interval`, computed from the start
/// each time, rather than at the previous date plus `interval`, which for a floating-point date
/// (a `Date` near 1970 is good to about a tenth of a microsecond) adds a rounding error at every
/// repeat.
///
/// ```swift
/// Duration.seconds(0.1).timelineMultiplied(by: 21)   // 2.1 seconds
/// ```
package protocol TimelineGridStride {
  /// `self × count`, or `nil` if the result does not fit the type.
  func timelineMultiplied(by count: Int) -> Self?
}

extension Int: TimelineGridStride {
  package func timelineMultiplied(by count: Int) -> Int? {
    let (product, overflow) = multipliedReportingOverflow(by: count)
    return overflow ? nil : product
  }
}

extension Duration: TimelineGridStride {
  package func timelineMultiplied(by count: Int) -> Duration? {
    // `Duration * Int` traps when the product leaves its range (about ±1.7 × 10^20 seconds);
    // a product that stays below 10^20 seconds is safe.
    let seconds = Double(components.seconds.magnitude) + 1
    guard seconds * Double(count.magnitude) < 1e20 else { return nil }
    return self * count
  }
}

/// `interval × k` for an `Interval` that can be multiplied exactly (a ``TimelineGridStride``);
/// nil for any other.
func gridMultiplier<Interval>(for _: Interval.Type) -> ((Interval, Int) -> Interval?)? {
  guard let grid = Interval.self as? any TimelineGridStride.Type else { return nil }
  return multiplier(grid, as: Interval.self)
}

private func multiplier<Grid: TimelineGridStride, Interval>(
  _: Grid.Type, as _: Interval.Type
) -> (Interval, Int) -> Interval? {
  // `Grid` is `Interval` (the caller found it by casting `Interval.self`), so these casts
  // reinterpret a value as its own type; a checked cast would cost a runtime lookup per repeat.
  { interval, count in
    unsafeBitCast(interval, to: Grid.self).timelineMultiplied(by: count).map {
      unsafeBitCast($0, to: Interval.self)
    }
  }
}
