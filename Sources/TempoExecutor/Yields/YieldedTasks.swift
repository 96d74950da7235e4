import Dispatch
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

/// Where a task parked in `Task.yield()` resumes, learned once per process, so that a test
/// executor can tell such a task from one that waits for something.
///
/// `Task.yield()` queues its continuation job on the current executor. A task that left an
/// actor for nonisolated code runs on with no task executor (the actor's drain runs it with the
/// task's own preference, and none of a test's tasks has one), so the current executor is the
/// platform's default, whose `enqueue` hands the job straight to libdispatch, past every hook a
/// test executor sees jobs through. Until libdispatch runs it, the task is suspended and
/// nothing of it is queued anywhere Tempo can count: the test would read as quiet, and time
/// could move before the task reached its next sleep. (The continuation job, once run, sends
/// the task back through the global hook, where its test executor takes it.)
///
/// Such a task is still the test's work in flight, and a test executor recognises it by where
/// it resumes: a task suspended on a continuation resumes at the point after it, which for
/// `Task.yield()` is a fixed place in the concurrency runtime, the same for every yield. It is
/// learned here by yielding once, on a task executor that holds every job it is given
/// (``ProbeExecutor``), so that nothing runs before the task's resume function has been read.
///
/// ```swift
/// if let point = YieldResumePoint.function, tempo_task_resume_function(task) == point {
///   // `task` is parked in `Task.yield()`, or has resumed from it and not suspended since.
/// }
/// ```
@available(TempoTestExecutor 1.0, *)
enum YieldResumePoint {
  /// The resume function of a task parked in `Task.yield()`; nil if this runtime's yield did
  /// not queue its continuation on the task's executor preference (a runtime before Swift 6.2
  /// queues it on the global executor, through the hooks, where no yield goes unseen).
  // Invariant: the address of code in the runtime, never written after it is learned.
  nonisolated(unsafe) static let function: UnsafeRawPointer? = learn()

  private static func learn() -> UnsafeRawPointer? {
    ProbeExecutor.resumePoint { await Task.yield() }
  }
}

/// The tasks of one test that a test executor watches for a yield it cannot see (see
/// ``YieldResumePoint``): every task it has met that a retain can keep alive.
///
/// A task is retained when the executor first meets it, and released once it has ended, once
/// it has been seen parked in a yield for longer than a second, or when the executor closes.
/// Not kept: an `async let` child, whose memory is its parent's and goes with its binding's
/// scope.
///
/// ```swift
/// var watched = YieldedTasks()
/// let ended = watched.add(task)               // retained by the caller
/// let (yielding, ended) = watched.look(skipping: drivers)
/// ended.forEach(tempo_task_release)           // after unlocking
/// ```
@available(TempoTestExecutor 1.0, *)
struct YieldedTasks {
  // Invariant: each task here holds one retain, taken by whoever added it, and is released
  // exactly once by whoever removes it.
  private var tasks: [UnsafeRawPointer] = []
  /// The count at which ``add(_:)`` next lets go of the tasks that have ended, so that a test
  /// that never needs a look does not keep every task it started.
  private var pruneAt = 64
  /// Whether a task may have left an actor with no task executor since the last look found
  /// none parked in a yield: only an actor's processing job (a job that is no task's) runs a
  /// task that way, so a look after work without one is skipped. True until the first look.
  private(set) var mayHaveEscaped = true
  /// Whether the executor has members it met only by name (adopted from the lineage), which
  /// it starts watching when one of them enqueues a processing job.
  var hasMembersMetByName = false

  /// Watches `task`, retained by the caller; answers the tasks that have ended, which the
  /// caller releases after unlocking (amortized O(1)).
  mutating func add(_ task: UnsafeRawPointer) -> [UnsafeRawPointer] {
    tasks.append(task)
    guard tasks.count >= pruneAt else { return [] }
    var ended: [UnsafeRawPointer] = []
    removeTasks { task in
      guard tempo_task_is_complete(task) else { return false }
      ended.append(task)
      return true
    }
    pruneAt = max(64, tasks.count * 2)
    return ended
  }

  /// A job that is no task's (an actor's processing job) will run: the next look looks.
  mutating func processingJobQueued() { mayHaveEscaped = true }

