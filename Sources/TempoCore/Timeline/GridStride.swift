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
