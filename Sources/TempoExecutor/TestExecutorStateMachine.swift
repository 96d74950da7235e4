/// The state of one ``TestExecutor``, and every rule that changes it: a pure value with no lock
/// and no side effects. Each event returns what the executor must do afterwards (start a pump,
/// resume waiters), which it does after unlocking.
///
/// Quiet means: no job of the test is queued or running here, none of its main-actor jobs is
/// queued or running on the main queue, none of the jobs its adopted tasks sent out before
/// the executor opened (see ``TaskLineage``) is still on its way, and the job the opening task
/// was running when a clock opened the executor for it has ended (see ``opener``).
///
/// Who runs the queue: whenever a job is queued, either a driver is draining it (a clock or
/// scheduler that is advancing runs the jobs its actions release on its own thread) or a pump
/// is scheduled on a shared system thread. While a driver drains, a job queued behind it is its
/// to run; a delayed pump (the backstop) is scheduled in case the driver is blocked on that very
/// job.
struct TestExecutorStateMachine<Job> {
  struct Waiter {
    let continuation: UnsafeContinuation<Bool, Never>
    /// The value of `jobsRun` at which the waiter gives up.
    let giveUpAt: Int
    /// Whether quiet also means no outside work in flight (see ``outsideWork``): an
    /// auto-advance driver's wait, never an advance the test asked for.
    var respectsOutsideWork = false
  }

  /// A waiter to resume after unlocking, with its answer (true: quiet; false: the budget ran
  /// out first).
  typealias Release = (continuation: UnsafeContinuation<Bool, Never>, quiet: Bool)

  /// What the executor must start after an event, outside its lock.
  enum Wake: Equatable {
    case none
    /// Run the queue on a shared thread now.
    case pump
    /// Run the queue on a shared thread a little later, unless a driver has run it by then.
    case backstop
  }

  private var jobs: [Job] = []
  private var head = 0
  private(set) var isRunningJob = false
  private(set) var isClosed = false
  /// See ``TestExecutor/includesMainQueueBlocks``.
  var includesMainQueueBlocks = false
  /// Jobs run, here and this test's on the main queue; the measure of the job budget.
  private(set) var jobsRun = 0
  /// Jobs accepted so far; tells whether anything arrived during a main-queue pass.
  private(set) var accepted = 0
  /// Main-actor jobs of this test queued or running on the main queue.
  private(set) var mainJobs = 0
  /// Jobs of this test queued or running outside it: sent out by tasks it adopted before it
  /// opened (``TaskLineage``).
  private(set) var outsideJobs = 0
  /// Work outside the test's sight that the test said is in flight (`withOutsideWork`): time
  /// does not move by itself, and no hang is reported, while it is.
  private(set) var outsideWork = 0
  /// The task a clock opened the executor for, while the job it was running then, or where that
  /// job led it without coming here, may still run: that job came to no executor, yet it is
  /// the test's work, and may start more (the second child of two `async let`s, after the
  /// first has slept), or leave for an actor whose job no executor takes (a job of the default
  /// main executor gives the hooks no task to go by). It is known to have ended
  /// (``openerSuspended()``) when a job of the task arrives here, when the task begins to wait
  /// for quiet itself, or when its status reads as suspended (``openerRead(runnable:at:)``,
  /// trusted as ``OpenerReads`` says).
  private(set) var opener: UnsafeRawPointer?
  /// How far a read of the opener's status is trusted.
  private var openerReads = OpenerReads.trusted
  /// Whether someone looks at the opener's status until it suspends.
  private var isOpenerWatched = false
  /// When the opener's status first read as suspended with no read since saying otherwise, in
  /// nanoseconds of uptime.
  private var openerSuspendedSince: UInt64?

  /// How far a read of the opener's status is trusted. A task marks itself suspended before it
  /// publishes itself as waiting (on a task's result, a continuation, a group), and marks
  /// itself running again, and goes on in the same job, if what it waits for has completed in
  /// between: one read of "suspended" may be that window, stretched by the thread being
  /// preempted in it.
  enum OpenerReads: Equatable {
    /// The opener's job runs on the main queue, and the pass through the queue queued as the
    /// executor opened has not run: that job is still running, whatever a read says.
    case ignoredUntilMainQueuePass
    /// Only reads that say "suspended" for ``openerConfirmation`` end the job: the opener's
    /// job runs elsewhere, and nothing else tells when it ends.
    case confirmed
    /// One read that says "suspended" ends it: the job the executor opened in is over, and a
    /// read only follows where it led (an actor no executor took).
    case trusted
  }
  /// Tasks waiting for quiet: their own jobs never run here while they wait. (Usually one.)
  private var drivers: [UnsafeRawPointer] = []

