import TempoCore
import TempoSupport

/// What a test scheduler's repeating `schedule` returns: a `Cancellable` that cancels the
/// action when cancelled or released, as `AnyCancellable` does, and that tells a task sleeping
/// on the scheduler (`sleep(until:tolerance:options:)`, even through `AnyScheduler`) which
/// timeline wakes it, so that the hang watch can follow the sleep.
///
/// It holds the handle alone: where the scheduler was made is read from the handle's timeline
/// (``creation``) only when a sleep needs it, rather than copied into every timer.
final class ScheduledOnTimeline: Cancellable, @unchecked Sendable {
  // Invariant: `handle` is immutable; a `TimelineHandle` may be cancelled from any thread.
  /// The scheduled action.
  let handle: TimelineHandle

  init(handle: TimelineHandle) {
    self.handle = handle
  }

  /// Where the scheduler was made (its timeline's creation, which the scheduler sets when it is
  /// made); nil once the timeline is gone.
  var creation: SourceLocation? { handle.creation }

  func cancel() {
    handle.cancel()
  }

  deinit {
    handle.cancel()
  }
}
