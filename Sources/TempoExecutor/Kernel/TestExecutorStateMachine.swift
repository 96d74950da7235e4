/// The state of one ``TestExecutor``, and every rule that changes it: a pure value with no lock
/// and no side effects. Each event returns what the executor must do afterwards (start a pump,
/// resume waiters), which it does after unlocking.
///
/// The state is six values, each with its own rules and invariants:
/// - ``JobQueue``: the jobs queued here, and the one place where the next job is chosen;
/// - ``QuietCounts``: the job running here, and the counts of the test's work elsewhere;
/// - ``OpenerWatch``: the job the opening task was running when a clock opened the executor;
/// - ``Runners``: who runs the queue (draining drivers, a pump, a backstop), and who waits for
///   quiet;
/// - ``Lifecycle``: open, with the leases held on it, or closed;
/// - ``MainQueuePumps``: the pump blocks queued on the main queue, and whether it has stalled.
///
/// Quiet means: no job of the test is queued or running here, none of its main-actor jobs is
/// queued or running on the main queue, none of the jobs its adopted tasks sent out before
/// the executor opened (see ``TaskLineage``) is still on its way, and the job the opening task
/// was running when a clock opened the executor for it has ended (see ``OpenerWatch``).
///
/// Who runs the queue: whenever a job is queued, either a driver is draining it (a clock or
/// scheduler that is advancing runs the jobs its actions release on its own thread) or a pump
/// is scheduled on a shared system thread. While a driver drains, a job queued behind it is its
/// to run; a delayed pump (the backstop) is scheduled in case the driver is blocked on that very
/// job.
///
/// An event that cannot happen (a job finished that was not running, a lease let go that was
/// never taken) stops the process with `preconditionFailure`, in every build. With Tempo's
/// internal checks on, ``checkInvariants()`` runs after every event.
///
/// A job is held as a ``QueuedJob``, its address; tests make them of numbers:
///
/// ```swift
/// var machine = TestExecutorStateMachine()
/// let (accepted, wake) = machine.enqueue(QueuedJob(job), task: task)  // true, .pump
/// let next = machine.takeForPump()                            // that job; nil would end the pump
/// let (released, taken) = machine.finishJobAndTakeForPump()  // waiters to resume, nil
/// ```
///
/// The machine is not generic over its job type: a debug build (what `swift test` compiles)
/// runs generic code unspecialized, copying every generic value through its value witnesses
/// and looking up the metadata of every nested type at each access, and this is the path of
/// every job of every test.
@available(TempoTestExecutor 1.0, *)
struct TestExecutorStateMachine: ~Copyable {
  typealias Job = QueuedJob

  struct Waiter {
    let continuation: UnsafeContinuation<Bool, Never>
    /// The value of `jobsRun` at which the waiter gives up.
    let giveUpAt: Int
    /// Whether quiet also means no outside work in flight (see ``QuietCounts/outsideWork``): an
    /// auto-advance driver's wait, never an advance the test asked for.
    var respectsOutsideWork = false
  }

  /// A waiter to resume after unlocking, with its answer (true: quiet; false: the budget ran
  /// out first, or the main queue stalled: ``endedWithoutQuiet()`` tells which). (A struct
  /// rather than a tuple: a debug build looks an array's tuple element type up at every use.)
  struct Release {
    let continuation: UnsafeContinuation<Bool, Never>
    let quiet: Bool
  }

  /// What the executor must start after an event, outside its lock.
  enum Wake: Equatable {
    case none
    /// Run the queue on a shared thread now.
    case pump
    /// Run the queue on a shared thread a little later, unless a driver has run it by then.
    case backstop
    /// Run the queue now on a thread of its own: the main queue, where this executor's pumps
    /// run, is stalled (see ``MainQueuePumps``).
    case pumpOffMainQueue
  }

