@_spi(TempoInternals) package import TempoSupport

/// Something whose pending work a test executor lists when its test ends: a lone timeline, or a
/// shared one (which lists its members').
package protocol LeftoverWorkSource: AnyObject, Sendable {
  /// The pending work, one line per item under a head line; nil if nothing is pending.
  var leftoverDescription: String? { get }
}

/// What a test executor knows of the work its test may leave behind: the time sources made for
/// the test, and the tasks it started as background work.
///
/// ```swift
/// executor.leftovers.add(timeline)             // a clock or scheduler made in the test
/// let pending = executor.leftovers.pending     // what is still due on them
/// ```
package final class Leftovers: @unchecked Sendable {
  // Invariant: `lock` guards `sources` and `background`, and is held only inside these
  // methods, which call nothing out; the references they answer are released after unlocking.
  private let lock = Lock()
  private var sources: [WeakSource] = []
  private var background: [BackgroundWork] = []

  private struct WeakSource {
    weak var source: (any LeftoverWorkSource)?
  }

  package init() {}

  /// Lists `source`'s pending work when the test ends (once, however often it is added).
  package func add(_ source: any LeftoverWorkSource) {
    lock.withLock {
      sources.removeAll { $0.source == nil }
      guard !sources.contains(where: { $0.source === source }) else { return }
      sources.append(WeakSource(source: source))
    }
  }

  /// The pending work of every source still alive that has some, one description each.
  package var pending: [String] {
    let live = lock.withLock { sources.compactMap(\.source) }
    return live.compactMap(\.leftoverDescription)
  }

  /// Remembers background work, to end when the test ends.
  package func add(_ work: BackgroundWork) {
    lock.withLock { background.append(work) }
  }

  /// The background work started so far; it is forgotten here.
  package func takeBackground() -> [BackgroundWork] {
    lock.withLock {
      defer { background = [] }
      return background
    }
  }
}

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
