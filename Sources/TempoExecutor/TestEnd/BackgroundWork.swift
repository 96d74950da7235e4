@_spi(TempoInternals) package import TempoSupport

/// A task a test starts as background work (`backgroundTask`): it may still run when the test
/// ends, and is then cancelled and waited for, instead of being reported as leftover work.
package final class BackgroundWork: @unchecked Sendable {
  // Invariant: `lock` guards `task` and `hasEnded`; the task is cancelled after unlocking.
  private let lock = Lock()
  private var task: Task<Void, Never>?
  private var ended = false
  /// Where the test started it.
  package let location: SourceLocation

  package init(at location: SourceLocation) {
    self.location = location
  }

  /// The task that runs the work.
  package func hold(_ task: Task<Void, Never>) {
    lock.withLock { self.task = task }
  }

  /// The work's operation has returned.
  package func end() {
    lock.withLock { ended = true }
  }

  /// Whether the work's operation has returned.
  package var hasEnded: Bool { lock.withLock { ended } }

  /// Cancels the task.
  package func cancel() {
    lock.withLock { task }?.cancel()
  }
}