  /// Whether the executor takes jobs, and how many holders keep it open.
  enum Lifecycle: Equatable {
    /// Open, held by `leases` clocks, schedulers and timelines (``ImplicitScope``). The last
    /// lease let go closes it; an executor a `withTestExecutor` scope opened may hold none.
    case open(leases: Int)
    /// Closed: it takes no more jobs, and those queued still run. `leases` are those still held
    /// when its scope closed it, which can only be let go.
    case closed(leases: Int)
  }

  private var jobs = JobQueue()
  private var counts = QuietCounts()
  private var openerWatch = OpenerWatch()
  private var runners = Runners()
  private(set) var lifecycle = Lifecycle.open(leases: 0)
  private var mainQueuePumps = MainQueuePumps()
  /// See ``TestExecutor/includesMainQueueBlocks``.
  var includesMainQueueBlocks = false
  /// Whether pumps run on the main queue (``TestExecutor/pumpsOnMainQueue``), where they are
  /// counted (``MainQueuePumps``). Set once, before the first event.
  var pumpsOnMainQueue = false

  /// The block a pump starts in (see ``takeForPump(starting:)``).
  enum PumpBlock: Equatable {
    /// A pump block on the main queue (``MainQueuePumps``).
    case mainQueue
    /// The pump block of a backstop that fired (``backstopFired()``).
    case backstop
    /// Any other: the system's pool, the next turn of a backstop's pump, a pump off a stalled
    /// main queue.
    case elsewhere
  }

  /// Why a wait for quiet ended without quiet (``endedWithoutQuiet()``).
  enum NotQuiet: Equatable {
    /// The waiter's budget of jobs ran out.
    case budgetSpent
    /// The main queue stalled, and this waiter is the first to tell: it reports.
    case mainQueueStalled
    /// The main queue stalled, and has been reported.
    case mainQueueStillStalled
  }

  // MARK: What the executor reads

  var isQuiet: Bool { jobs.isEmpty && counts.isQuiet && openerWatch.opener == nil }

  var isClosed: Bool {
    switch lifecycle {
    case .open: false
    case .closed: true
    }
  }

  var isRunningJob: Bool { counts.isRunningJob }

  /// Jobs run, here and this test's on the main queue; the measure of the job budget.
  var jobsRun: Int { counts.jobsRun }

  /// Jobs accepted so far; tells whether anything arrived during a main-queue pass.
  var accepted: Int { counts.accepted }

  /// See ``QuietCounts/outsideWork``.
  var outsideWork: Int { counts.outsideWork }

  /// See ``OpenerWatch/opener``.
  var opener: UnsafeRawPointer? { openerWatch.opener }

  /// Whether `task` is waiting for quiet; it is no member while it does.
  func isDriver(_ task: UnsafeRawPointer) -> Bool { runners.isDriver(task) }

  /// How many jobs have ever been queued (``JobQueue/appended``).
  var jobsQueued: Int { jobs.appended }

  /// Whether a task is waiting for quiet: an advance of the test is under way.
  var hasDrivers: Bool { runners.hasDrivers }

  /// Whether a task is suspended until quiet.
  var hasWaiters: Bool { runners.hasWaiters }

  /// Whether a backstop is armed, or has fired and its pump has not started: it may run a job
  /// queued later (for Tempo's tests).
  var isBackstopPending: Bool { runners.isBackstopScheduled || runners.backstopPumpsQueued > 0 }

  /// Whether the main queue has stalled: a pump block queued there has not started for a
  /// while (see ``MainQueuePumps``).
  var isMainQueueStalled: Bool { mainQueuePumps.isStalled }

  /// Pump blocks on the main queue not started yet, and those started so far (what the hang
  /// watch reads).
  var mainQueuePumpBlocks: (queued: Int, started: Int) {
    (mainQueuePumps.queued, mainQueuePumps.started)
  }

  // MARK: Jobs arriving

  /// A job of this test becomes runnable. Refused (false) once closed, and for a driver's own
  /// task, which must not run here while it waits for this queue to go quiet.
  mutating func enqueue(
    _ job: Job, task: UnsafeRawPointer
  ) -> (accepted: Bool, wake: Wake) {
    defer { checkInvariants() }
    guard !isClosed, !runners.isDriver(task) else { return (false, .none) }
    openerWatch.jobArrived(of: task)
    jobs.append(job)
    counts.jobAccepted()
    return (true, wakeIfNeeded())
  }

