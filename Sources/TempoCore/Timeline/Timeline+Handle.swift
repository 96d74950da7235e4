extension Timeline {
  /// A pending action that can be cancelled.
  package final class Handle: TimelineHandle, @unchecked Sendable {
    // Invariant: `interval` and `timeline` are immutable after init; `start`, `rearmed`,
    // `stoppedAfter` and the inherited `action` are guarded by the timeline's lock.
    let interval: Interval?
    private weak var timeline: Timeline?
    /// The date of the first run; the k-th repeat is due at `start + k × interval`.
    var start: Time?
    /// How many times the action has been re-armed.
    var rearmed = 0
    /// The date after which the interval could not move the date any more, if it stopped.
    var stoppedAfter: Time?

    /// A handle of `timeline` (of no timeline, for driving a ``TimelineState`` alone).
    init(timeline: Timeline?, interval: Interval?, action: @escaping Action) {
      self.timeline = timeline
      self.interval = interval
      super.init(repeats: interval != nil, action: action)
    }

    /// Cancels the action: it will not run again, and its closure is released at once.
    /// Cancelling twice, after the action ran, or after the timeline is gone does nothing.
    /// - Complexity: amortized O(1)
    package func cancel() {
      timeline?.cancel(self)
    }
  }

  /// Cancels `handle`, releasing its closure after unlocking.
  fileprivate func cancel(_ handle: Handle) {
    let released = lock.withLock { () -> (Action, AnyObject?)? in
      guard let action = state.cancel(handle) else { return nil }
      return (action, updateHold())
    }
    // The closure is released here, outside the lock: its captures' deinits are user code.
    withExtendedLifetime(released) {}
  }
}
