import Foundation

/// The lock each of TempoTesting's objects keeps around its state.
final class TempoTestingLock: @unchecked Sendable {
  // Invariant: `mutex` is an `NSLock`, which is thread-safe.
  private let mutex = NSLock()

  func lock() { mutex.lock() }
  func unlock() { mutex.unlock() }

  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    mutex.lock()
    defer { mutex.unlock() }
    return try body()
  }
}
