import IssueReporting
import TempoExecutor
@_spi(TempoInternals) import TempoSupport

/// Runs `operation` with a test executor, so that test clocks and test schedulers advanced
/// inside it wait for the work they release to go quiet, by construction.
///
/// Inside the scope, every job that the test's tasks make runnable runs on one executor that
/// belongs to this test, one at a time, in the order the jobs became runnable. After each
/// sleeper it resumes or action it runs, an async `advance` or `run` waits until that executor
/// has nothing queued and nothing running, then takes the next step. No yield counts, no
/// time-outs.
///
/// ```swift
/// func testWelcome() async {
///   await withTestExecutor {
///     let clock = TestClock()
///     let model = FeatureModel(clock: clock)
///     Task { await model.onAppear() }
///     await clock.advance(by: .seconds(5))
///     XCTAssertTrue(model.message == "Welcome!")
///   }
/// }
/// ```
///
/// You rarely need to write it: a `TestClock`, `TestScheduler` or `TestTimeline` created inside
/// a test's task opens a test executor of its own for that task and the tasks it starts, and one
/// made outside any task (an XCTest property) does so at its first async advance, for the
/// advancing task and every task it started before. The scope makes it explicit, and covers
/// work that no task of the test starts (a task started from a plain GCD block, for example).
///
/// In Swift Testing, the `.testExecutor` trait (``TestExecutorTrait``) does the same for a test or a
/// suite. Scopes of tests that run in parallel are independent. What the executor can and cannot
/// see is described in the article "Deterministic async advancing". On a runtime without the
/// executor hooks (before Swift 6.1: macOS 15.0–15.3, iOS and tvOS 18.0–18.3, watchOS
/// 11.0–11.3, visionOS 2.0–2.3) the scope cannot see any job: it runs `operation` as if there
/// were no scope, async advances settle by the fallback, and a warning says so once per process
/// (it does not fail the test).
///
/// - Parameters:
///   - isolation: The actor the operation runs on: the caller's, by default.
///   - includingMainQueueBlocks: Also wait for work started by plain GCD blocks on the main
///     queue (`DispatchQueue.main.async { … }`), which are not jobs and are not counted: each
///     wait for quiet then ends with a round trip through the main queue, repeated until it
///     finds nothing new. Main-actor tasks and hops are counted without it.
///   - leftoverWork: What the end of the scope does with work the test leaves behind (sleepers
///     and actions pending on its test clocks and schedulers, tasks it started that have not
///     finished): say so as a warning (the default), fail the test, or ignore it. See
///     ``LeftoverWork``. Background work (``backgroundTask(fileID:filePath:line:column:_:)``)
///     is cancelled and waited for first, either way.
///   - fileID: The file a leftover-work report points at: the caller's.
///   - filePath: The file path a leftover-work report points at: the caller's.
///   - line: The line a leftover-work report points at: the caller's.
///   - column: The column a leftover-work report points at: the caller's.
///   - operation: The test.
@available(TempoTestExecutor 1.0, *)
public func withTestExecutor<Result>(
  isolation: isolated (any Actor)? = #isolation,
  includingMainQueueBlocks: Bool = false,
  leftoverWork: LeftoverWork = .warn,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ operation: () async throws -> Result
) async rethrows -> Result {
  let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  let (result, leftover) = try await withTestScope(
    includingMainQueueBlocks: includingMainQueueBlocks, leftoverWork: leftoverWork,
    at: location, operation)
  if let leftover {
    location.report(
      leftover.message + leftover.hint(for: "withTestExecutor"), asWarning: leftover.isWarning)
  }
  return result
}

/// The work a test left behind, as the end of its scope found it.
struct LeftoverReport {
  let message: String
  let isWarning: Bool

  /// How to turn the check off or on, for the spelling the test used.
  func hint(for spelling: String) -> String {
    isWarning
      ? "\n(A warning: \(spelling)(leftoverWork: .fail) makes it fail the test, .ignore turns it off.)"
      : "\n(\(spelling)(leftoverWork: .ignore) turns this check off for one test.)"
  }
}

/// The scope of a test: opens its executor (unless one is open already), runs `operation`,
/// then ends its background work and looks for leftover work (unless `operation` threw), and
/// closes the executor. Answers the result and what was left over, for the caller to report
/// where the test is.
@available(TempoTestExecutor 1.0, *)
func withTestScope<Result>(
  isolation: isolated (any Actor)? = #isolation,
  includingMainQueueBlocks: Bool,
  leftoverWork: LeftoverWork,
  at location: SourceLocation,
  reportInScope: (@Sendable (String) -> Void)? = nil,
  _ operation: () async throws -> Result
) async rethrows -> (Result, LeftoverReport?) {
  if let executor = TestExecutor.openScope {
    // Already inside a scope: one test, one executor; the outer scope ends the test.
    executor.includesMainQueueBlocks = includingMainQueueBlocks
    return (try await operation(), nil)
  }
  guard TestExecutor.isSupported else {
    TestExecutor.warnOnceThatHooksAreMissing()
    return (try await operation(), nil)
  }
  let executor = TestExecutor(
    includingMainQueueBlocks: includingMainQueueBlocks, scope: location,
    reportInScope: reportInScope)
  defer { executor.close() }
  let census = TaskCensus()
  // The closures name `isolation`, which keeps them in the caller's isolation: a closure that
  // does not runs on the generic executor, and a scope on the main actor left it and came back
  // twice on its way in.
  let result: Result
  do {
    result = try await TestExecutor.withCurrent(executor, isolation: isolation) {
      // The body's end, thrown or returned: its sleepers no longer hold the test up.
      defer { executor.bodyEnded() }
      // The body runs on the executor from its first job. Left where the test runner started
      // it, on the runtime's generic executor, a `Task.yield()` of the body would go to the
      // system's queue unseen, and a body that only yields (a loop waiting for a state) would
      // look quiet while it waits for a thread.
      await executor.rejoin(isolation: isolation)
      return try await TaskCensus.$token.withValue(census.makeToken()) {
        _ = isolation
        return try await operation()
      }
    }
  } catch {
    // A test that threw has failed already: its background work and sleeps end, unreported.
    _ = await executor.leftoverWork(tasksAreRunning: { false }, endingSleeps: true, at: location)
    throw error
  }
  guard leftoverWork != .ignore else {
    // Background work and sleeps end with the test all the same.
    _ = await executor.leftoverWork(tasksAreRunning: { false }, endingSleeps: true, at: location)
    return (result, nil)
  }
  let message = await executor.leftoverWork(
    tasksAreRunning: { census.tasksAreRunning }, endingSleeps: true, at: location)
  return (result, message.map { LeftoverReport(message: $0, isWarning: leftoverWork == .warn) })
}