  /// `task`, whose job is running, switches executors: true if it goes on in that job (see
  /// `TestExecutor.run`), counted toward the job budget as a job when that job finishes (no
  /// waiter's budget runs out between two job ends); false (and nothing changes)
  /// if the executor has closed or `task` waits for quiet, whose jobs are not the test's work.
  ///
  /// `isResumed`: `task` is the task the running job, a continuation job, resumes. Its job
  /// comes to the executor as one that came through the queue would (for the opener watch).
  mutating func handOffSwitch(of task: UnsafeRawPointer, isResumed: Bool = false) -> Bool {
    defer { checkInvariants() }
    guard !isClosed, !runners.isDriver(task), counts.isRunningJob else { return false }
    if isResumed { openerWatch.jobArrived(of: task) }
    counts.switchHandedOff()
    return true
  }

  /// `task`, whose job is running, yields (`Task.yield()` enqueues its continuation job): true
  /// if the continuation job runs next in that job (see `TestExecutor.run`), accepted as a
  /// queued job is and counted toward the job budget as a job. Only if nothing else of the
  /// test is queued, when the queue would give it to the same runner next; false (and nothing
  /// changes) otherwise, or if the executor has closed or `task` waits for quiet.
  mutating func handOffYield(of task: UnsafeRawPointer) -> Bool {
    defer { checkInvariants() }
    guard !isClosed, !runners.isDriver(task), counts.isRunningJob, jobs.isEmpty else {
      return false
    }
    counts.jobAccepted()
    counts.switchHandedOff()
    return true
  }

  /// `task`, whose main-actor job is running on the main queue, leaves the main actor for this
  /// executor: true if its next job starts now, run by the main-queue block of that main-actor
  /// job, which then pumps (`TestExecutor.pump(startingWith:)`). Only where the executor pumps
  /// on the main queue, nothing is queued or running, and no pump is scheduled or driver
  /// draining: then it is the job a pump would run next, and the block is that pump.
  ///
  /// - Parameter finishingMainJob: Whether the main-actor job, counted (``mainJobQueued(task:)``),
  ///   finishes with the switch, as a task's leaving is the last thing its job does: it is
  ///   counted as run in the same step (no waiter is released, since a job starts), and its
  ///   block does not finish it again. Refused if no main-actor job is counted.
  mutating func switchFromMainJob(
    of task: UnsafeRawPointer, finishingMainJob: Bool = false
  ) -> Bool {
    defer { checkInvariants() }
    guard !isClosed, pumpsOnMainQueue, !isMainQueueStalled, !runners.isDriver(task),
      !counts.isRunningJob, jobs.isEmpty, !runners.isPumpScheduled, runners.drainers == 0,
      !finishingMainJob || counts.mainJobs > 0
    else { return false }
    if finishingMainJob { counts.mainJobFinished() }
    openerWatch.jobArrived(of: task)
    counts.jobAccepted()
    runners.pumpStartedInPlace()
    counts.jobStarted()
    return true
  }

  /// A main-actor job of this test was sent to the main queue (see ``MainExecutor``).
  mutating func mainJobQueued(task: UnsafeRawPointer) -> Bool {
    defer { checkInvariants() }
    guard !isClosed, !runners.isDriver(task) else { return false }
    openerWatch.jobArrived(of: task)
    counts.mainJobQueued()
    return true
  }

  /// A main-actor job of this test has run; returns the waiters it releases.
  mutating func mainJobFinished() -> [Release] {
    defer { checkInvariants() }
    counts.mainJobFinished()
    return releasedWaiters()
  }

  /// `count` jobs of tasks the executor adopts are on their way outside it.
  mutating func addOutsideJobs(_ count: Int) {
    defer { checkInvariants() }
    counts.addOutsideJobs(count)
  }

