#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
  // `timespec` can be attributed to the runtime's shim module, depending on the order in which
  // the module's files compile; `MemberImportVisibility` then asks for it by name.
  import SwiftOverlayShims
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// A mutex with a condition variable, for the one place that must block a thread of its own
/// until there is work: the test executor's thread.
package final class Condition: @unchecked Sendable {
  // Invariant: `mutex` and `condition` are allocated and initialized in `init` and destroyed in
  // `deinit`; they are only touched through the pthread functions, which are thread-safe.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  package init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    let status = (pthread_mutex_init(mutex, nil), pthread_cond_init(condition, nil))
    precondition(status == (0, 0), "pthread initialization failed with \(status)")
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deinitialize(count: 1)
    condition.deallocate()
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  package func lock() { pthread_mutex_lock(mutex) }

  package func unlock() { pthread_mutex_unlock(mutex) }

  /// Unlocks, sleeps until ``broadcast()`` or until `milliseconds` of real time have passed,
  /// and locks again. Callers re-check their state.
  package func wait(milliseconds: Int) {
    var deadline = timespec()
    clock_gettime(CLOCK_REALTIME, &deadline)
    let nanoseconds = Int(deadline.tv_nsec) + milliseconds * 1_000_000
    deadline.tv_sec += time_t(nanoseconds / 1_000_000_000)
    deadline.tv_nsec = .init(nanoseconds % 1_000_000_000)
    pthread_cond_timedwait(condition, mutex, &deadline)
  }

  /// Wakes every thread waiting in ``wait(milliseconds:)``.
  package func broadcast() { pthread_cond_broadcast(condition) }

  /// Runs `body` with the mutex held. `body` must not call out to user code.
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}
