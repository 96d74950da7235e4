import TempoExecutor

/// Runs `operation`, work the test executor cannot see (a real network call, a file, another
/// process, a thread of its own), as work in flight: while it runs, auto-advancing time does
/// not jump and a pending sleep is not reported as a hang.
///
/// The test executor counts the jobs of a test's tasks, so it knows when they are all
/// suspended. It cannot know why: a task waiting on a `TestClock` and a task waiting on a
/// server look the same. Auto-advance takes that quiet as its cue to move time, and the hang
/// report takes a second of it as a hang. Say when the test really waits on the world:
///
/// ```swift
/// @Test func timesOutSlowServers() async throws {
///   let clock = TestClock()
///   clock.automaticallyAdvances = true
///   let client = Client(clock: clock, timeout: .seconds(5))
///   // The five-second timeout must not fire while the real request is in flight.
///   let response = try await withOutsideWork { try await client.fetch(localServerURL) }
///   #expect(response.status == 200)
/// }
/// ```
///
/// It applies to the test of the calling task: the open `withTestExecutor` scope or
/// `.testExecutor` test, or the executor a test clock opened for the task. Outside any of them
/// (no test executor, or a runtime without the executor hooks) it only runs `operation`.
///
/// - Parameters:
///   - isolation: The actor the operation runs on: the caller's, by default.
///   - operation: The work outside the test's sight, and what waits for it.
/// - Returns: What `operation` returns.
@available(TempoTestExecutor 1.0, *)
public func withOutsideWork<Result>(
  isolation: isolated (any Actor)? = #isolation,
  _ operation: () async throws -> Result
) async rethrows -> Result {
  let executor = TestExecutor.ofCurrentTest
  executor?.beginOutsideWork()
  defer { executor?.endOutsideWork() }
  return try await operation()
}
