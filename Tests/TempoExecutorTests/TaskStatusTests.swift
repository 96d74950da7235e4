import Dispatch
import Synchronization
import TempoRuntimeABI
import Testing

/// The one field of the runtime's task layout that Tempo reads besides the job header: whether
/// a task is running or queued to run, which tells when the job a task ran as a clock opened
/// its executor has ended. Only this platform's layout is checked here (Linux's flags; Apple's
/// execution lock is read by the same function and not run here).
@Suite struct TaskStatusTests {
  @Test func theCurrentTaskIsRunning() {
    let current = withUnsafeCurrentTask { unsafeBitCast($0!, to: UnsafeRawPointer.self) }
    #expect(tempo_task_is_runnable(current))
  }

  @Test func aSuspendedTaskIsNotRunningNorAnEndedOneKeptAlive() async throws {
    let waiting = try await WaitingTask.start()
    let task = waiting.address
    tempo_task_retain(task)
    defer { tempo_task_release(task) }
    // It is running until it suspends in the loop: it reads not running once it has.
    var suspended = false
    for _ in 0..<1_000_000 where !suspended {
      suspended = !tempo_task_is_runnable(task)
      if !suspended { await Task.yield() }
    }
    #expect(suspended)
    await waiting.end()
    #expect(!tempo_task_is_runnable(task))
  }

  /// A task that waits to enter an actor another task holds is queued there: runnable.
  @Test func aTaskQueuedOnABusyActorIsRunnable() async throws {
    let gate = Gate()
    let slot = WaitingTask.Slot()
    let holder = Task { await gate.hold() }
    await gate.waitUntilHeld()
    let queued = Task.detached {
      slot.task = withUnsafeCurrentTask { unsafeBitCast($0!, to: UnsafeRawPointer.self) }
      await gate.enter()
    }
    // Until the queued task is enqueued on the actor, it is running: runnable either way, and
    // by the last of these reads long since queued (its flags then read 0x5015 here: queued,
    // not running).
    while slot.task == nil { await Task.yield() }
    let task = try #require(slot.task)
    tempo_task_retain(task)
    defer { tempo_task_release(task) }
    var runnable = true
    for _ in 0..<100_000 { runnable = runnable && tempo_task_is_runnable(task) }
    gate.release()
    await holder.value
    await queued.value
    #expect(runnable)
  }
}

extension TaskStatusTests {
  /// A task running a job on the main queue (a main-actor task's first job) reads as running
  /// from another thread, from its first line to its last.
  @Test func aTaskRunningAMainActorJobIsRunnableFromAnotherThread() async throws {
    let slot = WaitingTask.Slot()
    let started = Flag()
    let done = Flag()
    let task = Task { @MainActor in
      slot.task = withUnsafeCurrentTask { unsafeBitCast($0!, to: UnsafeRawPointer.self) }
      started.set()
      while !done.isSet {}
    }
    while !started.isSet { await Task.yield() }
    let pointer = try #require(slot.task)
    tempo_task_retain(pointer)
    defer { tempo_task_release(pointer) }
    var notRunnable = 0
    for _ in 0..<100_000 where !tempo_task_is_runnable(pointer) { notRunnable += 1 }
    done.set()
    await task.value
    #expect(notRunnable == 0)
  }
}

/// An actor that one task holds, spinning, until the test lets it go. It runs on a queue of its
/// own, whose thread is not one of the system pool's: spinning there, it cannot starve the
/// tasks that would let it go (on two cores, a spinning pool thread beside another test's
/// busy one left none for them, and the suite hung).
private actor Gate {
  private nonisolated let held = Flag()
  private nonisolated let released = Flag()
  private nonisolated let executor = QueueExecutor()

  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  func hold() {
    held.set()
    while !released.isSet {}
  }

  func enter() {}

  nonisolated func waitUntilHeld() async {
    while !held.isSet { await Task.yield() }
  }

  nonisolated func release() { released.set() }
}

/// A serial executor on a dispatch queue of its own.
private final class QueueExecutor: SerialExecutor {
  private let queue = DispatchQueue(label: "TaskStatusTests.Gate")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
  }
}

private final class Flag: Sendable {
  private let value = Mutex(false)
  var isSet: Bool { value.withLock { $0 } }
  func set() { value.withLock { $0 = true } }
}
