// Clocks that a deadline can name (SE-0526, `withDeadline(_:clock:)`, accepted): a deadline on a
// custom clock asks for a clock that is `Identifiable`, so that an active deadline can be found
// again for the clock it was set on. Each of Tempo's clocks is one identity for as long as it
// lives: the instance for the classes, the clock it wraps for `UnimplementedClock` (whose
// copies are one clock). Reading an `id` is not a use of time: it reports nothing.

/// A test clock is identified by its instance.
///
/// ```swift
/// let clock = TestClock()
/// let sameClock = clock
/// assert(clock.id == sameClock.id)
/// ```
extension TestClock: Identifiable {}

/// An immediate clock is identified by its instance.
///
/// ```swift
/// let clock = ImmediateClock()
/// assert(clock.id != ImmediateClock().id)
/// ```
extension ImmediateClock: Identifiable {}

/// A type-erased clock is identified by its instance, not by the clock it wraps: two erasures
/// of one clock are two identities.
///
/// ```swift
/// let clock = AnyClock(ContinuousClock())
/// assert(clock.id == clock.id)
/// ```
extension AnyClock: Identifiable {}

/// An unimplemented clock is identified by the clock it wraps, made with it: its copies are the
/// same clock. Reading `id` reports no issue.
///
/// ```swift
/// let clock = UnimplementedClock()
/// let copy = clock
/// assert(clock.id == copy.id)
/// ```
extension UnimplementedClock: Identifiable {
  /// The identity of this clock and its copies.
  public var id: ObjectIdentifier { ObjectIdentifier(base) }
}
