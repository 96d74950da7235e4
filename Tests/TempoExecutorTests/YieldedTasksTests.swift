import TempoRuntimeABI
import Testing

@testable import TempoExecutor

/// The watch list of a test's tasks: a look lets go of the tasks that have ended, in the order
/// they were added, and keeps the others, in theirs.
@Suite struct YieldedTasksTests {
  @Test func aLookLetsGoOfTheEndedTasksAndKeepsTheOthersInOrder() async throws {
    var tasks: [WaitingTask] = []
    for _ in 0..<5 { tasks.append(try await WaitingTask.start()) }
    // Retained for the watch list, as an executor retains the tasks it watches.
    for waiting in tasks { tempo_task_retain(waiting.address) }
    var watched = YieldedTasks()
    for waiting in tasks { #expect(watched.add(waiting.address).isEmpty) }
    for ending in [0, 2, 3] { await tasks[ending].end() }

    let look = watched.look(skipping: { _ in false })

    #expect(look.ended == [0, 2, 3].map { tasks[$0].address })
    #expect(!look.yielding)
    // Nothing is parked in a yield, so the next look reads nothing until something may have
    // escaped again; the kept tasks are the two still waiting, in the order they were added.
    watched.processingJobQueued()
    #expect(watched.look(skipping: { _ in false }).ended.isEmpty)
    let kept = watched.removeAll()
    #expect(kept == [1, 4].map { tasks[$0].address })
    for index in [1, 4] { await tasks[index].end() }
    for waiting in tasks { tempo_task_release(waiting.address) }
  }
}
