package import TempoSupport

/// Something a timeline runs: a one-shot closure, or a handle that can be cancelled and may
/// repeat.
enum TimelineJob {
  case once(() -> Void)
  case handle(TimelineHandle)

  /// Whether this job's entry only waits to be dropped.
  var isCancelled: Bool {
    if case .handle(let handle) = self { return handle.action == nil }
    return false
  }
}

/// The part of a timeline's handle that its pending work needs: the action, and whether it
/// repeats. ``Timeline/Handle`` adds the interval and the way back to its timeline.
package class TimelineHandle: @unchecked Sendable {
  // Invariant: `action` is read and written only under the owning timeline's lock. It is
  // non-nil exactly while an entry for this handle is pending and still due to run.
  // Unchecked exclusivity: every access is under that lock.
  @exclusivity(unchecked) final var action: (() -> Void)?
  final let repeats: Bool
  /// Whether a repeating handle stopped because its interval could not move its date any more.
  /// Guarded like `action`.
  @exclusivity(unchecked) final var hasStopped = false
  /// The sleep this handle wakes, if it wakes one: what the end of a test ends (see
  /// ``Timeline/pendingSleeps``). Guarded like `action`; set before the handle is scheduled, or
  /// through ``noteSleeper(_:)``. It stays set once the sleep is over (the sleeper no longer
  /// holds the handle then, so the two make no cycle).
  @exclusivity(unchecked) final var sleeper: Sleeper?

  init(repeats: Bool, action: @escaping () -> Void) {
    self.repeats = repeats
    self.action = action
  }

  /// Cancels the action (see ``Timeline/Handle/cancel()``, which overrides this). Declared on
  /// this non-generic class so that a closure that cancels a handle can capture the handle
  /// alone: a closure over the generic `Timeline.Handle` captures its generic types too, and is
  /// allocated every time it is made.
  package func cancel() {}

  /// Remembers that this handle wakes `sleeper`, if its action is still pending (see
  /// ``Timeline/Handle``, which overrides this): for a wake-up scheduled through an API that
  /// knows nothing of sleepers, as a scheduler's is.
  package func noteSleeper(_ sleeper: Sleeper) {}

  /// A mark of the owning timeline that changes whenever it runs an action or moves its time
  /// (see ``Timeline/Handle``, which overrides this); what the hang watch compares.
  package var progressMark: UInt64 { 0 }

  /// Whether the owning timeline's time moves by itself now: its auto-advance driver runs, and
  /// will reach this action once the test is quiet (see ``Timeline/Handle``).
  package var isAdvancedByItself: Bool { false }

  /// "due at 5.0 seconds on TestClock created at FeatureTests.swift:12 (its time is 0.0
  /// seconds)": the pending action as the hang report writes it; nil once its timeline is gone.
  package func describeSleep() -> String? { nil }

  /// Where the owning timeline's clock or scheduler was made; nil once its timeline is gone
  /// (see ``Timeline/Handle``, which overrides this).
  package var creation: SourceLocation? { nil }
}
