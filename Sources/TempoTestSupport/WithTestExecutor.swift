import IssueReporting
import TempoExecutor

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
///   - operation: The test.
@available(TempoTestExecutor 1.0, *)
public func withTestExecutor<Result>(
  isolation: isolated (any Actor)? = #isolation,
  includingMainQueueBlocks: Bool = false,
  _ operation: () async throws -> Result
) async rethrows -> Result {
  if let executor = TestExecutor.current, executor.isOpen {
    // Already inside a scope: one test, one executor.
    executor.includesMainQueueBlocks = includingMainQueueBlocks
    return try await operation()
  }
  guard TestExecutor.isSupported else {
    TestExecutor.warnOnceThatHooksAreMissing()
    return try await operation()
  }
  let executor = TestExecutor(includingMainQueueBlocks: includingMainQueueBlocks)
  defer { executor.close() }
  return try await TestExecutor.$current.withValue(executor) { try await operation() }
}