  /// Drivers draining the queue on their own thread now.
  private var drainers = 0
  private var isPumpScheduled = false
  private var isBackstopScheduled = false
  private var waiters: [Waiter] = []
  /// How many clocks, schedulers and timelines hold the executor open (``ImplicitScope``).
  private var leases = 0

  var isQuiet: Bool {
    head == jobs.count && !isRunningJob && mainJobs == 0 && outsideJobs == 0 && opener == nil
  }

  // MARK: Jobs arriving

  /// A job of this test becomes runnable. Refused (false) once closed, and for a driver's own
  /// task, which must not run here while it waits for this queue to go quiet.
  mutating func enqueue(
    _ job: Job, task: UnsafeRawPointer
  ) -> (accepted: Bool, wake: Wake) {
    defer { checkInvariants() }
    guard !isClosed, !drivers.contains(task) else { return (false, .none) }
    if task == opener { opener = nil }
    jobs.append(job)
    accepted += 1
    return (true, wakeIfNeeded())
  }

  /// Whether `task` is waiting for quiet; it is no member while it does.
  func isDriver(_ task: UnsafeRawPointer) -> Bool { drivers.contains(task) }

  /// Whether a task is waiting for quiet: an advance of the test is under way.
  var hasDrivers: Bool { !drivers.isEmpty }

  /// A main-actor job of this test was sent to the main queue (see ``MainExecutor``).
  mutating func mainJobQueued(task: UnsafeRawPointer) -> Bool {
    defer { checkInvariants() }
    guard !isClosed, !drivers.contains(task) else { return false }
    if task == opener { opener = nil }
    mainJobs += 1
    accepted += 1
    return true
  }

  /// A main-actor job of this test has run; returns the waiters it releases.
  mutating func mainJobFinished() -> [Release] {
    defer { checkInvariants() }
    precondition(mainJobs > 0, "a main-actor job finished that was never counted")
    mainJobs -= 1
    jobsRun += 1
    return releasedWaiters()
  }

  /// `count` jobs of tasks the executor adopts are on their way outside it.
  mutating func addOutsideJobs(_ count: Int) {
    defer { checkInvariants() }
    outsideJobs += count
  }

  /// A job of `task`, adopted, left for outside the executor: counted (true) unless closed or
  /// the task is waiting for quiet.
  mutating func outsideJobLeft(task: UnsafeRawPointer) -> Bool {
    defer { checkInvariants() }
    guard !isClosed, !drivers.contains(task) else { return false }
    outsideJobs += 1
    return true
  }

  /// A job counted by ``addOutsideJobs(_:)`` or ``outsideJobLeft(task:)`` has run; returns the
  /// waiters it releases.
  mutating func outsideJobFinished() -> [Release] {
    defer { checkInvariants() }
    precondition(outsideJobs > 0, "an outside job finished that was never counted")
    outsideJobs -= 1
    jobsRun += 1
    return releasedWaiters()
  }

  /// The task of a main-actor job that is running now starts driving: it no longer counts as
  /// this test's main-actor work, since the work must go quiet while it waits. Returns the
  /// waiters that releases (an auto-advance driver waiting for that job).
  mutating func uncountRunningMainJob() -> [Release] {
    defer { checkInvariants() }
    precondition(mainJobs > 0, "a main-actor job was uncounted that was never counted")
    mainJobs -= 1
    return releasedWaiters()
  }

  // MARK: Running jobs

  /// The next job for a driver's thread: queued first, no other job running, budget left.
  mutating func takeForDriver(giveUpAt: Int) -> Job? {
    defer { checkInvariants() }
    guard !isRunningJob, head < jobs.count, jobsRun < giveUpAt else { return nil }
    return takeFirst()
  }

  /// The next job for a pump, or nil, which ends the pump: someone else is running a job (and
  /// will look at the queue when it finishes), or nothing is queued.
  mutating func takeForPump() -> Job? {
    defer { checkInvariants() }
    guard !isRunningJob, head < jobs.count else {
      isPumpScheduled = false
      return nil
    }
    return takeFirst()
  }

  /// The backstop fired; answers whether it must run the queue like a pump: a job is queued
  /// and none is running.
  mutating func backstopFired() -> Bool {
    isBackstopScheduled = false
    return head < jobs.count && !isRunningJob
  }

  /// The running job of a driver has finished, and the driver takes the next
  /// (``takeForDriver(giveUpAt:)``) in the same step: who runs the rest is decided after the
  /// next job is taken.
  mutating func finishJobAndTakeForDriver(
    giveUpAt: Int
  ) -> (released: [Release], wake: Wake, next: Job?) {
    defer { checkInvariants() }
    let released = finishRunning()
    let next = takeForDriver(giveUpAt: giveUpAt)
    return (released, wakeIfNeeded(), next)
  }

