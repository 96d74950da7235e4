import Dispatch
@_spi(TempoInternals) import TempoSupport

/// Which test executor's job the current thread is running, and whose task that job is, kept in
/// a per-thread slot.
@available(TempoTestExecutor 1.0, *)
enum RunningJob {
  /// What a thread runs, as its slot holds it: nothing in it is retained, so a copy costs no
  /// reference counting (these reads are on the path of every job, in debug builds too).
  struct Slot {
    var executor: Unmanaged<TestExecutor>?
    var task: UnsafeRawPointer?
    var isAction = false
    /// When the job of `task` began (nanoseconds of uptime), for a task's job; else zero.
    var startedAt: UInt64 = 0
    /// How many more times `task` may go on in this job after the runtime enqueued it for a
    /// switch it makes (``handOff(_:)``); zero where the job's runner does not look.
    var handOffs = 0
    /// Whether the job is a continuation job (``JobIdentity/isContinuation(_:)``) whose task
    /// has not been enqueued yet: the first task it enqueues is the one it resumes, which may
    /// go on in this job (``handOff(_:)``), and then is `task`.
    var resumesTask = false
    /// Whether the job is a main-actor job (``MainExecutor``): its task's switch to the generic
    /// executor may start a job of `executor` in the same main-queue block (``handOff(_:)``).
    var isMainJob = false
    /// The job of `task` handed back to its runner, to run next on this thread.
    var handedOff: UnsafeRawPointer?
    /// How many switches of `task` went on in the job without the executor's lock
    /// (``handOff(_:)``).
    var switchesHandedOff = 0
    /// How many yields of `task` went on in the job (``handOff(_:)``).
    var yieldsHandedOff = 0

    /// Whether the job or action is `executor`'s, compared by identity.
    func isOf(_ executor: TestExecutor) -> Bool {
      guard let running = self.executor else { return false }
      return running.toOpaque() == Unmanaged.passUnretained(executor).toOpaque()
    }

    /// Whether the job is one of `task`.
    func isJob(of task: UnsafeRawPointer) -> Bool {
      guard let running = self.task else { return false }
      return running == task
    }
  }

  /// The thread's slot, made at its first job and freed when the thread ends.
  private static let key = Platform.ThreadSpecific(freesValuesAtThreadExit: true)

  private static var slot: UnsafeMutablePointer<Slot> {
    if let existing = key.value { return existing.assumingMemoryBound(to: Slot.self) }
    let memory = Platform.allocateForThread(byteCount: MemoryLayout<Slot>.stride)
    let slot = memory.bindMemory(to: Slot.self, capacity: 1)
    slot.initialize(to: Slot())
    key.value = memory
    return slot
  }

  /// The executor whose job (or whose advancing action) the thread is running.
  static var executor: TestExecutor? {
    guard let existing = key.value else { return nil }
    return existing.assumingMemoryBound(to: Slot.self).pointee.executor?.takeUnretainedValue()
  }

  /// What the thread is running, read once: the executor, the task whose job it is (if the job
  /// is a task's), and whether it is an action of a clock or scheduler the executor drives
  /// rather than a job.
  static var current: Slot {
    guard let existing = key.value else { return Slot() }
    return existing.assumingMemoryBound(to: Slot.self).pointee
  }

  /// The task whose job the thread runs, if it runs a task's job.
  static var task: UnsafeRawPointer? {
    guard let existing = key.value else { return nil }
    return existing.assumingMemoryBound(to: Slot.self).pointee.task
  }

  /// When the job of `task` that the thread runs began (nanoseconds of uptime), if it runs one.
  static func startOfJob(of task: UnsafeRawPointer) -> UInt64? {
    guard let slot = key.value?.assumingMemoryBound(to: Slot.self).pointee,
      slot.task == task, slot.startedAt != 0
    else { return nil }
    return slot.startedAt
  }

  /// How long ago the job of `task` that the thread runs began, if it runs one (the window in
  /// which that task read anything it read in this job: a system sleep's `now`, say).
  static func timeInJob(of task: UnsafeRawPointer) -> Duration? {
    startOfJob(of: task).map { .nanoseconds(Int64(RealTime.nanoseconds - $0)) }
  }

