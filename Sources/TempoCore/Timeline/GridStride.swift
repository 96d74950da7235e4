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
  /// Writes `self × count` to `product` and answers true, or answers false if the result does
  /// not fit the type. (An `inout` rather than an optional result: unspecialized code looks up
  /// the metadata of an optional of a generic type at every use, a few hundred instructions.)
  func timelineMultiplied(by count: Int, into product: inout Self) -> Bool
}

extension TimelineGridStride {
  /// `self × count`, or `nil` if the result does not fit the type.
  package func timelineMultiplied(by count: Int) -> Self? {
    var product = self
    return timelineMultiplied(by: count, into: &product) ? product : nil
  }
}

extension Int: TimelineGridStride {
  package func timelineMultiplied(by count: Int, into product: inout Int) -> Bool {
    let (result, overflow) = multipliedReportingOverflow(by: count)
    product = result
    return !overflow
  }
}

extension Duration: TimelineGridStride {
  package func timelineMultiplied(by count: Int, into product: inout Duration) -> Bool {
    // `Duration * Int` traps when the product leaves its range (about ±1.7 × 10^20 seconds);
    // a product that stays below 10^20 seconds is safe.
    let seconds = Double(components.seconds.magnitude) + 1
    guard seconds * Double(count.magnitude) < 1e20 else { return false }
    product = self * count
    return true
  }
}

/// `interval × k` for an `Interval` that can be multiplied exactly (a ``TimelineGridStride``);
/// nil for any other.
func gridMultiplier<Interval>(for _: Interval.Type) -> TimelineMultiplier<Interval>? {
  guard let grid = Interval.self as? any TimelineGridStride.Type else { return nil }
  return multiplier(grid, as: Interval.self)
}

private func multiplier<Grid: TimelineGridStride, Interval>(
  _: Grid.Type, as _: Interval.Type
) -> TimelineMultiplier<Interval> {
  // `Grid` is `Interval` (the caller found it by casting `Interval.self`), so these casts
  // reinterpret a value as its own type; a checked cast would cost a runtime lookup per repeat.
  { interval, count, product in
    var grid = unsafeBitCast(product, to: Grid.self)
    let fits = unsafeBitCast(interval, to: Grid.self).timelineMultiplied(by: count, into: &grid)
    product = unsafeBitCast(grid, to: Interval.self)
    return fits
  }
}

/// Writes `interval × count` to its last argument and answers true, or answers false if the
/// product does not fit (see ``TimelineGridStride``).
typealias TimelineMultiplier<Interval> = (Interval, Int, inout Interval) -> Bool
