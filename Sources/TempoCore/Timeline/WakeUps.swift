@_spi(TempoInternals) package import TempoSupport

/// Counts the sleepers an advance woke that have not run again yet.
///
/// A test clock counts a wake-up before it resumes a sleeper, and the sleeper acknowledges it when
/// its task runs again; without a test executor, ``Settling/settle(_:scope:at:)`` waits for the
/// count to reach zero before its probe rounds, so a woken task that the system was slow to
/// schedule is not left behind. (A test executor needs no count: it sees the woken task.)
package final class WakeUps: @unchecked Sendable {
  // Invariant: `lock` guards `count` and `outstandingSeen`, and is held only inside these
  // methods, which call nothing out. A lone timeline lends its own lock (saving two allocations
  // per timeline): no method here is ever called with the timeline's lock held, nor does the
  // timeline call out while holding it.
  private let lock: Lock
  private var count = 0
  private var outstandingSeen = 0

  /// Counts wake-ups under `lock`: a new one, or the lock of the timeline that owns the count.
  package init(lock: Lock = Lock()) {
    self.lock = lock
  }

  /// How many times a settle found a woken sleeper that had not run again yet, and so waited
  /// for it. Tests read it to see that a drive waits for the wake-ups it made.
  package var waits: Int { lock.withLock { outstandingSeen } }

  /// A sleeper is about to be resumed.
  package func willWake() { lock.withLock { count += 1 } }

  /// The sleeper turned out to be over already (cancelled): no acknowledgement will come.
  package func didNotWake() { lock.withLock { count -= 1 } }

  /// A woken sleeper's task runs again.
  package func acknowledge() { lock.withLock { count -= 1 } }

  /// Whether a woken sleeper has not run again yet.
  package var areOutstanding: Bool {
    lock.withLock {
      if count > 0 { outstandingSeen += 1 }
      return count > 0
    }
  }
}