  /// A job of `task`, adopted, left for outside the executor: counted (true) unless closed or
  /// the task is waiting for quiet.
  mutating func outsideJobLeft(task: UnsafeRawPointer) -> Bool {
    defer { checkInvariants() }
    guard !isClosed, !runners.isDriver(task) else { return false }
    counts.addOutsideJobs(1)
    return true
  }

  /// A job counted by ``addOutsideJobs(_:)`` or ``outsideJobLeft(task:)`` has run; returns the
  /// waiters it releases.
  mutating func outsideJobFinished() -> [Release] {
    defer { checkInvariants() }
    counts.outsideJobFinished()
    return releasedWaiters()
  }

  /// The task of a main-actor job that is running now starts driving: it no longer counts as
  /// this test's main-actor work, since the work must go quiet while it waits. Returns the
  /// waiters that releases (an auto-advance driver waiting for that job).
  mutating func uncountRunningMainJob() -> [Release] {
    defer { checkInvariants() }
    counts.uncountMainJob()
    return releasedWaiters()
  }

  // MARK: Running jobs

  /// The next job for a driver's thread: no other job running, budget left, and the next job
  /// queued (``JobQueue/takeNext()``).
  mutating func takeForDriver(giveUpAt: Int) -> Job? {
    defer { checkInvariants() }
    return nextForDriver(giveUpAt: giveUpAt)
  }

  /// The next job for a pump, or nil, which ends the pump: someone else is running a job (and
  /// will look at the queue when it finishes), or nothing is queued. `block`: the block the
  /// pump starts in now (on the main queue, the queue moves).
  mutating func takeForPump(starting block: PumpBlock = .elsewhere) -> Job? {
    defer { checkInvariants() }
    switch block {
    case .mainQueue: mainQueuePumps.blockStarted()
    case .backstop: runners.backstopPumpStarted()
    case .elsewhere: break
    }
    return nextForPump()
  }

  /// The backstop fired; answers whether it must run the queue like a pump: a job is queued
  /// and none is running.
  mutating func backstopFired() -> Bool {
    defer { checkInvariants() }
    runners.backstopFired()
    let runs = !jobs.isEmpty && !counts.isRunningJob
    if runs { runners.backstopPumpQueued() }
    return runs
  }

  /// The running job of a driver has finished, and the driver takes the next
  /// (``takeForDriver(giveUpAt:)``) in the same step: who runs the rest is decided after the
  /// next job is taken.
  ///
  /// - Parameter switches: Switches of the job's task that went on in the job without an event
  ///   here (`TestExecutor.takesSwitch()`), each a job for the budget.
  mutating func finishJobAndTakeForDriver(
    giveUpAt: Int, switches: Int = 0
  ) -> (released: [Release], wake: Wake, next: Job?) {
    defer { checkInvariants() }
    let released = finishRunning(switches: switches)
    let next = nextForDriver(giveUpAt: giveUpAt)
    return (released, wakeIfNeeded(), next)
  }

  /// The running job of a pump has finished, and the pump takes the next (``takeForPump()``)
  /// in the same step.
  mutating func finishJobAndTakeForPump(switches: Int = 0) -> (released: [Release], next: Job?) {
    defer { checkInvariants() }
    let released = finishRunning(switches: switches)
    return (released, nextForPump())
  }

  /// The running job of a pump has finished, and so has the pump's turn; answers the waiters
  /// it releases, and whether the pump goes on in a next turn (a job is still queued: the pump
  /// stays scheduled for it, whichever pump cleared the flag meanwhile). `onMainQueue`: the
  /// pump runs on the main queue, where its next turn is a new block at the back.
  mutating func finishJobAndEndTurn(
    onMainQueue: Bool = false, switches: Int = 0
  ) -> (released: [Release], goesOn: Bool) {
    defer { checkInvariants() }
    let released = finishRunning(switches: switches)
    let goesOn = runners.turnEnded(jobsQueued: !jobs.isEmpty)
    if goesOn, onMainQueue { mainQueuePumps.blockQueued() }
    return (released, goesOn)
  }

