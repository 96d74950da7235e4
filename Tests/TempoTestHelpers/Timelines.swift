package import TempoCore
import TempoExecutor

// Timelines made directly by Tempo's own tests, served by the test executor as the fronts'
// are (the fronts hand every timeline its scope: `ImplicitScope`).

extension Timeline {
  /// A lone timeline starting at `now`, with the scope a front gives it.
  package convenience init(
    now: Time, name: String, describe: ((Time) -> String)? = nil,
    advancedBy: @escaping (Time, Interval) -> Time
  ) {
    self.init(
      now: now, name: name, describe: describe, scope: ImplicitScope.init(lock:),
      advancedBy: advancedBy)
  }
}

extension SharedTimeline {
  /// A shared timeline with the scope a test timeline gives it.
  package convenience init() {
    self.init(scope: ImplicitScope())
  }
}
