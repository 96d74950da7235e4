import IssueReporting
import TempoCore

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
/// In Swift Testing, the `.testExecutor` trait (``TestExecutorTrait``) does the same for a test or a
/// suite. What the executor can and cannot see is described in the article "Deterministic
/// async advancing". On a runtime without the global enqueue hook the scope cannot see any job:
/// it reports an issue and runs `operation` without a test executor.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public func withTestExecutor<Result>(
  isolation: isolated (any Actor)? = #isolation,
  _ operation: () async throws -> Result
) async rethrows -> Result {
  if let executor = TestExecutor.current, executor.isOpen {
    // Already inside a scope: one test, one executor.
    return try await operation()
  }
  guard TestExecutor.isSupported else {
    reportIssue(
      """
      This Swift runtime has no global enqueue hook, so a test executor cannot see the test's \
      jobs; clocks and schedulers advance as they do outside a scope.
      """)
    return try await operation()
  }
  await TestExecutor.turns.take()
  let executor = TestExecutor()
  defer {
    executor.close()
    TestExecutor.turns.pass()
  }
  return try await TestExecutor.$current.withValue(executor) {
    // The test's own task is one of its tasks: it runs on the executor from its next hop on.
    TestExecutor.noteCurrentTask()
    return try await operation()
  }
}
