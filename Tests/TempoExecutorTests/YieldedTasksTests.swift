import TempoRuntimeABI
import Testing

@testable import TempoExecutor

/// The watch list of a test's tasks: a look lets go of the tasks that have ended, in the order
/// they were added, and keeps the others, in theirs.
@Suite struct YieldedTasksTests {
  /// A task that has started and stays suspended until `release`, and its address.
  struct Waiting {
    let task: Task<Void, Never>
    let address: UnsafeRawPointer
    let release: AsyncStream<Void>.Continuation
  }

  final class Slot: @unchecked Sendable {
    // Invariant: written once by the task, read after the test has seen it written.
    nonisolated(unsafe) var task: UnsafeRawPointer?
  }

  /// A task that waits on a stream, retained once for the watch list.
  static func waiting() async throws -> Waiting {
    let slot = Slot()
    let (stream, release) = AsyncStream<Void>.makeStream()
    let (started, ready) = AsyncStream<Void>.makeStream()
    let task = Task {
      slot.task = withUnsafeCurrentTask { unsafeBitCast($0!, to: UnsafeRawPointer.self) }
      ready.yield()
      for await _ in stream { break }
    }
    for await _ in started { break }
    let address = try #require(slot.task)
    tempo_task_retain(address)
    return Waiting(task: task, address: address, release: release)
  }

  @Test func aLookLetsGoOfTheEndedTasksAndKeepsTheOthersInOrder() async throws {
    let tasks = [
      try await Self.waiting(), try await Self.waiting(), try await Self.waiting(),
      try await Self.waiting(), try await Self.waiting(),
    ]
    var watched = YieldedTasks()
    for waiting in tasks { #expect(watched.add(waiting.address).isEmpty) }
    for ending in [0, 2, 3] {
      tasks[ending].release.yield()
      await tasks[ending].task.value
    }

    let look = watched.look(skipping: { _ in false })

    #expect(look.ended == [0, 2, 3].map { tasks[$0].address })
    #expect(!look.yielding)
    // Nothing is parked in a yield, so the next look reads nothing until something may have
    // escaped again; the kept tasks are the two still waiting, in the order they were added.
    watched.processingJobQueued()
    #expect(watched.look(skipping: { _ in false }).ended.isEmpty)
    let kept = watched.removeAll()
    #expect(kept == [1, 4].map { tasks[$0].address })
    for index in [1, 4] {
      tasks[index].release.yield()
      await tasks[index].task.value
    }
    for waiting in tasks { tempo_task_release(waiting.address) }
  }
}
