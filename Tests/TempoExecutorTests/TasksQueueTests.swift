import Foundation
import Synchronization
import TempoTestSupport
import Testing

@testable import TempoExecutor

/// The looks of a wait for a task parked in an unseen yield go through the queue its
/// continuation waits on: the runtime's global concurrent executor.
@Suite struct TasksQueueTests {
  /// A look queued after other jobs on the tasks' queue starts after they have all started:
  /// the queue starts its jobs in order, a few at a time (as many as the machine has
  /// processors), so at most that many, started, may not have run their first line yet.
  @Test func aLookStartsOnlyOnceTheJobsQueuedBeforeItHaveStarted() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let started = Atomic<Int>(0)
    let ahead = 500
    let priority = TaskPriority.medium.rawValue
    let seen = await withUnsafeContinuation { (continuation: UnsafeContinuation<Int, Never>) in
      // From a thread that runs no task, as the waits look.
      DispatchQueue.global().async {
        for _ in 0..<ahead {
          TasksQueue.enqueue(priority: priority) { started.add(1, ordering: .relaxed) }
        }
        TasksQueue.enqueue(priority: priority) {
          continuation.resume(returning: started.load(ordering: .relaxed))
        }
      }
    }
    #expect(seen >= ahead - ProcessInfo.processInfo.processorCount)
  }

  /// A look's job is no test's: made from a job a test executor runs, it still goes to the
  /// tasks' queue, not to that executor.
  @Test func aLooksJobGoesToNoTestExecutor() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let ranOnATestExecutor = await withTestExecutor {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
        TasksQueue.enqueue(priority: TaskPriority.medium.rawValue) {
          continuation.resume(returning: RunningJob.executor != nil)
        }
      }
    }
    #expect(ranOnATestExecutor == false)
  }
}