  /// The running job is done: counts it, and returns the waiters that releases. A step of the
  /// events that finish a job, which check the invariants.
  /// (Internal for `TestExecutorStateMachine+Testing.swift`.)
  mutating func finishRunning(switches: Int = 0) -> [Release] {
    counts.jobFinished(switches: switches)
    return releasedWaiters()
  }

  // MARK: Drivers

  /// A driver begins running the queue on its thread; returns the jobs run so far, from which
  /// it measures its budget.
  @discardableResult
  mutating func beginDraining() -> Int {
    defer { checkInvariants() }
    runners.beginDraining()
    return counts.jobsRun
  }

  /// A driver stops running the queue; whatever is left goes to a pump.
  mutating func endDraining() -> Wake {
    defer { checkInvariants() }
    runners.endDraining()
    return wakeIfNeeded()
  }

  /// `task` begins to wait for quiet; returns the waiters that releases (the opener waiting
  /// for its own work: its job is no longer the test's work).
  mutating func beginDriving(_ task: UnsafeRawPointer) -> [Release] {
    defer { checkInvariants() }
    runners.beginDriving(task)
    guard task == openerWatch.opener else { return [] }
    return endOpenersJob()
  }

  /// `task` no longer waits for quiet (whether it began to or not: a task rejoins its
  /// executor when it starts, too).
  mutating func endDriving(_ task: UnsafeRawPointer) {
    defer { checkInvariants() }
    runners.endDriving(task)
  }

  // MARK: Waiting for quiet

  /// True if quiet (and, for a waiter that respects it, no outside work is in flight), false if
  /// the budget is spent or the main queue is stalled, nil if neither yet.
  func quietAnswer(giveUpAt: Int, respectingOutsideWork: Bool = false) -> Bool? {
    if isQuiet, !respectingOutsideWork || counts.outsideWork == 0 { return true }
    if counts.jobsRun >= giveUpAt { return false }
    if isMainQueueStalled { return false }
    return nil
  }

  /// A wait for quiet ended without it (it was answered false): answers why. The first waiter
  /// to ask after the main queue stalled reports the stall (even if it has ended since); those
  /// after it, while it lasts, say nothing more.
  mutating func endedWithoutQuiet() -> NotQuiet {
    defer { checkInvariants() }
    if mainQueuePumps.takeReport() { return .mainQueueStalled }
    return isMainQueueStalled ? .mainQueueStillStalled : .budgetSpent
  }

  // MARK: The main queue

  /// The hang watch saw pump blocks queued on the main queue while a task waited for quiet, and
  /// none started since `started` (``mainQueuePumpBlocks``) for about a second: the main queue
  /// is not drained. Stalls it, unless one has started since, and returns the waiters that
  /// lets go (answered false), and a pump off the main queue for the jobs queued. Until a pump
  /// block starts on the main queue, a wait answers at once, and the queue is pumped off it:
  /// the main thread may be blocked on those very jobs (a synchronous wait for async work).
  mutating func mainQueueStalled(since started: Int) -> (released: [Release], wake: Wake) {
    defer { checkInvariants() }
    guard runners.hasWaiters, mainQueuePumps.stalled(since: started) else { return ([], .none) }
    // The pump stuck on the main queue stays scheduled for them: another is started, which
    // takes nothing if a job is running (its end looks at the queue again).
    return (runners.releaseAllWaiters(), jobs.isEmpty ? .none : .pumpOffMainQueue)
  }

  /// Registers a waiter unless the answer is known now, which it returns instead.
  mutating func wait(_ waiter: Waiter) -> Bool? {
    defer { checkInvariants() }
    let answer = quietAnswer(
      giveUpAt: waiter.giveUpAt, respectingOutsideWork: waiter.respectsOutsideWork)
    if let answer { return answer }
    runners.wait(waiter)
    return nil
  }

  // MARK: The opener's job

