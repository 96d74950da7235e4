import Testing

/// A task that has started and waits, suspended on a stream, until ``end()``; and its address,
/// for reading its status through `TempoRuntimeABI` (not retained: retain it to read it after
/// it ends).
///
/// ```swift
/// let waiting = try await WaitingTask.start()
/// #expect(!tempo_task_is_complete(waiting.address))
/// await waiting.end()
/// ```
struct WaitingTask {
  let task: Task<Void, Never>
  let address: UnsafeRawPointer
  private let release: AsyncStream<Void>.Continuation

  final class Slot: @unchecked Sendable {
    // Invariant: written once by the task, read after the test has seen it written.
    nonisolated(unsafe) var task: UnsafeRawPointer?
  }

  static func start() async throws -> WaitingTask {
    let slot = Slot()
    let (stream, release) = AsyncStream<Void>.makeStream()
    let (started, ready) = AsyncStream<Void>.makeStream()
    let task = Task {
      slot.task = withUnsafeCurrentTask { unsafeBitCast($0!, to: UnsafeRawPointer.self) }
      ready.yield()
      for await _ in stream {}
    }
    for await _ in started { break }
    return WaitingTask(task: task, address: try #require(slot.task), release: release)
  }

  /// Lets the task end, and waits until it has.
  func end() async {
    release.finish()
    await task.value
  }
}
