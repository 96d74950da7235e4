#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
  // `pthread_mutex_t` can be attributed to the runtime's shim module, depending on the order in
  // which the module's files compile; `MemberImportVisibility` then asks for it by name.
  import SwiftOverlayShims
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// A non-recursive mutual-exclusion lock.
///
/// Tempo keeps one of these per object, guarding all of that object's mutable state. Code that
/// holds it never calls user code, a subscriber or a continuation: it decides under the lock and
/// acts after unlocking.
package final class Lock: @unchecked Sendable {
  // Invariant: `mutex` is allocated and initialized in `init` and destroyed in `deinit`; it is
  // only touched through the platform's locking functions, which are thread-safe.
  #if canImport(Darwin)
    private let mutex: UnsafeMutablePointer<os_unfair_lock>
  #else
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  #endif

  package init() {
    #if canImport(Darwin)
      mutex = .allocate(capacity: 1)
      mutex.initialize(to: os_unfair_lock())
    #else
      mutex = .allocate(capacity: 1)
      mutex.initialize(to: pthread_mutex_t())
      let status = pthread_mutex_init(mutex, nil)
      precondition(status == 0, "pthread_mutex_init failed with \(status)")
    #endif
  }

  deinit {
    #if !canImport(Darwin)
      pthread_mutex_destroy(mutex)
    #endif
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  @inline(__always)
  package func lock() {
    #if canImport(Darwin)
      os_unfair_lock_lock(mutex)
    #else
      pthread_mutex_lock(mutex)
    #endif
  }

  @inline(__always)
  package func unlock() {
    #if canImport(Darwin)
      os_unfair_lock_unlock(mutex)
    #else
      pthread_mutex_unlock(mutex)
    #endif
  }

  /// Runs `body` with the lock held. `body` must not call out to user code.
  @inline(__always)
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}