  /// Runs `body` marked as running a job of `executor` (of `task`, if the job is a task's), or
  /// an action it drives, and puts back what the thread was running before.
  ///
  /// - Parameter startedAt: When the task's work in this job began (nanoseconds of uptime), if
  ///   anyone will ask (see ``TestExecutor/systemSleepWindowStart(of:)``); zero otherwise.
  static func running<Result>(
    _ executor: TestExecutor?, task: UnsafeRawPointer?, isAction: Bool = false,
    startedAt: UInt64 = 0, _ body: () -> Result
  ) -> Result {
    let previous = enter(executor, task: task, isAction: isAction, startedAt: startedAt)
    defer { leave(to: previous) }
    return body()
  }

  /// Marks the thread as running what ``running(_:task:isAction:startedAt:_:)`` says, and
  /// answers what it ran before, for ``leave(to:)``: the generic-free form of that call, for
  /// the path of every job.
  ///
  /// - Parameters:
  ///   - handOffs: How many switches in a row the task's job goes on through (see
  ///     ``handOff(_:)``); zero where the caller does not run what is handed off.
  ///   - resumesTask: Whether the job, not a task's, is a continuation job whose task may go
  ///     on in it (with `handOffs`).
  ///   - isMainJob: Whether the job is a main-actor job, whose task may leave the main actor
  ///     for a job of `executor` that its block runs next (with `handOffs`).
  static func enter(
    _ executor: TestExecutor?, task: UnsafeRawPointer?, isAction: Bool = false,
    startedAt: UInt64 = 0, handOffs: Int = 0, resumesTask: Bool = false, isMainJob: Bool = false
  ) -> Slot {
    let slot = slot
    let previous = slot.pointee
    let resumesTask = task == nil && resumesTask
    var next = Slot(
      task: task, isAction: isAction, startedAt: task == nil ? 0 : startedAt,
      handOffs: task == nil && !resumesTask ? 0 : handOffs, resumesTask: resumesTask,
      isMainJob: isMainJob)
    if let executor { next.executor = Unmanaged.passUnretained(executor) }
    slot.pointee = next
    return previous
  }

  /// How many switches and yields went on in the job the thread runs (``handOff(_:)``).
  static var ranInJob: TestExecutor.RanJob {
    guard let existing = key.value else { return TestExecutor.RanJob() }
    let slot = existing.assumingMemoryBound(to: Slot.self)
    return TestExecutor.RanJob(
      switches: slot.pointee.switchesHandedOff, yields: slot.pointee.yieldsHandedOff)
  }

  /// `task` starts waiting for `executor` to go quiet: if the thread runs a job of it for that
  /// executor, nothing more goes on in that job (a driver's jobs are not the test's work).
  static func stopHandOffs(of task: UnsafeRawPointer, for executor: TestExecutor) {
    guard let existing = key.value else { return }
    let slot = existing.assumingMemoryBound(to: Slot.self)
    guard slot.pointee.isJob(of: task), slot.pointee.isOf(executor) else { return }
    slot.pointee.handOffs = 0
  }

  /// Puts back what the thread ran before ``enter(_:task:isAction:startedAt:)``.
  static func leave(to previous: Slot) {
    slot.pointee = previous
  }

