import Dispatch
import Synchronization
import TempoRuntimeABI
@_spi(TempoInternals) package import TempoSupport

/// Runs the work of one test, one job at a time, and knows when that work has gone quiet.
///
/// While a test executor is open, the jobs that the test's tasks make runnable — a task started
/// with `Task {}` or `Task.detached`, a child of a task group, a task resumed by a clock, a
/// stream or a continuation, a hop to an actor — are queued here instead of on the global
/// executor (see ``RuntimeHooks``), and its main-actor jobs are counted on their way through the
/// main queue (see ``MainExecutor``). So it knows whether any of them is runnable, and
/// ``settle(at:)`` waits for exactly that: nothing queued, nothing running, here or on the main
/// actor.
///
/// A job belongs to the executor when
/// - it is enqueued from a job this executor is running, here or on the main queue
///   (``RunningJob``),
/// - or from a task carrying ``current`` (a `withTestExecutor` scope: task-locals are inherited),
/// - or from a task the executor has met, or it is such a task: the task that opened the
///   executor, every task that has had a job here, and every task that slept on a test clock of
///   this test. (The runtime enqueues a task that leaves an actor after the task has stopped
///   being current, so only its identity tells.)
///
/// A task that is older than the executor joins it only when the executor has met it, or an
/// advancing clock resumes it: the task of the test runner, resumed when the test's task ends,
/// stays the runner's (``admits(task:)``). Tasks are known by address and ID, so a task of
/// another test that reuses the memory of one of this test's ended tasks is not taken for it.
///
/// Nothing here owns a thread. A clock or scheduler that is advancing runs the jobs its actions
/// release on its own thread (``runAndDrain(_:)``); any other job is run by a pump: on the main
/// queue for a test that runs on the main actor (``pumpsOnMainQueue``), else on a shared system
/// thread. A backstop (``Backstops``) runs the queue on a thread of its own if an advancing
/// action blocks until a job it released has run. Executors of tests that run in parallel are
/// independent.
///
/// ## Lifetimes
///
/// The runtime holds a task executor unowned wherever it keeps one: as the task executor of a
/// job it runs, as a task's executor preference, and as the preference a child task inherits
/// from its parent, for the child's whole life. So the runtime is never shown a test executor:
/// jobs run with a stand-in as their task executor, and a task goes back to its executor with
/// another stand-in as its preference (``TestExecutorStandIn``); both live as long as the
/// process and send what reaches them to the test executor it belongs to, if still open, and
/// otherwise to a system thread with no task executor. (Shown the executor itself, the runtime
/// once called a test executor's `enqueue` as its last owner let go of it: AddressSanitizer
/// caught the executor freed in the middle of taking the job.) Beside that:
/// - a job runs here only inside ``run(_:)``, called by a pump (its closure owns the executor)
///   or by a driver (whose caller owns it);
/// - nothing reads a job after handing it on (to the queue, a pump or another executor): a job
///   that has run may be freed, and so may a task that has ended. What routing needs of a job
///   (its kind, its task's ID) is read before.
/// The thread slot (``RunningJob``) and ``MainExecutor``'s running job name an executor only
/// for the length of a run that owns it.
/// An executor opened for a clock retains the opening task, whose status it reads until that
/// task's first job is known to have ended (``init(forClockOf:)``), and releases it when it
/// goes away.
@available(TempoTestExecutor 1.0, *)
package final class TestExecutor: @unchecked Sendable {
  // Invariant: `lock` guards `state`, `yieldedTasks`, `systemSleeps`, `bodyHasEnded` and
  // `lastNoted`. Jobs are run, waiters resumed, pumps started and tasks released only after
  // unlocking; `state` lets at most one job run at a time. Each task in `yieldedTasks` holds a
  // retain, let go by whoever removes it.
  let lock = Lock(rank: .testExecutor)
  @exclusivity(unchecked) var state = TestExecutorStateMachine()
  /// The test's tasks watched for a yield the executor cannot see (`TestExecutor+Yields.swift`).
  @exclusivity(unchecked) var yieldedTasks = YieldedTasks()
  /// The system sleeps held for the clock that controls them (`SystemSleeps.swift`).
  @exclusivity(unchecked) var systemSleeps = SystemSleeps()
  /// Whether a clock controls this test's system sleeps, read without the lock on the path of
  /// every job (set once, never cleared).
  let controlsSystemSleeps = Atomic<Bool>(false)
  /// Whether the executor has closed, as the switches that go on in a job read it without the
  /// lock (``takesSwitch()``): set once it has, never cleared.
  let hasClosedForHandOffs = Atomic<Bool>(false)
  /// Whether the body of the scope that opened the executor has returned (see `bodyEnded()`).
  @exclusivity(unchecked) var bodyHasEnded = false
  /// The member noted last (see ``noteMember(_:isRetained:watches:)``).
  @exclusivity(unchecked) var lastNoted = LastNoted()

  /// The executor of the current `withTestExecutor` scope, carried by the test's task and
  /// inherited by the tasks it starts (bound by ``withCurrent(_:isolation:_:)``).
  package static var current: TestExecutor? { bound }

  /// ``current``'s task-local, bound only through ``withCurrent(_:isolation:_:)``, which counts
  /// it for ``currentIfAnyBoundIsOpen``. Read through ``bound``.
  @TaskLocal private static var boundLocal: TestExecutor?

  /// The value of ``boundLocal`` for the current task (or thread, outside a task), read as
  /// `TaskLocal.get()` reads it, by the runtime's lookup of its key, but as the one concrete type
  /// it is: `get()` is generic, and copies the value through the runtime's value witnesses.
  /// Read on the path of a job in a scope, several times a job, in debug builds too.
  private static var bound: TestExecutor? {
    guard let value = taskLocalValue(forKey: boundKey) else { return nil }
    // The runtime stores the value as `boundLocal`'s type, `TestExecutor?`, and keeps it while
    // the binding that set it is in scope, which covers this read.
    return value.assumingMemoryBound(to: TestExecutor?.self).pointee
  }

  /// ``boundLocal``'s key, its address: kept as a plain pointer, so that a read does not
  /// retain and release the task-local, which every thread reads. (It lives as long as the
  /// process.) Unsafe: only ever read, and only as a key; nothing is read or written through it.
  nonisolated(unsafe) private static let boundKey = Unmanaged.passUnretained($boundLocal).toOpaque()

  /// The address of ``bound``'s executor, not retained: only compared, where a job is routed,
  /// never followed. The binding holds the executor strongly for as long as the task is in its
  /// scope, so the address is that executor's and no other's. Read only while some executor
  /// bound as ``current`` is open, as ``currentIfAnyBoundIsOpen``.
  static var boundAddressIfAnyIsOpen: UnsafeRawPointer? {
    guard boundAndOpen.load(ordering: .relaxed) > 0,
      let value = taskLocalValue(forKey: boundKey)
    else { return nil }
    // A class reference and an optional raw pointer have one layout.
    return value.load(as: UnsafeRawPointer?.self)
  }

  /// Whether the current task is in the scope of an open executor other than this one, which
  /// takes its jobs instead (as ``currentIfAnyBoundIsOpen``, compared without retaining it).
  func isInAnotherScope() -> Bool {
    guard let scoped = Self.boundAddressIfAnyIsOpen else { return false }
    return scoped != UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
  }

  /// Runs `operation` with `executor` as ``current``: a scope's, or an auto-advance driver's
  /// bound as a scope's is. Counts the executor as bound first (``currentIfAnyBoundIsOpen``).
  package static func withCurrent<Result>(
    _ executor: TestExecutor, isolation: isolated (any Actor)? = #isolation,
    _ operation: () async throws -> Result
  ) async rethrows -> Result {
    executor.willBindAsCurrent()
    // The closure names `isolation`, which keeps it in the caller's isolation.
    return try await $boundLocal.withValue(executor) {
      _ = isolation
      return try await operation()
    }
  }

  /// ``current`` where a job is routed: read only while some executor bound as ``current`` is
  /// open. A closed one takes no job, so when none is open the route is the same without it,
  /// and every job of a test without a scope skips a task-local lookup.
  static var currentIfAnyBoundIsOpen: TestExecutor? {
    boundAndOpen.load(ordering: .relaxed) > 0 ? bound : nil
  }

  /// At least the number of executors bound as ``current`` and not yet closed: raised before
  /// an executor is marked bound and lowered after it is marked closed (`binding`), so a task
  /// that carries an open executor always reads it above zero.
  private static let boundAndOpen = Atomic<Int>(0)

  /// Where the executor is in its life as a scope's: 0 never bound as ``current``, 1 bound and
  /// open, 2 closed.
  private let binding = Atomic<Int>(0)

  /// Marks the executor as bound as ``current``, which ``withCurrent(_:isolation:_:)`` does
  /// next. (Internal for tests.)
  func willBindAsCurrent() {
    Self.boundAndOpen.add(1, ordering: .relaxed)
    if !binding.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged {
      // Bound before, or closed already: counted once, or not at all.
      Self.boundAndOpen.subtract(1, ordering: .relaxed)
    }
  }

  /// Whether the executor is counted as bound as ``current`` and open (for tests).
  var isCountedAsBoundAndOpen: Bool { binding.load(ordering: .relaxed) == 1 }

  /// Marks the executor closed for ``currentIfAnyBoundIsOpen``.
  private func unbindAsCurrent() {
    if binding.exchange(2, ordering: .relaxed) == 1 {
      Self.boundAndOpen.subtract(1, ordering: .relaxed)
    }
  }

  /// ``current``, while it is open: the executor of the `withTestExecutor` scope the current
  /// task runs in, if that scope has not ended.
  package static var openScope: TestExecutor? {
    guard let scoped = currentIfAnyBoundIsOpen, scoped.isOpen else { return nil }
    return scoped
  }

  /// The time sources made for this test and its background work, which the end of the test
  /// looks at (see `TestExecutor+Leftovers.swift`).
  package let leftovers: Leftovers

  /// How many jobs one ``settle(at:)`` lets run before it says the work does not go quiet
  /// (a task-local, so that a test can lower it for itself).
  @TaskLocal package static var jobBudget = 1_000_000

  /// Opens an executor for the current task: installs the runtime hooks while any executor is
  /// open. Call ``close()`` when the test ends.
  ///
  /// - Parameters:
  ///   - includingMainQueueBlocks: See ``includesMainQueueBlocks``.
  ///   - scope: Where the `withTestExecutor` scope or `.testExecutor` test that opens it is
  ///     written; nil for the executor a clock opens for its task (``ImplicitScope``).
  ///   - reportInScope: How an issue of the scope is reported where the test is written, when
  ///     `scope` is not that place (a trait knows its test's declaration only as a test
  ///     framework's location).
  package convenience init(
    includingMainQueueBlocks: Bool = false, scope: SourceLocation? = nil,
    reportInScope: (@Sendable (String) -> Void)? = nil
  ) {
    let root = Self.currentTaskPointer.map(TaskRef.init)
    self.init(
      root: root, opener: nil, pumpsOnMainQueue: root != nil && RuntimeHooks.isOnMainQueue,
      includingMainQueueBlocks: includingMainQueueBlocks, scope: scope,
      reportInScope: reportInScope)
    Self.noteCurrentTask(in: self)
  }

  /// Opens an executor for a clock, scheduler or timeline made without a `withTestExecutor`
  /// scope (``ImplicitScope``), for its test's task `root`: the current task, or (for a clock
  /// made outside any task) the task the current one descends from, whose jobs in flight the
  /// lineage counts (``TaskLineage``).
  ///
  /// The job the current task is running came to no executor, yet it is the test's work: the
  /// test is not quiet until it ends (see ``TestExecutorStateMachine/OpenerWatch``). The task
  /// is kept alive until the executor goes away, so that its status can be read.
  convenience init(forClockOf root: TaskRef) {
    // The status is read only where it reads as expected: running, for the running task; and
    // only of a task that a retain keeps: an `async let` child's memory is its parent's, and
    // freed with its binding's scope (a release after that would hit whatever was put there
    // next; AddressSanitizer caught one landing on a TestExecutor).
    let isOpener =
      Self.currentTaskPointer == root.address && RunningJob.executor == nil
      && !JobIdentity.isAsyncLetChild(root.address) && tempo_task_is_runnable(root.address)
    // On the main queue, a pass through it tells when the job has ended (see
    // `TestExecutorStateMachine.OpenerWatch.Reads`).
    let onMainQueue = isOpener && RuntimeHooks.isOnMainQueue
    if isOpener { tempo_task_retain(root.address) }
    self.init(
      root: root, opener: isOpener ? root.address : nil, openerOnMainQueue: onMainQueue,
      pumpsOnMainQueue: onMainQueue)
    if isOpener {
      noteMember(root)
    } else {
      TestRegistry.note(root, memberOf: self, watches: false)
      noteMembersMetByName()
    }
    XCTestEnds.opened(self)
    // Runs once the main queue has finished the job it runs now: the opener's. (It holds the
    // executor: see `watchOpener` for why never weakly.)
    if onMainQueue { MainQueueActivity.async { self.mainQueuePassRan() } }
  }

  /// Opens the executor of the test whose time source deferred it (``DeferredTest``) to now:
  /// the test's task, `test`, made a job runnable, or the test needs its executor. `kept` is a
  /// retain of `test`, which the executor takes over. Whether the test's task runs a job that
  /// came to no executor is known only if it is the current task; its pumps run on the main
  /// queue if it deferred the executor there.
  convenience init(
    deferredFor test: TaskRef, keeping kept: UnsafeRawPointer, pumpsOnMainQueue: Bool
  ) {
    let isOpener =
      Self.currentTaskPointer == test.address && RunningJob.executor == nil
      && tempo_task_is_runnable(test.address)
    let onMainQueue = isOpener && RuntimeHooks.isOnMainQueue
    self.init(
      root: test, opener: kept, watchesOpener: isOpener, openerOnMainQueue: onMainQueue,
      pumpsOnMainQueue: pumpsOnMainQueue)
    noteMember(test)
    XCTestEnds.opened(self)
    if onMainQueue { MainQueueActivity.async { self.mainQueuePassRan() } }
  }

  /// Opens the executor of `root`'s test; `opener`, retained by the caller, is `root`, kept for
  /// its status: running a job that came to no executor, which the executor watches, if
  /// `watchesOpener`.
  private init(
    root: TaskRef?, opener: UnsafeRawPointer?, watchesOpener: Bool = true,
    openerOnMainQueue: Bool = false, pumpsOnMainQueue: Bool,
    includingMainQueueBlocks: Bool = false, scope: SourceLocation? = nil,
    reportInScope: (@Sendable (String) -> Void)? = nil
  ) {
    state.includesMainQueueBlocks = includingMainQueueBlocks
    state.pumpsOnMainQueue = pumpsOnMainQueue
    leftovers = Leftovers(lock: lock)
    self.root = root
    self.pumpsOnMainQueue = pumpsOnMainQueue
    self.scope = scope
    self.reportInScope = reportInScope
    time = Self.handedTime ?? RealTime.system
    // By hand: a debug build calls `Optional.flatMap` generically.
    var outer: TestExecutor?
    if let root { outer = TestRegistry.executorThatMet(root) }
    self.outer = outer
    heldOpener = opener
    if let opener, watchesOpener {
      state.openerIsRunning(opener, onMainQueue: openerOnMainQueue)
    }
    TestRegistry.open(self)
  }

  deinit {
    if let heldOpener { tempo_task_release(heldOpener) }
    for task in yieldedTasks.removeAll() { tempo_task_release(task) }
  }

  /// The opening task, kept alive while the executor is, if it was running a job that came to
  /// no executor (see ``init(forClockOf:)``).
  // Invariant: retained in `init(forClockOf:)`, released in `deinit`; read only for its status.
  let heldOpener: UnsafeRawPointer?

  /// The task that opened the executor: the test's own task, for one a clock opened.
  let root: TaskRef?

  /// The real time the executor's guesses read and wait on (``Guesses``): the system's, or
  /// the one handed to it (``handedTime``).
  let time: any WallTime

  /// The real time an executor opened in this task's context reads, instead of the system's:
  /// Tempo's own tests hand one they move by hand, to drive a guess with no real wait.
  @TaskLocal static var handedTime: (any WallTime)?

  /// Whether the queue is run on the main queue rather than on a shared system thread: the test
  /// opened the executor from a main-actor job (a `@MainActor` test), so its work, whether
  /// main-actor or not, runs on the one thread, one job after another, with no thread woken
  /// between a main-actor job and the next job of the test. (Each such hop cost a wake-up and
  /// a context switch, most of a whole test's time; see Benchmarks.md, "Whole tests".)
  ///
  /// An advance started there continues there too: a task waiting for quiet is resumed on the
  /// main queue (see ``accept(_:)``).
  let pumpsOnMainQueue: Bool

  /// Where the scope that opened the executor is written; nil for one a clock opened.
  package let scope: SourceLocation?

  /// Reports an issue of the scope at the test's declaration, if `scope` is not it.
  package let reportInScope: (@Sendable (String) -> Void)?

  /// The ID of the task that opened the executor. Task IDs count up: a task with this ID or a
  /// later one was started after the executor opened (or is the one that opened it).
  var firstTaskID: UInt32 { root?.id ?? 0 }

  /// The executor the opening task belonged to before (one a clock of the task opened), which
  /// takes the task back when this one closes.
  private let outer: TestExecutor?

  /// Whether ``settle(at:)`` also waits for what plain GCD blocks on the main queue start: a
  /// round trip through the main queue after the work is quiet, repeated until it finds nothing
  /// new; a task started from such a block with no other context is taken here. Off by
  /// default: main-actor jobs are counted without it. Once on, it stays on.
  package var includesMainQueueBlocks: Bool {
    get { lock.withLock { state.includesMainQueueBlocks } }
    set {
      lock.withLock { state.includesMainQueueBlocks = state.includesMainQueueBlocks || newValue }
    }
  }

  /// Whether the executor still takes jobs.
  package var isOpen: Bool { lock.withLock { !state.isClosed } }

  /// Whether this runtime lets a test executor see jobs at all.
  package static var isSupported: Bool { RuntimeHooks.areAvailable }

  /// Says once per process, as a warning, that this runtime has no executor hooks, so test
  /// executors fall back to settling by probe rounds.
  package static func warnOnceThatHooksAreMissing() {
    guard missingHooksWarning.setForTheFirstTime() else { return }
    let why = RuntimeHooks.unavailability ?? "The runtime's executor hooks cannot be installed"
    reportTempoIssue(
      """
      \(why), so withTestExecutor and .testExecutor run their tests without a test executor: \
      async advances let the released work run by rounds through the global executor and the \
      main actor instead of waiting for it to go quiet. Said once per process.
      """,
      asWarning: true)
  }

  private static let missingHooksWarning = LockedBox(false)

  // MARK: Taking jobs

  /// Queues `job`, if this executor is open and the job is not a driver's; answers false
  /// otherwise. A driver's job is not this test's work (the driver waits for that work to go
  /// quiet): it is sent to the main queue where the executor ``pumpsOnMainQueue`` (and true
  /// is answered), so that an advance of a `@MainActor` test goes on on the thread that runs
  /// the test's work, and elsewhere left to the global executor.
  func accept(_ job: UnownedJob) -> Bool {
    let pointer = unsafeBitCast(job, to: UnsafeRawPointer.self)
    // Read before the job is queued: from then on another thread may run it, and a job that has
    // run may be freed (an actor's processing job frees itself, a task may end).
    let isTask = JobIdentity.isTask(pointer)
    let task = isTask ? TaskRef(pointer) : nil
    // A task that enqueues itself from a job this executor runs for it (a hop, a yield) was
    // remembered when that job came here. Any other is remembered every time, not only the
    // first: another test may have met a task at the same address since, the memory of an
    // ended task being reused; unless it is the task noted last, with no change since to who
    // met whom (a task resumed again and again by the jobs of others: a yield's continuation,
    // a stream). It is retained now, while it is surely alive, in case it is new here and is
    // to be watched for yields.
    let isOwnJob = isTask && isRunningJob(of: pointer)
    var member = isTask && !isOwnJob ? task : nil
    var retained = false
    // A task that switches from its own job to the next carries the time that job began: a
    // system sleep it makes there may have read the clock before the switch.
    var carriedStart: UInt64?
    if isOwnJob, controlsSystemSleeps.load(ordering: .relaxed) {
      carriedStart = RunningJob.startOfJob(of: pointer)
    }
    // Refused while open, the job is a driver's. (The lock is taken by hand, not through
    // `withLock`, which a debug build calls generically for every job; nothing here throws.)
    lock.lock()
    if let known = member, lastNoted.isCurrent(known) { member = nil }
    // A retain is an atomic increment that takes no lock and runs no code: taken under the
    // lock, which is held once. (`YieldResumePoint.function`, which it reads, was learned
    // before the hooks were first installed.)
    if member != nil { retained = retainToWatch(pointer) }
    let (accepted, wake) = state.enqueue(QueuedJob(job), task: pointer)
    let isDriver = !accepted && !state.isClosed
    let isStalled = state.isMainQueueStalled
    if accepted, let carriedStart { systemSleeps.carriedStarts[pointer] = carriedStart }
    var cancelledSleep: SystemSleeps.Pending?
    var watchesEnqueuer = false
    if let task {
      // A sleeper with a system sleep pending is enqueued only when that sleep was cancelled.
      cancelledSleep = systemSleeps.remove(task)
    } else if accepted {
      yieldedTasks.processingJobQueued()
      watchesEnqueuer = yieldedTasks.hasMembersMetByName
    }
    lock.unlock()
    if let cancelledSleep { systemSleepWasCancelled(cancelledSleep) }
    guard accepted else {
      if retained { tempo_task_release(pointer) }
      // Not while the main queue is stalled: the driver goes on elsewhere, to report it.
      guard isDriver, pumpsOnMainQueue, !isStalled else { return false }
      // Run as the global executor would have run it, with no task executor of Tempo's.
      MainQueueActivity.async { job.runSynchronously(on: TaskLineage.genericExecutor) }
      return true
    }
    // An actor's processing job may run the task that enqueued it, which may then leave the
    // actor with no task executor and yield unseen: a task adopted by name is watched from now.
    if watchesEnqueuer, let current = Self.currentTaskPointer,
      TestRegistry.startsWatching(TaskRef(current), by: self)
    {
      watch(current)
    }
    // The retain keeps the task alive, even if its job has run to its end on another thread.
    if let member { noteMember(member, isRetained: retained, watches: retained) }
    start(wake)
    return true
  }

  /// Counts a main-actor job of `task` that goes to the main queue; false if it is not counted
  /// (closed, or the task is a driver's).
  func acceptMainJob(task: UnsafeRawPointer) -> Bool {
    // The job is not on the main queue yet: the task is alive. A task that enqueues itself
    // from a job this executor runs for it was remembered when that job came here, and so was
    // the task noted last, with no change since to who met whom.
    let member = JobIdentity.isTask(task) && !isRunningJob(of: task) ? TaskRef(task) : nil
    lock.lock()
    let accepted = state.mainJobQueued(task: task)
    var isKnown = false
    if let member { isKnown = lastNoted.isCurrent(member) }
    lock.unlock()
    if accepted, !isKnown, let member { noteMember(member) }
    return accepted
  }

  /// A counted main-actor job has run.
  func mainJobFinished() {
    let released = lock.withLock { state.mainJobFinished() }
    resume(released)
  }

  /// `count` jobs of the tasks this executor adopts are on their way outside it
  /// (``TaskLineage``).
  func addOutsideJobs(_ count: Int) {
    lock.withLock { state.addOutsideJobs(count) }
  }

  /// A job of `task`, which this executor adopted, left for outside it; false if not counted.
  func countOutsideJob(of task: UnsafeRawPointer) -> Bool {
    lock.withLock { state.outsideJobLeft(task: task) }
  }

  /// A counted outside job has run.
  func outsideJobFinished() {
    let released = lock.withLock { state.outsideJobFinished() }
    resume(released)
  }

  // MARK: Leases

  /// A clock, scheduler or timeline holds the executor open; false if it has closed.
  func retainLease() -> Bool { lock.withLock { state.retainLease() } }

  /// A holder lets go; the last one closes the executor.
  func releaseLease() {
    guard let wake = lock.withLock({ state.releaseLease() }) else { return }
    hasClosed(wake)
  }

  // MARK: Closing

  /// Closes the executor: it takes no more jobs (later ones go to the global executor) and
  /// runs those still queued.
  package func close() {
    let wake = lock.withLock { state.close() }
    if let outer, outer.isOpen { Self.noteCurrentTask(in: outer) }
    hasClosed(wake)
  }

  /// The executor has closed: the registry forgets it (its tasks, and those it adopted), and
  /// what is still queued runs.
  private func hasClosed(_ wake: TestExecutorStateMachine.Wake) {
    hasClosedForHandOffs.store(true, ordering: .relaxed)
    unbindAsCurrent()
    TestRegistry.close(self)
    stopWatchingYields()
    endSystemSleeps()
    // Only an executor whose pumps run on the main queue is ever followed there.
    if pumpsOnMainQueue { HangWatch.shared.stopWatchingMainQueue(of: self) }
    start(wake)
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// The executor of the current test: the open `withTestExecutor` scope's, else the one
  /// whose job the thread runs, else the one that met the current task, opened now if a time
  /// source of the task deferred it (``DeferredTest``).
  package static var ofCurrentTest: TestExecutor? {
    TestRegistry.firstCandidate(forJob: nil) { $0.isOpen }
      ?? TestRegistry.deferralOfCurrentTask()?.open()
  }
}
