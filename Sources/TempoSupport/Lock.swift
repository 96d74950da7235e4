/// A non-recursive mutual-exclusion lock.
///
/// Tempo keeps one of these per object, guarding all of that object's mutable state. Code that
/// holds it never calls user code, a subscriber or a continuation: it decides under the lock and
/// acts after unlocking.
///
/// SPI rather than `package`, so that its methods inline into the modules that use it (see
/// ``Platform``). In debug builds it also counts, per thread, how many of these locks the thread
/// holds (``heldByCurrentThread``), so that tests can check that nothing is released under one.
///
/// ```swift
/// @_spi(TempoInternals) import TempoSupport
///
/// let lock = Lock()
/// let next = lock.withLock { counter += 1; return counter }
/// ```
@_spi(TempoInternals) public final class Lock: @unchecked Sendable {
  // Invariant: `mutex` lives as long as the lock and is only touched through its own locking
  // functions, which are thread-safe.
  @usableFromInline let mutex: Platform.Mutex

  @inlinable
  public init() { mutex = Platform.Mutex() }

  @inlinable @inline(__always)
  public func lock() {
    mutex.lock()
    #if DEBUG
      Self.count(held: 1)
    #endif
  }

  @inlinable @inline(__always)
  public func unlock() {
    #if DEBUG
      Self.count(held: -1)
    #endif
    mutex.unlock()
  }

  /// Runs `body` with the lock held. `body` must not call out to user code.
  @inlinable @inline(__always)
  public func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }

  #if DEBUG
    /// How many locks the current thread holds (debug builds only).
    package static var heldByCurrentThread: Int { Int(bitPattern: held.value) }

    @usableFromInline static func count(held change: Int) {
      held.value = UnsafeMutableRawPointer(bitPattern: heldByCurrentThread + change)
    }

    private static let held = Platform.ThreadSpecific()
  #endif
}
