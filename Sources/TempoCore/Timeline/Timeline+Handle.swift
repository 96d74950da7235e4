@_spi(TempoInternals) package import TempoSupport

extension Timeline {
  /// A pending action that can be cancelled.
  package final class Handle: TimelineHandle, @unchecked Sendable {
    // Invariant: `interval`, `timeline` and `label` are immutable once scheduled; `start`, `rearmed`,
    // `stopDate` and the inherited `action` and `hasStopped` are guarded by the timeline's lock.
    //
    // No field is an optional of `Time` or `Interval`: unspecialized code looks up the metadata
    // of such an optional (a few hundred instructions) whenever it copies or destroys one, so
    // the handle keeps plain values and flags instead. Every access is under the timeline's
    // lock, so the runtime's exclusivity checks are left out (`@exclusivity(unchecked)`).
    /// The interval between repeats; meaningless when the handle does not repeat.
    let interval: Interval
    /// What the action is, for listings of pending work, when the time source does not say it
    /// all (a system sleep a test clock took); set before the handle is scheduled.
    package internal(set) var label: String?
    private weak var timeline: Timeline?
    /// The date of the first run; the k-th repeat is due at `start + k × interval`.
    @exclusivity(unchecked) var start: Time
    /// How many times the action has been re-armed.
    @exclusivity(unchecked) var rearmed = 0
    /// The date after which the interval could not move the date any more, once it stopped.
    @exclusivity(unchecked) private var stopDate: Time

    /// A handle of `timeline` (of no timeline, for driving a ``TimelineState`` alone) that runs
    /// `action` first at `start`, then every `interval` if `repeats`.
    required init(
      timeline: Timeline?, interval: Interval, repeats: Bool, start: Time,
      action: @escaping Action
    ) {
      self.timeline = timeline
      self.interval = interval
      self.start = start
      self.stopDate = start
      super.init(repeats: repeats, action: action)
    }

    /// The date after which the interval could not move the date any more, if it stopped.
    var stoppedAfter: Time? { hasStopped ? stopDate : nil }

    /// Counts a repeat due at `date` and writes the date of the next one to `next`: on the grid
    /// (`start + k × interval`) when the interval can be multiplied exactly, as adding it to the
    /// previous date again and again would add the date type's rounding at every repeat. If the
    /// interval cannot move `date`, clears the action, remembers `date` in ``stoppedAfter`` and
    /// answers false. Call with the timeline's lock held, only for a handle that repeats.
    @inline(never)
    func next(
      after date: Time, into next: inout Time, advancedBy: (Time, Interval) -> Time,
      grid: (any TimelineGridStride.Type)?
    ) -> Bool {
      rearmed += 1
      var span = interval
      if let grid, gridMultiply(interval, by: rearmed, as: grid, into: &span) {
        next = advancedBy(start, span)
      } else {
        next = advancedBy(date, interval)
      }
      guard date < next else {
        action = nil
        stopDate = date
        hasStopped = true
        return false
      }
      return true
    }

    /// Cancels the action: it will not run again, and its closure is released at once.
    /// Cancelling twice, after the action ran, or after the timeline is gone does nothing.
    ///
    /// - Complexity: amortized O(1)
    override package func cancel() {
      timeline?.cancel(self)
    }

    override package func noteSleeper(_ sleeper: Sleeper) {
      guard let timeline else { return }
      timeline.lock.withLock { if action != nil { self.sleeper = sleeper } }
    }

    override package var progressMark: UInt64 { timeline?.progressMark ?? 0 }

    override package var isAdvancedByItself: Bool { timeline?.isAdvancedByItself ?? false }

    override package var creation: SourceLocation? {
      guard let timeline else { return nil }
      return timeline.lock.withLock { timeline.creation }
    }

    override package func describeSleep() -> String? {
      guard let timeline else { return nil }
      let (due, now, creation) = timeline.lock.withLock {
        (timeline.describe(start), timeline.describe(timeline.state.now), timeline.creation)
      }
      let source = describeSource(timeline.name, createdAt: creation)
      return "due at \(due) on \(source) (its time is \(now))" + (label.map { ": \($0)" } ?? "")
    }
  }

  /// Cancels `handle`, releasing its closure after unlocking.
  fileprivate func cancel(_ handle: Handle) {
    // `lock()` and `unlock()` rather than `withLock`: returning the closure from the generic
    // `withLock` would re-wrap it in a thunk, one allocation per cancellation.
    lock.lock()
    guard let action = TimelineEvents.cancel(&state, handle) else {
      // Cancelled before, or already run: nothing to release (a `Cancellable` that cancels
      // again when released, as `AnyCancellable` does, comes here every time).
      lock.unlock()
      return
    }
    let released = ReleasedAction(action: action, hold: updateHold())
    lock.unlock()
    // The closure is released here, outside the lock: its captures' deinits are user code.
    withExtendedLifetime(released) {}
  }
}

/// A cancelled action and the reference a cancellation released, kept until after unlocking.
/// A struct, not a tuple: passing a closure to the generic `withExtendedLifetime` as such would
/// re-wrap it in a thunk, one allocation per cancellation. Declared outside the generic
/// `Timeline`: nested in it, the struct would be generic too, and the unspecialized `cancel(_:)`
/// would ask the runtime for its metadata at every cancellation (about 320 instructions).
private struct ReleasedAction {
  let action: () -> Void
  let hold: AnyObject?
}
