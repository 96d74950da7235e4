import Foundation

/// The lock each of TempoTesting's objects keeps around its state.
///
/// In debug builds it also counts, per thread, how many of these locks the thread holds, so that
/// tests can check that nothing is called or released while one is held.
final class TempoTestingLock: @unchecked Sendable {
  // Invariant: `mutex` is an `NSLock`, which is thread-safe; the held count is per thread.
  private let mutex = NSLock()

  func lock() {
    mutex.lock()
    #if DEBUG
      Self.heldByCurrentThread += 1
    #endif
  }

  func unlock() {
    #if DEBUG
      Self.heldByCurrentThread -= 1
    #endif
    mutex.unlock()
  }

  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }

  #if DEBUG
    /// How many TempoTesting locks the current thread holds (debug builds only).
    static var heldByCurrentThread: Int {
      get { Int(bitPattern: pthread_getspecific(heldKey)) }
      set { pthread_setspecific(heldKey, UnsafeRawPointer(bitPattern: newValue)) }
    }

    private static let heldKey: pthread_key_t = {
      var key = pthread_key_t()
      let status = pthread_key_create(&key, nil)
      precondition(status == 0, "pthread_key_create failed with \(status)")
      return key
    }()
  #endif
}

/// A value behind a ``TempoTestingLock``.
final class Protected<Value: Sendable>: @unchecked Sendable {
  // Invariant: `lock` guards `value`; `body` must not call out or release user values.
  private let lock = TempoTestingLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock { try body(&value) }
  }
}