  /// The executor was opened for `task`, a task running a job that came to no executor, on
  /// the main queue if `onMainQueue`.
  mutating func openerIsRunning(_ task: UnsafeRawPointer, onMainQueue: Bool = false) {
    defer { checkInvariants() }
    openerWatch.start(task, onMainQueue: onMainQueue)
    // The caller queues a pass through the main queue; counted as a pump block, so that a
    // main queue that never runs it is reported as stalled rather than waited on for good.
    if onMainQueue, pumpsOnMainQueue { mainQueuePumps.blockQueued() }
  }

  /// A pass through the main queue queued for the opener's job has run: that job there has
  /// ended, and once no later pass is pending a read of its status is trusted. Returns the
  /// opener to watch, if someone waits for quiet.
  mutating func mainQueuePassRan() -> UnsafeRawPointer? {
    defer { checkInvariants() }
    if pumpsOnMainQueue { mainQueuePumps.blockStarted() }
    guard openerWatch.mainQueuePassRan() else { return nil }
    return openerWatch.watch(whileWaitedFor: runners.hasWaiters)
  }

  /// The opener's status was read at `now` (nanoseconds of uptime): `runnable` (running or
  /// queued) or not. Returns the waiters released if that ends the opener's job (see
  /// ``OpenerWatch/Reads``).
  mutating func openerRead(runnable: Bool, at now: UInt64) -> [Release] {
    defer { checkInvariants() }
    guard openerWatch.read(runnable: runnable, at: now) else { return [] }
    return endOpenersJob()
  }

  /// The main-queue opener read as runnable: answers whether its job is watched again, and the
  /// caller queues a pass through the main queue (see ``OpenerWatch/resumedUnseen(quietByCounts:isDriver:)``).
  mutating func openerReadRunnable() -> Bool {
    defer { checkInvariants() }
    guard let task = openerWatch.mainQueueOpener,
      openerWatch.resumedUnseen(
        quietByCounts: jobs.isEmpty && counts.isQuiet, isDriver: runners.isDriver(task))
    else { return false }
    // The pass the caller queues, counted as the first was (see `openerIsRunning`).
    if pumpsOnMainQueue { mainQueuePumps.blockQueued() }
    return true
  }

  /// The opener's job has ended; returns the waiters that releases.
  mutating func openerSuspended() -> [Release] {
    defer { checkInvariants() }
    return endOpenersJob()
  }

  /// The opener to watch until it suspends, if someone waits for quiet and nobody watches it
  /// yet (nobody does before the main-queue pass of an opener there).
  mutating func openerToWatch() -> UnsafeRawPointer? {
    defer { checkInvariants() }
    return openerWatch.watch(whileWaitedFor: runners.hasWaiters)
  }

  // MARK: Outside work

  /// The test says work it cannot see is in flight.
  mutating func beginOutsideWork() {
    defer { checkInvariants() }
    counts.beginOutsideWork()
  }

  /// That work is over: a waiter that respected it may be released.
  mutating func endOutsideWork() -> [Release] {
    defer { checkInvariants() }
    counts.endOutsideWork()
    return releasedWaiters()
  }

  // MARK: Leases and closing

  /// A clock, scheduler or timeline holds the executor open; false if it has closed already
  /// (its last holder let go in the meantime).
  mutating func retainLease() -> Bool {
    defer { checkInvariants() }
    guard case .open(let leases) = lifecycle else { return false }
    lifecycle = .open(leases: leases + 1)
    return true
  }

  /// A holder lets go; the last one closes the executor, at once, so that no one can take a
  /// lease on it any more. Returns what closing needs started, or nil if it stays open (or was
  /// closed already).
  mutating func releaseLease() -> Wake? {
    defer { checkInvariants() }
    switch lifecycle {
    case .open(let leases) where leases > 1:
      lifecycle = .open(leases: leases - 1)
      return nil
    case .open(leases: 1):
      lifecycle = .closed(leases: 0)
      return wakeIfNeeded()
    case .closed(let leases) where leases > 0:
      lifecycle = .closed(leases: leases - 1)
      return nil
    case .open, .closed:
      preconditionFailure("test executor: a lease was released that was never taken")
    }
  }

