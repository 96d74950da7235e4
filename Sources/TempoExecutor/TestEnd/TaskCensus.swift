@_spi(TempoInternals) import TempoSupport

/// Tells whether a task started inside a scope is still running after the scope's own work has
/// returned.
///
/// Every task started with `Task {}` copies the task-local values of the task that starts it,
/// and a task releases its copies when it completes (whether or not its handle is kept). So a
/// token bound as a task-local for the length of the scope is alive, once the scope's binding
/// is gone, exactly while some task started inside it (or started by such a task) has not
/// completed. Detached tasks copy nothing, and are not seen.
///
/// ```swift
/// let census = TaskCensus()
/// await TaskCensus.$token.withValue(census.makeToken()) { await operation() }
/// census.tasksAreRunning   // true while a task started in `operation` runs
/// ```
package final class TaskCensus: @unchecked Sendable {
  // Invariant: `lock` guards `token`, a weak reference that holds nothing alive.
  private let lock = Lock()
  private weak var token: Token?

  /// The token tasks carry: a task-local, bound by the scope.
  @TaskLocal package static var token: Token?

  /// A token whose lifetime tells whether tasks still run.
  package final class Token: Sendable {}

  package init() {}

  /// A new token for the scope to bind; the census keeps only a weak reference to it.
  package func makeToken() -> Token {
    let token = Token()
    lock.withLock { self.token = token }
    return token
  }

  /// Whether a task that carries the token has not completed yet (the scope's own binding must
  /// be gone).
  package var tasksAreRunning: Bool { lock.withLock { token != nil } }
}