  /// The running job of a pump has finished, and the pump takes the next (``takeForPump()``)
  /// in the same step.
  mutating func finishJobAndTakeForPump() -> (
    released: [Release], next: Job?
  ) {
    defer { checkInvariants() }
    let released = finishRunning()
    return (released, takeForPump())
  }

  /// The running job of a pump has finished, and so has the pump's turn; answers the waiters
  /// it releases, and whether the pump goes on in a next turn (a job is still queued: the pump
  /// stays scheduled for it, whichever pump cleared the flag meanwhile).
  mutating func finishJobAndEndTurn() -> (released: [Release], goesOn: Bool) {
    defer { checkInvariants() }
    let released = finishRunning()
    isPumpScheduled = head < jobs.count
    return (released, isPumpScheduled)
  }

  /// The running job is done: counts it, and returns the waiters that releases.
  /// (Internal for `TestExecutorStateMachine+Testing.swift`.)
  mutating func finishRunning() -> [Release] {
    precondition(isRunningJob, "a job finished that was not running")
    isRunningJob = false
    jobsRun += 1
    return releasedWaiters()
  }

  // MARK: Drivers

  /// A driver begins running the queue on its thread; returns the jobs run so far, from which
  /// it measures its budget.
  @discardableResult
  mutating func beginDraining() -> Int {
    drainers += 1
    return jobsRun
  }

  /// A driver stops running the queue; whatever is left goes to a pump.
  mutating func endDraining() -> Wake {
    defer { checkInvariants() }
    precondition(drainers > 0, "a driver stopped draining that never began")
    drainers -= 1
    return wakeIfNeeded()
  }

  /// `task` begins to wait for quiet; returns the waiters that releases (the opener waiting
  /// for its own work: its job is no longer the test's work).
  mutating func beginDriving(_ task: UnsafeRawPointer) -> [Release] {
    defer { checkInvariants() }
    if !drivers.contains(task) { drivers.append(task) }
    guard task == opener else { return [] }
    return openerSuspended()
  }

  mutating func endDriving(_ task: UnsafeRawPointer) {
    if let index = drivers.firstIndex(of: task) { drivers.remove(at: index) }
  }

  // MARK: Waiting for quiet

  /// True if quiet (and, for a waiter that respects it, no outside work is in flight), false if
  /// the budget is spent, nil if neither yet.
  func quietAnswer(giveUpAt: Int, respectingOutsideWork: Bool = false) -> Bool? {
    if isQuiet, !respectingOutsideWork || outsideWork == 0 { return true }
    if jobsRun >= giveUpAt { return false }
    return nil
  }

  /// Registers a waiter unless the answer is known now, which it returns instead.
  mutating func wait(_ waiter: Waiter) -> Bool? {
    defer { checkInvariants() }
    let answer = quietAnswer(
      giveUpAt: waiter.giveUpAt, respectingOutsideWork: waiter.respectsOutsideWork)
    if let answer { return answer }
    waiters.append(waiter)
    return nil
  }

  // MARK: The opener's job

  /// How long the opener's status must read as suspended, at every look, before its job is
  /// taken to have ended, where reads are ``OpenerReads/confirmed``: 5 ms. Reads that agree
  /// over 5 ms make a preempted window unlikely; they are not proof (see
  /// TimeThatMovesItself.md).
  static var openerConfirmation: UInt64 { 5_000_000 }

  /// The executor was opened for `task`, a task running a job that came to no executor, on
  /// the main queue if `onMainQueue`.
  mutating func openerIsRunning(_ task: UnsafeRawPointer, onMainQueue: Bool = false) {
    opener = task
    openerReads = onMainQueue ? .ignoredUntilMainQueuePass : .confirmed
    openerSuspendedSince = nil
  }

  /// The pass through the main queue queued as the executor opened has run: the opener's job
  /// there has ended, and a read of its status is trusted from now on. Returns the opener to
  /// watch, if someone waits for quiet.
  mutating func mainQueuePassRan() -> UnsafeRawPointer? {
    guard openerReads == .ignoredUntilMainQueuePass else { return nil }
    openerReads = .trusted
    return openerToWatch()
  }