  /// The executor takes no more jobs; those queued still run. Closing a closed executor (its
  /// last lease closed it before its scope did) changes nothing.
  mutating func close() -> Wake {
    defer { checkInvariants() }
    if case .open(let leases) = lifecycle { lifecycle = .closed(leases: leases) }
    return wakeIfNeeded()
  }

  // MARK: Invariants

  /// Checks, with Tempo's internal checks on, what must hold after every event: each value's
  /// own invariants, and between them that a job is queued only while someone will run it (a
  /// job running, whose end looks at the queue; a pump scheduled; or a driver draining, backed
  /// by its backstop), and that no waiter is left waiting once it has its answer.
  func checkInvariants() {
    #if TEMPO_INTERNAL_CHECKS
      jobs.checkInvariants()
      counts.checkInvariants()
      openerWatch.checkInvariants()
      runners.checkInvariants()
      mainQueuePumps.checkInvariants()
      switch lifecycle {
      case .open(let leases), .closed(let leases):
        precondition(leases >= 0, "test executor: the count of leases is below zero")
      }
      precondition(
        jobs.isEmpty || counts.isRunningJob || runners.isPumpScheduled || runners.drainers > 0,
        "test executor: a job is queued with nobody to run it")
      precondition(
        !isQuiet || runners.waiters.allSatisfy { $0.respectsOutsideWork && counts.outsideWork > 0 },
        "test executor: a waiter is left waiting though the test is quiet")
      precondition(
        runners.waiters.allSatisfy { counts.jobsRun < $0.giveUpAt },
        "test executor: a waiter is left waiting though its budget is spent")
      precondition(
        !isMainQueueStalled || !runners.hasWaiters,
        "test executor: a waiter is left waiting though the main queue is stalled")
      precondition(
        pumpsOnMainQueue || mainQueuePumps.queued == 0,
        "test executor: a pump block is counted on the main queue where none runs")
    #endif
  }

  // MARK: Steps of the events

  /// Every job the executor runs is taken here: one job at a time, and the one
  /// ``JobQueue/takeNext()`` chooses.
  private mutating func startNextJob() -> Job? {
    guard !counts.isRunningJob, let job = jobs.takeNext() else { return nil }
    counts.jobStarted()
    return job
  }

  private mutating func nextForDriver(giveUpAt: Int) -> Job? {
    guard counts.jobsRun < giveUpAt else { return nil }
    return startNextJob()
  }

  private mutating func nextForPump() -> Job? {
    guard let job = startNextJob() else {
      runners.pumpEnded()
      return nil
    }
    return job
  }

  /// The one rule for who runs a queued job: a driver that is draining (with a backstop in case
  /// it is blocked on that job), else a pump.
  /// (Internal for `TestExecutorStateMachine+Testing.swift`.)
  mutating func wakeIfNeeded() -> Wake {
    guard !jobs.isEmpty else { return .none }
    let wake = runners.wakeForQueuedJob()
    guard wake == .pump, pumpsOnMainQueue else { return wake }
    if isMainQueueStalled { return .pumpOffMainQueue }
    mainQueuePumps.blockQueued()
    return .pump
  }

  private mutating func endOpenersJob() -> [Release] {
    guard openerWatch.end() else { return [] }
    return releasedWaiters()
  }

  private mutating func releasedWaiters() -> [Release] {
    runners.releaseWaiters(
      isQuiet: isQuiet, outsideWork: counts.outsideWork, jobsRun: counts.jobsRun)
  }
}

/// A job as ``TestExecutorStateMachine`` queues it: its address, which the machine only keeps
/// and hands back, never reads. Tempo's tests make them of numbers.
///
/// ```swift
/// let queued = QueuedJob(job)
/// queued.job.runSynchronously(on: executor)
/// ```
@available(TempoTestExecutor 1.0, *)
struct QueuedJob: Equatable {
  let address: UnsafeRawPointer

  init(_ job: UnownedJob) { address = unsafeBitCast(job, to: UnsafeRawPointer.self) }

  init(address: UnsafeRawPointer) { self.address = address }

  /// The job, to run.
  var job: UnownedJob { unsafeBitCast(address, to: UnownedJob.self) }
}
