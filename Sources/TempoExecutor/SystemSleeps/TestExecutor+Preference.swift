import Synchronization

/// The test's tasks prefer Tempo's task executor for a stretch of code
/// (`TestClock.controlSystemSleeps(_:)`), so that the system sleeps made inside default actors'
/// methods reach the clock.
///
/// A sleep asks, in order, the executor of the isolation it runs in, the task's executor
/// preference and the task executor of the job its thread runs, for one that schedules jobs
/// itself. In a default actor's method the first is the actor's, which does not; the actor runs
/// the task with the task's own preference, which a test's tasks lack, so the sleep goes to the
/// platform's timers. With the stand-in as their preference, the sleep comes to Tempo, and so
/// do the task's structured children's (`async let`, task groups), which inherit it. A task
/// started with `Task { }` inherits none.
///
/// It is not the default because the runtime takes a task's status-record lock at every switch
/// of a task that has a preference: on every scoped test, that cost 7 % of a whole test in a
/// debug build (`Benchmarks/Logs/task-executor-preference-2026-11-29.md`).
///
/// ```swift
/// await TestExecutor.withPreference { await poller.poll() }
/// ```
@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Runs `body` with Tempo's task executor as the current task's preference. Its main-actor
  /// jobs then run with that task executor too (``MainExecutor``), so that entering the main
  /// actor's isolation costs no switch.
  package static func withPreference<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
  ) async rethrows -> Result {
    tasksPreferring.add(1, ordering: .relaxed)
    defer { tasksPreferring.subtract(1, ordering: .relaxed) }
    return try await withTaskExecutorPreference(
      TestExecutorStandIn.running, isolation: isolation, operation: body)
  }

  /// How many tasks are inside ``withPreference(isolation:_:)`` now: while none is, no task
  /// prefers the stand-in, and the main executor need not read a task's preference at each job.
  /// Counted before the preference is pushed and after it is popped, in the task itself, so a
  /// task whose job reads as preferring it is always counted.
  static let tasksPreferring = Atomic<Int>(0)
}
