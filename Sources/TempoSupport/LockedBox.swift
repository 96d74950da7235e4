/// A value behind its own ``Lock``: the whole state of a small concurrent object, reached only
/// inside ``withLock(_:)``.
///
/// ```swift
/// let warned = LockedBox(false)
/// let first = warned.withLock { warned in defer { warned = true }; return !warned }
/// ```
@_spi(TempoInternals) public final class LockedBox<Value> {
  @usableFromInline let lock: Lock
  @usableFromInline var value: Value

  @inlinable
  public init(_ value: Value, rank: Lock.Rank = .unordered) {
    self.value = value
    lock = Lock(rank: rank)
  }

  /// Runs `body` on the value with the lock held.
  @inlinable
  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock { try body(&value) }
  }
}

// Invariant: `value` is read and written only inside `lock.withLock`, and `body` must not call
// out, nor release what it removes (it hands it back instead).
extension LockedBox: @unchecked Sendable where Value: Sendable {}

extension LockedBox where Value == Bool {
  /// Sets a flag that starts false; answers whether this call is the one that set it.
  @inlinable
  public func setForTheFirstTime() -> Bool {
    withLock { isSet in
      defer { isSet = true }
      return !isSet
    }
  }
}