  /// What ``look(skipping:sleepPoints:)`` read.
  struct Look {
    /// The lowest priority (a `TaskPriority`'s raw value) of the tasks parked in a yield (or
    /// resumed from it and not suspended since); nil if none is.
    var yieldingPriority: UInt8?
    /// The tasks suspended in a system sleep.
    var sleeping: [UnsafeRawPointer] = []
    /// The tasks that have ended, no longer watched, for the caller to release.
    var ended: [UnsafeRawPointer] = []

    var yielding: Bool { yieldingPriority != nil }
  }

  /// Reads each task: whether one is parked in a yield (or resumed from it and not suspended
  /// since), other than those `skipping` says (the tasks waiting for quiet, which are not the
  /// test's work while they wait), and the lowest priority of those, at which their
  /// continuations wait; and, if `sleepPoints` are given, which are suspended in a system
  /// sleep (where ``SystemSleep/resumePoints`` says). Removes the tasks that have ended, which
  /// the caller releases after unlocking.
  /// Nothing is read unless ``mayHaveEscaped``.
  ///
  /// - Complexity: O(*n*), where *n* is the number of tasks watched.
  mutating func look(
    skipping: (UnsafeRawPointer) -> Bool, sleepPoints: [UnsafeRawPointer] = []
  ) -> Look {
    guard mayHaveEscaped, let point = YieldResumePoint.function else { return Look() }
    var found = Look()
    removeTasks { task in
      if tempo_task_is_complete(task) {
        found.ended.append(task)
        return true
      }
      let resumesAt = tempo_task_resume_function(task)
      if resumesAt == point, !skipping(task) {
        let priority = JobIdentity.priority(task)
        let lowest = found.yieldingPriority ?? priority
        found.yieldingPriority = priority < lowest ? priority : lowest
      }
      if let resumesAt, !sleepPoints.isEmpty, sleepPoints.contains(resumesAt),
        !tempo_task_is_runnable(task)
      {
        found.sleeping.append(task)
      }
      return false
    }
    mayHaveEscaped = found.yielding
    return found
  }

  /// Stops watching the tasks that have resumed from a yield and run on a thread since, with
  /// no job the executor sees: read so after a second of waiting, a task that blocks its
  /// thread (a semaphore, a lock), which would hold up every wait for quiet. A task still
  /// parked in its yield stays watched: its continuation waits for a thread of the platform's
  /// executor, however busy, and will run. Returns them for the caller to release after
  /// unlocking.
  mutating func dropBlocked() -> [UnsafeRawPointer] {
    guard let point = YieldResumePoint.function else { return [] }
    var dropped: [UnsafeRawPointer] = []
    removeTasks { task in
      guard tempo_task_resume_function(task) == point, tempo_task_is_runnable(task) else {
        return false
      }
      dropped.append(task)
      return true
    }
    return dropped
  }

  /// Whether a task watched, other than those in `skipping` (the test's own task, the one
  /// asking), has not ended: at a test's end, with its work quiet, such a task waits on
  /// something no clock or scheduler of the test controls (a stream, a continuation, another
  /// task, work outside the test).
  ///
  /// - Complexity: O(*n*), where *n* is the number of tasks watched.
  func hasUnfinished(skipping: [UnsafeRawPointer?]) -> Bool {
    tasks.contains { task in !skipping.contains(task) && !tempo_task_is_complete(task) }
  }

  /// Removes the tasks `isRemoved` picks, and keeps the others in order: one loop that moves the
  /// kept tasks down, rather than `removeAll(where:)`, which a debug build runs generically, at
  /// the end of every scope that saw an actor (``look(skipping:sleepPoints:)``).
  private mutating func removeTasks(where isRemoved: (UnsafeRawPointer) -> Bool) {
    var kept = 0
    var index = 0
    let count = tasks.count
    while index < count {
      let task = tasks[index]
      if !isRemoved(task) {
        if kept != index { tasks[kept] = task }
        kept += 1
      }
      index += 1
    }
    if kept < count { tasks.removeLast(count - kept) }
  }

  /// Stops watching every task; the caller releases them after unlocking.
  mutating func removeAll() -> [UnsafeRawPointer] {
    defer { tasks = [] }
    return tasks
  }
}
