import Synchronization
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

/// The one registry of the test executors: ``TestRegistryState`` (the executors open now, the
/// tasks each has met, the clocks made outside any task that watch for their test and the
/// lineage they watch) and the hooks it installed, behind one lock. Every answer to "whose is
/// this task" and "whose is this job" comes from here.
///
/// Its lock ranks before a test executor's (`Lock.Rank.testRegistry`): a job that leaves for
/// outside any executor, and an adoption, count the jobs in flight in the executor in the same
/// step as the lineage records them. Nothing else is taken, and nothing called, under it; the
/// runtime's hooks are written under it (plain stores), so that an open and a close on two
/// threads cannot leave them out while an executor is open.
///
/// ```swift
/// TestRegistry.open(executor)                 // installs the hooks for the first one
/// TestRegistry.note(task, memberOf: executor)
/// TestRegistry.executorThatMet(task)          // executor
/// ```
@available(TempoTestExecutor 1.0, *)
enum TestRegistry {
  /// The registry's state. (The hooks that were there before Tempo's are kept by
  /// ``RuntimeHooks``, written under this lock.)
  struct Storage: ~Copyable, @unchecked Sendable {
    // Invariant: reached only inside `TestRegistry.box`'s lock. Every executor the state
    // holds is a `TestExecutor`.
    var state = TestRegistryState()
  }

  /// The storage behind its lock. (Internal for the lineage's side and `TestRegistry+Testing.swift`.)
  static let box = Box()

  /// Counts the changes to who has met which task that an executor's own note did not make:
  /// an executor closed (its members forgotten), or a task met by one executor met by another.
  /// An executor that noted a task when this read `n` need not note it again while it still
  /// reads `n` (``TestExecutor/noteMember(_:isRetained:watches:)``). Written under the
  /// registry's lock, read without it: a stale read only costs a note.
  static let membershipChanges = Atomic<UInt64>(0)

  /// The registry's membership has changed (see ``membershipChanges``).
  static func membershipChanged() {
    membershipChanges.add(1, ordering: .relaxed)
  }

  /// ``Storage`` and the lock that guards it. Not a `LockedBox`: the lookups on the path of
  /// every job take the lock by hand, where a debug build would call a generic closure.
  final class Box: @unchecked Sendable {
    // Invariant: `storage` is read and written only while `lock` is held.
    let lock = Lock(rank: .testRegistry)
    var storage = Storage()

    /// Runs `body` on the storage with the lock held.
    func withLock<R>(_ body: (inout Storage) throws -> R) rethrows -> R {
      lock.lock()
      defer { lock.unlock() }
      return try body(&storage)
    }
  }

  // MARK: Executors

  /// `executor` opens: installs the hooks if nothing needed them before.
  static func open(_ executor: TestExecutor) {
    guard RuntimeHooks.areAvailable else { return }
    RuntimeHooks.prepare()
    box.withLock { storage in
      let hooks = storage.state.opened(executor)
      RuntimeHooks.apply(hooks)
    }
  }

  /// `executor` closes: its tasks, and the tasks it adopted, count for nobody any more; the
  /// previous global hook is put back if nothing needs the hooks.
  static func close(_ executor: TestExecutor) {
    guard RuntimeHooks.areAvailable else { return }
    let released = box.withLock { storage in
      let (hooks, released) = storage.state.closed(executor)
      RuntimeHooks.apply(hooks)
      membershipChanged()
      return released
    }
    // The executors and tasks are released after unlocking.
    for task in released.tasks { tempo_task_release(task) }
    withExtendedLifetime(released) {}
  }

  // MARK: Members

  /// Remembers `task` as one of `executor`'s. (The task's ID is read by the caller, while the
  /// task is known to be alive: once its job is queued, another thread may run it to its end.)
  /// Answers whether the executor had not met it alive before (see
  /// ``TestRegistryState/Noted/isNew``).
  ///
  /// - Parameter watches: Whether the executor watches the task for yields.
  @discardableResult
  static func note(
    _ task: TaskRef, memberOf executor: TestExecutor, watches: Bool = true
  ) -> Bool {
    let noted = box.withLock { storage in
      let noted = storage.state.note(task, memberOf: executor, watches: watches)
      if let replaced = noted.replaced, replaced.executor !== executor { membershipChanged() }
      return noted
    }
    return withExtendedLifetime(noted.replaced) { noted.isNew }
  }

