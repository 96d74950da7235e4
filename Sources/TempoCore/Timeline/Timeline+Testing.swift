@_spi(TempoInternals) package import TempoSupport

// Members that only Tempo's own tests use.

extension Timeline {
  /// Takes the next action due at or before `target` (any pending action if `target` is nil),
  /// sets `now` to its date and re-arms it if it repeats. The caller runs the action.
  ///
  /// - Complexity: O(log n)
  package func takeNext(through target: Time?, at location: SourceLocation) -> Action? {
    guard let target else { return takeNext(dueBy: .everything, at: location) }
    return takeNext(dueBy: dueBound(through: target), at: location)
  }

  /// The date of the `count`-th repeat of an action first due at `start` and repeating every
  /// `interval`: `start + count × interval`, or nil if `Interval` cannot be multiplied exactly
  /// (then each repeat is the previous date plus `interval`) or the product does not fit.
  package func dateOfRepeat(_ count: Int, from start: Time, every interval: Interval) -> Time? {
    lock.withLock { state.dateOfRepeat(count, from: start, every: interval) }
  }
}
