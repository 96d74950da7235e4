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

/// How a timeline multiplies an `Interval` exactly: the interval's own type, when it is a
/// ``TimelineGridStride``; nil for any other. A metatype rather than a closure, so that a
/// timeline allocates nothing for it (a closure over a generic type needs a context).
func gridStride<Interval>(for _: Interval.Type) -> (any TimelineGridStride.Type)? {
  Interval.self as? any TimelineGridStride.Type
}

/// Writes `interval × count` to `product` and answers true, or answers false if the product
/// does not fit, multiplying as `grid` does; `grid` must be `Interval` itself (see
/// ``gridStride(for:)``).
func gridMultiply<Interval>(
  _ interval: Interval, by count: Int, as grid: any TimelineGridStride.Type,
  into product: inout Interval
) -> Bool {
  func multiply<Grid: TimelineGridStride>(_: Grid.Type) -> Bool {
    // `Grid` is `Interval`, so these casts reinterpret a value as its own type; a checked cast
    // would cost a runtime lookup per repeat.
    var result = unsafeBitCast(product, to: Grid.self)
    let fits = unsafeBitCast(interval, to: Grid.self).timelineMultiplied(by: count, into: &result)
    product = unsafeBitCast(result, to: Interval.self)
    return fits
  }
  return multiply(grid)
}