  /// The runtime enqueues `job` on the generic executor: if it is the task whose job the thread
  /// runs (or the task a continuation job the thread runs resumes) for a test executor that
  /// lets it go on there, and may still, keeps it for the runner (``takeHandedOff()``) and
  /// answers true.
  ///
  /// A task enqueues itself from its own job when it switches executors. Between two
  /// nonisolated functions that is a switch only because the job runs with Tempo's task
  /// executor, which the task does not prefer (the runtime compares them at every hop, which a
  /// debug build does not optimize away); on the runtime's own executor the task would go on
  /// on its thread, and so it does here, with no trip through the queue.
  ///
  /// A continuation job (a `Task.yield()`'s) does nothing but resume its task, which the
  /// runtime then enqueues: the task goes on in that job, at the place in the queue its yield
  /// took, behind everything queued before the yield, as the yield promises. Where the yield
  /// itself went on in the task's job (below), the task it resumes is that job's task, and goes
  /// on as after a switch, with no lock.
  ///
  /// A task that leaves the main actor, in a main-actor job of a test whose jobs run on the main
  /// queue, starts its next job there when nothing of the test is queued or running
  /// (``TestExecutor/takesSwitch(fromMainJobOf:)``): the block that ran the main-actor job runs
  /// it next, instead of a pump block queued behind it.
  ///
  /// A task that yields (`Task.yield()` enqueues a continuation job, through the task executor)
  /// while nothing else of its test is queued goes on in its job: the continuation job runs
  /// next, and then, as for any continuation job, the task it resumes
  /// (``TestExecutor/takesYield(of:)``). The yield lets nothing run first, since nothing waits.
  static func handOff(_ job: UnsafeRawPointer) -> Bool {
    guard let existing = key.value else { return false }
    let slot = existing.assumingMemoryBound(to: Slot.self)
    guard slot.pointee.handOffs > 0, slot.pointee.handedOff == nil else { return false }
    // Only the first task a continuation job enqueues is the one it resumes.
    let isResumed = slot.pointee.resumesTask && JobIdentity.isTask(job)
    slot.pointee.resumesTask = false
    guard let executor = slot.pointee.executor?.takeUnretainedValue() else { return false }
    var isYield = false
    if !isResumed, slot.pointee.task != job {
      // Not a switch of the job's task: its yield, or nothing to hand off.
      guard let task = slot.pointee.task, !slot.pointee.isMainJob,
        JobIdentity.isContinuation(job), executor.takesYield(of: task)
      else { return false }
      isYield = true
    } else if slot.pointee.isMainJob {
      guard executor.takesSwitch(fromMainJobOf: job) else { return false }
    } else if slot.pointee.task == job {
      // A switch of the job's task; or that task resumed by the continuation job of its yield,
      // which went on in this job: it was the job's task before the yield, and nothing could
      // make it a driver while it waited, so it goes on as after a switch.
      guard executor.takesSwitch() else { return false }
      slot.pointee.switchesHandedOff += 1
    } else {
      // Another task, which a continuation job this job runs resumes.
      guard executor.takesResumedTask(job) else { return false }
    }
    if isResumed { slot.pointee.task = job }
    // The continuation job resumes the task: it goes on in the job too.
    if isYield {
      slot.pointee.resumesTask = true
      slot.pointee.yieldsHandedOff += 1
    }
    slot.pointee.handOffs -= 1
    slot.pointee.handedOff = job
    return true
  }

  /// The job ``handOff(_:)`` kept, if any, which the caller now runs.
  static func takeHandedOff() -> UnsafeRawPointer? {
    guard let existing = key.value else { return nil }
    let slot = existing.assumingMemoryBound(to: Slot.self)
    let job = slot.pointee.handedOff
    slot.pointee.handedOff = nil
    return job
  }
}

/// What kind of job a job is, read from the runtime's job header.
package enum JobIdentity {
  /// Whether `job` is a task (rather than an actor's processing job, or the continuation job of
  /// `Task.yield()`). Only a task has an identity that outlives one job: an executor remembers
  /// tasks, never other jobs, whose addresses say nothing about whose work they carry.
  ///
  /// The runtime's job header is a heap object header (two words), two words the scheduler
  /// owns, and then 32 bits of flags whose low 8 bits are the job's kind; kind 0 is a task. The
  /// layout is part of the runtime's ABI.
  package static func isTask(_ job: UnsafeRawPointer) -> Bool {
    let flags = job.load(
      fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size, as: UInt32.self)
    return flags & 0xFF == 0
  }

  /// Whether `job` is a continuation job: the job `Task.yield()` enqueues (and `Task.sleep`
  /// enqueues with a delay), which only resumes its task's continuation. Kind 195 is the
  /// runtime's `JobKind::NullaryContinuation` (its first reserved kind, 192, plus 3), part of
  /// its ABI.
  package static func isContinuation(_ job: UnsafeRawPointer) -> Bool {
    let flags = job.load(
      fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size, as: UInt32.self)
    return flags & 0xFF == 195
  }

  /// Whether `task`, a task, is an `async let` child (job flag bit 28): the runtime places such
  /// a task in its parent's memory, so it ends with its binding's scope however often it has
  /// been retained. Tempo never keeps one alive to read its status.
  package static func isAsyncLetChild(_ task: UnsafeRawPointer) -> Bool {
    let flags = task.load(
      fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size, as: UInt32.self)
    return flags & (1 << 28) != 0
  }

  /// A task's priority, as the raw value of a `TaskPriority` (0: none), from its job flags
  /// (bits 8 to 15): the priority its next job is queued at.
  package static func priority(_ task: UnsafeRawPointer) -> UInt8 {
    let flags = task.load(
      fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size, as: UInt32.self)
    return UInt8(truncatingIfNeeded: flags >> 8)
  }

  /// The low 32 bits of a task's ID: the word after the flags in the job header, which the
  /// runtime fills from a counter when it creates the task. A task that reuses the memory of an
  /// ended one has the same address and another ID.
  package static func taskID(_ task: UnsafeRawPointer) -> UInt32 {
    task.load(fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size + 4, as: UInt32.self)
  }
}
