@_spi(TempoInternals) import TempoSupport

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

    /// Counts a repeat due at `date` and writes the date of the next one to `next`: on the grid
    /// (`start + k × interval`) when the interval can be multiplied exactly, as adding it to the
    /// previous date again and again would add the date type's rounding at every repeat. If the
    /// interval cannot move `date`, clears the action, remembers `date` in ``stoppedAfter`` and
    /// answers false. Call with the timeline's lock held.
    ///
    /// A method of this class, not inlined, so that unspecialized code looks up the metadata of
    /// the optional dates it reads only when an action repeats.
    @inline(never)
    func next(
      after date: Time, into next: inout Time, advancedBy: (Time, Interval) -> Time,
      multiply: ((Interval, Int) -> Interval?)?
    ) -> Bool {
      guard let interval else { return true }
      rearmed += 1
      if let start, let multiply, let span = multiply(interval, rearmed) {
        next = advancedBy(start, span)
      } else {
        next = advancedBy(date, interval)
      }
      guard date < next else {
        action = nil
        stoppedAfter = date
        return false
      }
      return true
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
