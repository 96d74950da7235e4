import TempoCore
import TempoSupport

/// What a test scheduler's repeating `schedule` returns: a `Cancellable` that cancels the
/// action when cancelled or released, as `AnyCancellable` does, and that tells a task sleeping
/// on the scheduler (`sleep(until:tolerance:options:)`, even through `AnyScheduler`) which
/// timeline wakes it, so that the hang watch can follow the sleep.
final class ScheduledOnTimeline: Cancellable, @unchecked Sendable {
  // Invariant: both are immutable; a `TimelineHandle` may be cancelled from any thread.
  /// The scheduled action.
  let handle: TimelineHandle
  /// Where the scheduler was made.
  let creation: SourceLocation

  init(handle: TimelineHandle, creation: SourceLocation) {
    self.handle = handle
    self.creation = creation
  }

  func cancel() {
    handle.cancel()
  }

  deinit {
    handle.cancel()
  }
}
