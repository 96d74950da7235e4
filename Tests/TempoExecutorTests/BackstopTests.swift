import Dispatch
import TempoClocks
import TempoCore
import TempoExecutor
import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

// The backstop: an advancing action that blocks until a job it released has run still
// finishes, because the one thread that times every executor's backstop runs that job on a
// thread of its own, even with the main thread held or every thread of the shared pool blocked.

@Suite struct BackstopTests {
  /// An action runs with the executor's thread left asleep, since the advancing thread runs the
  /// jobs the action releases right after it. An action that blocks until one of those jobs has
  /// run (a task started in the action, of the test's scope) must still get it run.
  @Test func anActionThatBlocksOnAJobOfTheTestStillFinishes() async {
    await withTestExecutor {
      let ran = await runAnActionThatBlocksOnAJob(detached: false)
      #expect(ran == ["task", "action"])
    }
  }

  /// A `@MainActor` test's advance holds the main thread while its action runs: an action that
  /// blocks until a job of the test has run gets that job run by the backstop, on a system
  /// thread.
  @MainActor @Test func anActionThatBlocksTheMainThreadOnAJobStillFinishes() async {
    await withTestExecutor {
      let ran = await runAnActionThatBlocksOnAJob()
      #expect(ran == ["task", "action"])
    }
  }

  /// Several drivers blocked in their actions at once, more than the shared pool has threads,
  /// are each rescued by the one backstop thread. (Run on the pool, the backstop's pump waited
  /// for a thread the blocked drivers held: four such scopes took a second.)
  @Test func actionsBlockedInParallelScopesAllFinish() async {
    let results = await withTaskGroup(of: [String].self) { group in
      for _ in 0..<4 {
        group.addTask { await withTestExecutor { await runAnActionThatBlocksOnAJob() } }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results == Array(repeating: ["task", "action"], count: 4))
  }
}

/// Schedules on a timeline an action that starts a task (a detached one if `detached`) and
/// blocks until that task has run, advances to it, and answers what ran, in order.
private func runAnActionThatBlocksOnAJob(
  detached: Bool = true, isolation: isolated (any Actor)? = #isolation
) async -> [String] {
  let timeline = Timeline<Int, Int>(now: 0, name: "Timeline") { $0 + $1 }
  let location = TempoSupport.SourceLocation(
    fileID: #fileID, filePath: #filePath, line: #line, column: #column)
  let ran = Log<String>()
  timeline.schedule(after: 1, at: location) {
    let done = DispatchSemaphore(value: 0)
    let body: @Sendable () -> Void = {
      ran.append("task")
      done.signal()
    }
    if detached { Task.detached(operation: body) } else { Task(operation: body) }
    done.wait()
    ran.append("action")
  }
  await timeline.advance(by: 1, at: location)
  return ran.values
}
