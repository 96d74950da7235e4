package import TempoCore
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

// A sleep still pending when its test ends would wake into a later test, or never: its task
// would stay parked for good, holding whatever it captured. So the end of a test (a scope, the
// `.testExecutor` trait, the end of an XCTest test) ends every sleep still pending on the
// test's clocks, schedulers and timelines, after reporting them, as kotlinx's `runTest`
// cancels what a test leaves and Go's bubble admits no goroutine past its end:
//
// 1. each sleep throws `EndedWithItsTest` into its task, whose sleep function cancels the task
//    (so that a loop that checks `Task.isCancelled` ends too) and throws `CancellationError`;
// 2. the end waits for the test's work to go quiet again, so that what the tasks do on their
//    way out runs inside the test;
// 3. a task that has still not finished is named, not waited for. If it goes on to sleep
//    again on a test clock or scheduler (a loop that ignores cancellation), that sleep parks
//    instead of throwing at once, so that the loop stops there rather than spinning on a
//    thread of a later test.

/// The sleeps one end of a test ended, and what became of their tasks.
///
/// ```swift
/// let ended = EndedSleeps.end(of: sources)            // each sleep throws into its task
/// // … the test's work goes quiet …
/// let stuck = ended?.unfinished() ?? []               // tasks that did not finish
/// ```
package final class EndedSleeps: @unchecked Sendable {
  // Invariant: `lock` guards `entries`, and is held only inside these methods, which call
  // nothing out under it. Each task an entry holds was retained by `woke` and is released by
  // `unfinished()`, after unlocking.
  private let lock = Lock()
  private var entries: [Entry]

  private struct Entry {
    /// The sleep, as a listing names it.
    let description: String
    /// Its task, kept from when it woke from the ended sleep; nil until then.
    var task: UnsafeRawPointer?
  }

  private init(descriptions: [String]) {
    entries = descriptions.map { Entry(description: $0, task: nil) }
  }

  /// Ends each sleep still pending on `sources`: it throws ``EndedWithItsTest`` into its task.
  /// Answers nil if there were none.
  package static func end(of sources: [any LeftoverWorkSource]) -> EndedSleeps? {
    var sleeps: [PendingSleep] = []
    for source in sources { sleeps += source.pendingSleeps }
    guard !sleeps.isEmpty else { return nil }
    // Described before they end: the description reads the wake-up's timeline.
    let ended = EndedSleeps(
      descriptions: sleeps.map { $0.wakeUp.describeSleep() ?? "a sleep of an ended test" })
    for (index, sleep) in sleeps.enumerated() {
      sleep.sleeper.end(throwing: EndedWithItsTest(sleeps: ended, index: index))
    }
    return ended
  }

  /// The task of entry `index` woke from its ended sleep: kept, to see whether it finishes.
  fileprivate func woke(_ index: Int, task: UnsafeRawPointer) {
    tempo_task_retain(task)
    let previous = lock.withLock { () -> UnsafeRawPointer? in
      defer { entries[index].task = task }
      return entries[index].task
    }
    if let previous { tempo_task_release(previous) }
  }

  /// The ended sleeps whose task has not finished (or has not even woken), one description
  /// each; the tasks kept are let go of.
  package func unfinished() -> [String] {
    let taken = lock.withLock { () -> [Entry] in
      defer { entries = [] }
      return entries
    }
    var unfinished: [String] = []
    for entry in taken {
      guard let task = entry.task else {
        unfinished.append(entry.description)
        continue
      }
      if !tempo_task_is_complete(task) { unfinished.append(entry.description) }
      tempo_task_release(task)
    }
    return unfinished
  }

  deinit {
    // Never asked (the end went another way): the tasks kept are let go of.
    for entry in entries { if let task = entry.task { tempo_task_release(task) } }
  }
}

/// What a sleep that the end of its test ended throws into its task, for the sleep function
/// to turn into cancellation (see ``EndedSleeps``).
///
/// ```swift
/// } catch let ended as EndedWithItsTest {
///   ended.cancelCurrentTask()
///   throw CancellationError()
/// }
/// ```
package struct EndedWithItsTest: Error {
  fileprivate let sleeps: EndedSleeps
  fileprivate let index: Int

  /// Called by the sleep function, in the task that slept: cancels it (its cancellation
  /// handlers run, its child tasks are cancelled), remembers it as ended with its test (a
  /// later sleep of it parks; see ``TestSleeps/sleepOfCancelledTask()``), and lets the end of
  /// the test see whether it finishes.
  package func cancelCurrentTask() {
    guard let task = tempo_current_task() else { return }
    cancel(task)
  }

  /// ``cancelCurrentTask()`` for `task`, which slept in a sleep that the runtime suspends
  /// itself (a system sleep), kept alive by the caller.
  func cancel(_ task: UnsafeRawPointer) {
    TestSleeps.noteEnded(task)
    sleeps.woke(index, task: task)
    tempo_task_cancel(task)
  }
}

extension TestSleeps {
  /// The tasks whose sleep the end of their test ended, each retained until it completes.
  // Invariant: each task listed holds a retain taken by `noteEnded`, released by the call
  // that takes it off the list, after unlocking.
  private static let ended = LockedBox<[TaskRef]>([])

  /// Remembers `task`, kept alive by the caller, as ended with its test.
  fileprivate static func noteEnded(_ task: UnsafeRawPointer) {
    let reference = TaskRef(address: task, id: 0)
    tempo_task_retain(task)
    let (isNew, completed) = ended.withLock { ended -> (Bool, [TaskRef]) in
      // The ones that completed since are dropped here, so that the list is only as long as
      // the tasks that ignore cancellation, and let go of after unlocking. A status is read
      // under the lock, which keeps the task retained meanwhile (a load of its status word:
      // nothing is called out).
      var completed: [TaskRef] = []
      ended.removeAll { task in
        guard tempo_task_is_complete(task.address) else { return false }
        completed.append(task)
        return true
      }
      guard !ended.contains(reference) else { return (false, completed) }
      ended.append(reference)
      return (true, completed)
    }
    if !isNew { tempo_task_release(task) }
    for task in completed { tempo_task_release(task.address) }
  }

  /// A sleep of a test clock or scheduler begins in a cancelled task: throws
  /// `CancellationError`, as any cancelled sleep does, unless the task is one whose earlier
  /// sleep the end of its test ended. Such a task ignored its cancellation and came back to
  /// sleep: thrown into at once, a loop such as `while true { try? await clock.sleep(…) }`
  /// would spin on its thread for good, in the middle of later tests. That sleep parks
  /// instead: the task never resumes, and the end of its test has named it.
  package static func sleepOfCancelledTask() async throws {
    if let task = tempo_current_task(),
      ended.withLock({ $0.contains(TaskRef(address: task, id: 0)) })
    {
      await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }
    throw CancellationError()
  }
}