  /// The opener's status was read at `now` (nanoseconds of uptime): `runnable` (running or
  /// queued) or not. Returns the waiters released if that ends the opener's job (see
  /// ``OpenerReads``).
  mutating func openerRead(runnable: Bool, at now: UInt64) -> [Release] {
    guard opener != nil else { return [] }
    switch openerReads {
    case .ignoredUntilMainQueuePass:
      return []
    case .trusted:
      return runnable ? [] : openerSuspended()
    case .confirmed:
      guard !runnable else {
        openerSuspendedSince = nil
        return []
      }
      guard let since = openerSuspendedSince else {
        openerSuspendedSince = now
        return []
      }
      guard now &- since >= Self.openerConfirmation else { return [] }
      return openerSuspended()
    }
  }

  /// The opener's job has ended; returns the waiters that releases.
  mutating func openerSuspended() -> [Release] {
    defer { checkInvariants() }
    guard opener != nil else { return [] }
    opener = nil
    isOpenerWatched = false
    openerSuspendedSince = nil
    return releasedWaiters()
  }

  /// The opener to watch until it suspends, if someone waits for quiet and nobody watches it
  /// yet (nobody does before the main-queue pass of an opener there).
  mutating func openerToWatch() -> UnsafeRawPointer? {
    guard let opener, openerReads != .ignoredUntilMainQueuePass, !isOpenerWatched,
      !waiters.isEmpty
    else { return nil }
    isOpenerWatched = true
    return opener
  }

  // MARK: Outside work

  /// The test says work it cannot see is in flight.
  mutating func beginOutsideWork() { outsideWork += 1 }

  /// That work is over: a waiter that respected it may be released.
  mutating func endOutsideWork() -> [Release] {
    defer { checkInvariants() }
    precondition(outsideWork > 0, "outside work ended more often than it began")
    outsideWork -= 1
    return releasedWaiters()
  }

  /// A clock, scheduler or timeline holds the executor open; false if it has closed already
  /// (its last holder let go in the meantime).
  mutating func retainLease() -> Bool {
    guard !isClosed else { return false }
    leases += 1
    return true
  }

  /// A holder lets go; the last one closes the executor, at once, so that no one can take a
  /// lease on it any more. Returns what closing needs started, or nil if it stays open.
  mutating func releaseLease() -> Wake? {
    defer { checkInvariants() }
    precondition(leases > 0, "a lease was released that was never taken")
    leases -= 1
    guard leases == 0, !isClosed else { return nil }
    return close()
  }

  /// The executor takes no more jobs; those queued still run.
  mutating func close() -> Wake {
    defer { checkInvariants() }
    isClosed = true
    return wakeIfNeeded()
  }

  // MARK: Invariants

  /// Checks, with Tempo's internal checks on, what must hold after every event: no count below zero, and a job
  /// queued only while someone will run it (a job running, whose end looks at the queue; a
  /// pump scheduled; or a driver draining, backed by its backstop).
  func checkInvariants() {
    #if TEMPO_INTERNAL_CHECKS
      precondition(head <= jobs.count, "the queue's head is past its end")
      precondition(mainJobs >= 0 && outsideJobs >= 0, "a job count is below zero")
      precondition(outsideWork >= 0 && drainers >= 0 && leases >= 0, "a count is below zero")
      precondition(
        head == jobs.count || isRunningJob || isPumpScheduled || drainers > 0,
        "a job is queued with nobody to run it")
      precondition(
        !isQuiet || waiters.allSatisfy { $0.respectsOutsideWork && outsideWork > 0 },
        "a waiter is left waiting though the test is quiet")
    #endif
  }

  // MARK: Private

  private mutating func takeFirst() -> Job {
    let job = jobs[head]
    head += 1
    if head == jobs.count {
      jobs.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 1024, head * 2 >= jobs.count {
      jobs.removeFirst(head)
      head = 0
    }
    isRunningJob = true
    return job
  }

  /// The one rule for who runs a queued job: a driver that is draining (with a backstop in case
  /// it is blocked on that job), else a pump.
  /// (Internal for `TestExecutorStateMachine+Testing.swift`.)
  mutating func wakeIfNeeded() -> Wake {
    guard head < jobs.count else { return .none }
    if drainers > 0 {
      guard !isBackstopScheduled else { return .none }
      isBackstopScheduled = true
      return .backstop
    }
    guard !isPumpScheduled else { return .none }
    isPumpScheduled = true
    return .pump
  }

  private mutating func releasedWaiters() -> [Release] {
    guard !waiters.isEmpty else { return [] }
    let quiet = isQuiet
    var released: [Release] = []
    waiters.removeAll { waiter in
      let isAnswered = quiet && (!waiter.respectsOutsideWork || outsideWork == 0)
      guard isAnswered || jobsRun >= waiter.giveUpAt else { return false }
      released.append((waiter.continuation, isAnswered))
      return true
    }
    return released
  }
}