  /// Whether `executor` is to start watching `task`, a live member it met by name only (see
  /// ``TestRegistryState/watch(_:by:)``).
  static func startsWatching(_ task: TaskRef, by executor: TestExecutor) -> Bool {
    box.withLock { $0.state.watch(task, by: executor) }
  }

  /// The open executor that has met `task`, if any. (A `TaskRef` of a live task reads its
  /// ID; one kept since may name a task that has ended.)
  static func executorThatMet(_ task: TaskRef) -> TestExecutor? {
    testExecutor(box.withLock { $0.state.member(at: task.address, id: task.id) })
  }

  /// The open executor that has met the current task, if any.
  static func executorThatMetCurrentTask() -> TestExecutor? {
    guard let current = TestExecutor.currentTaskPointer else { return nil }
    return executorThatMet(TaskRef(current))
  }

  /// The executors that have met `current` and `job`'s task (both live), in one look.
  ///
  /// When `current` is a test's task whose executor is deferred (``DeferredTest``), a job it
  /// makes runnable opens that executor now, before the job is routed: a task it starts, or
  /// one started since it that it resumes (not one older than it, which is not the test's), and
  /// an actor's processing job, which may run a task it started on that actor (a `Task { }` in
  /// an actor's method is queued on the actor, and runs in such a job). Nothing the test
  /// started ran elsewhere before, so the executor gets what it would have had, opened at
  /// once. The test's task's own jobs open nothing, nor does the continuation job of its yield
  /// (`opensDeferred` is false for it): they run where they would have with no test executor,
  /// and an executor that opens while the task runs watches the job it runs then
  /// (``TestExecutorStateMachine/OpenerWatch``).
  ///
  /// - Parameter opensDeferred: Whether the job routed may open a deferred executor: not for a
  ///   question about the current context, nor for a yield's continuation job.
  static func members(
    current: UnsafeRawPointer?, job: UnsafeRawPointer?, opensDeferred: Bool = false
  ) -> (byCurrent: TestExecutor?, byJob: TestExecutor?) {
    // The IDs are read before locking: both tasks are alive. (By hand, with no `map` or
    // `withLock`: a debug build calls those generically, and this is asked for many jobs.)
    var currentTask: TaskRef?
    var jobTask: TaskRef?
    if let current { currentTask = TaskRef(current) }
    if let job { jobTask = TaskRef(job) }
    var byCurrent: AnyObject?
    var byJob: AnyObject?
    var deferredByCurrent: AnyObject?
    box.lock.lock()
    if let task = currentTask {
      byCurrent = box.storage.state.member(at: task.address, id: task.id)
    }
    if let task = jobTask { byJob = box.storage.state.member(at: task.address, id: task.id) }
    if opensDeferred, byCurrent == nil, let task = currentTask, box.storage.state.hasDeferrals {
      var isTests = true
      if let job = jobTask { isTests = job != task && !job.isOlder(than: task) }
      if isTests { deferredByCurrent = box.storage.state.deferral(at: task.address, id: task.id) }
    }
    box.lock.unlock()
    if let deferral = deferredByCurrent {
      byCurrent = unsafeDowncast(deferral, to: DeferredTest.self).open()
    }
    return (testExecutor(byCurrent), testExecutor(byJob))
  }

  /// The executors open now.
  static var openExecutors: [TestExecutor] {
    box.withLock { $0.state.open.values.map { unsafeDowncast($0, to: TestExecutor.self) } }
  }

  /// An executor of the state, which stores them as plain objects: every one is a
  /// `TestExecutor` (``Storage``).
  static func testExecutor(_ object: AnyObject?) -> TestExecutor? {
    guard let object else { return nil }
    return unsafeDowncast(object, to: TestExecutor.self)
  }
}
