/// The state of one ``TestExecutor``, and every rule that changes it: a pure value with no lock
/// and no side effects. Each event returns what the executor must do afterwards (start a pump,
/// resume waiters), which it does after unlocking.
///
/// The state is five values, each with its own rules and invariants:
/// - ``JobQueue``: the jobs queued here, and the one place where the next job is chosen;
/// - ``QuietCounts``: the job running here, and the counts of the test's work elsewhere;
/// - ``OpenerWatch``: the job the opening task was running when a clock opened the executor;
/// - ``Runners``: who runs the queue (draining drivers, a pump, a backstop), and who waits for
///   quiet;
/// - ``Lifecycle``: open, with the leases held on it, or closed.
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
/// `Job` is the executor's job type, or a stand-in in tests:
///
/// ```swift
/// var machine = TestExecutorStateMachine<Int>()
/// let (accepted, wake) = machine.enqueue(1, task: task)      // true, .pump
/// let next = machine.takeForPump()                            // 1; nil would end the pump
/// let (released, taken) = machine.finishJobAndTakeForPump()  // waiters to resume, nil
/// ```
struct TestExecutorStateMachine<Job> {
  struct Waiter {
    let continuation: UnsafeContinuation<Bool, Never>
    /// The value of `jobsRun` at which the waiter gives up.
    let giveUpAt: Int
    /// Whether quiet also means no outside work in flight (see ``QuietCounts/outsideWork``): an
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
  /// See ``TestExecutor/includesMainQueueBlocks``.
  var includesMainQueueBlocks = false

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

  /// Whether a task is waiting for quiet: an advance of the test is under way.
  var hasDrivers: Bool { runners.hasDrivers }

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
  /// will look at the queue when it finishes), or nothing is queued.
  mutating func takeForPump() -> Job? {
    defer { checkInvariants() }
    return nextForPump()
  }

  /// The backstop fired; answers whether it must run the queue like a pump: a job is queued
  /// and none is running.
  mutating func backstopFired() -> Bool {
    defer { checkInvariants() }
    runners.backstopFired()
    return !jobs.isEmpty && !counts.isRunningJob
  }

  /// The running job of a driver has finished, and the driver takes the next
  /// (``takeForDriver(giveUpAt:)``) in the same step: who runs the rest is decided after the
  /// next job is taken.
  mutating func finishJobAndTakeForDriver(
    giveUpAt: Int
  ) -> (released: [Release], wake: Wake, next: Job?) {
    defer { checkInvariants() }
    let released = finishRunning()
    let next = nextForDriver(giveUpAt: giveUpAt)
    return (released, wakeIfNeeded(), next)
  }

  /// The running job of a pump has finished, and the pump takes the next (``takeForPump()``)
  /// in the same step.
  mutating func finishJobAndTakeForPump() -> (
    released: [Release], next: Job?
  ) {
    defer { checkInvariants() }
    let released = finishRunning()
    return (released, nextForPump())
  }

  /// The running job of a pump has finished, and so has the pump's turn; answers the waiters
  /// it releases, and whether the pump goes on in a next turn (a job is still queued: the pump
  /// stays scheduled for it, whichever pump cleared the flag meanwhile).
  mutating func finishJobAndEndTurn() -> (released: [Release], goesOn: Bool) {
    defer { checkInvariants() }
    let released = finishRunning()
    return (released, runners.turnEnded(jobsQueued: !jobs.isEmpty))
  }

  /// The running job is done: counts it, and returns the waiters that releases. A step of the
  /// events that finish a job, which check the invariants.
  /// (Internal for `TestExecutorStateMachine+Testing.swift`.)
  mutating func finishRunning() -> [Release] {
    counts.jobFinished()
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
  /// the budget is spent, nil if neither yet.
  func quietAnswer(giveUpAt: Int, respectingOutsideWork: Bool = false) -> Bool? {
    if isQuiet, !respectingOutsideWork || counts.outsideWork == 0 { return true }
    if counts.jobsRun >= giveUpAt { return false }
    return nil
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
  }

  /// The pass through the main queue queued as the executor opened has run: the opener's job
  /// there has ended, and a read of its status is trusted from now on. Returns the opener to
  /// watch, if someone waits for quiet.
  mutating func mainQueuePassRan() -> UnsafeRawPointer? {
    defer { checkInvariants() }
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
    return runners.wakeForQueuedJob()
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

// MARK: - The values of the state

extension TestExecutorStateMachine {
  /// The jobs queued here, in the order they came: an array read from a head index, compacted
  /// as it is taken from.
  ///
  /// ```swift
  /// var queue = TestExecutorStateMachine<Int>.JobQueue()
  /// queue.append(1)
  /// queue.append(2)
  /// queue.takeNext()   // 1
  /// ```
  struct JobQueue {
    /// `storage[head...]` is queued; the jobs before `head` have been taken.
    private var storage: [Job] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }

    /// How many jobs are queued.
    var count: Int { storage.count - head }

    /// - Complexity: Amortized O(1).
    mutating func append(_ job: Job) {
      storage.append(job)
    }

    /// Takes the job to run next, nil if none is queued. This is the one place where the next
    /// job is chosen, and every take of the state machine goes through it: today the first
    /// queued, first in, first out. A seeded job order (the runnable jobs taken in an order
    /// drawn from a seed, to bring out work that depends on one order) will be built on it.
    ///
    /// - Complexity: Amortized O(1): the taken jobs are dropped when the queue empties, or
    ///   once they are 1,024 or more and at least half of the array.
    mutating func takeNext() -> Job? {
      guard head < storage.count else { return nil }
      let job = storage[head]
      head += 1
      if head == storage.count {
        storage.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 1024, head * 2 >= storage.count {
        storage.removeFirst(head)
        head = 0
      }
      return job
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(head <= storage.count, "test executor: the queue's head is past its end")
      precondition(
        head < storage.count || head == 0, "test executor: an emptied queue kept its taken jobs")
      precondition(
        head < 1024 || head * 2 < storage.count,
        "test executor: the queue kept more taken jobs than queued ones")
    }
  }

  /// The job running here, and the counts of the test's work elsewhere: together with an empty
  /// ``JobQueue`` and the end of the opener's job (``OpenerWatch``), what makes the test quiet.
  struct QuietCounts {
    private(set) var isRunningJob = false
    /// Main-actor jobs of this test queued or running on the main queue.
    private(set) var mainJobs = 0
    /// Jobs of this test queued or running outside it: sent out by tasks it adopted before it
    /// opened (``TaskLineage``).
    private(set) var outsideJobs = 0
    /// Work outside the test's sight that the test said is in flight (`withOutsideWork`): time
    /// does not move by itself, and no hang is reported, while it is. Only a waiter that
    /// respects it waits for it (``Waiter/respectsOutsideWork``).
    private(set) var outsideWork = 0
    /// Jobs run, here and this test's on the main queue; the measure of the job budget.
    private(set) var jobsRun = 0
    /// Jobs accepted so far, here or for the main queue.
    private(set) var accepted = 0

    /// No job running here, and none of the test's main-actor or outside jobs in flight.
    var isQuiet: Bool { !isRunningJob && mainJobs == 0 && outsideJobs == 0 }

    mutating func jobAccepted() { accepted += 1 }

    mutating func jobStarted() {
      guard !isRunningJob else {
        preconditionFailure("test executor: a job started while another was running")
      }
      isRunningJob = true
    }

    mutating func jobFinished() {
      guard isRunningJob else {
        preconditionFailure("test executor: a job finished that was not running")
      }
      isRunningJob = false
      jobsRun += 1
    }

    mutating func mainJobQueued() {
      mainJobs += 1
      accepted += 1
    }

    mutating func mainJobFinished() {
      guard mainJobs > 0 else {
        preconditionFailure("test executor: a main-actor job finished that was never counted")
      }
      mainJobs -= 1
      jobsRun += 1
    }

    /// A main-actor job that is running stops counting, without having run.
    mutating func uncountMainJob() {
      guard mainJobs > 0 else {
        preconditionFailure("test executor: a main-actor job was uncounted that was never counted")
      }
      mainJobs -= 1
    }

    mutating func addOutsideJobs(_ count: Int) {
      guard count >= 0 else {
        preconditionFailure("test executor: a negative count of outside jobs was added")
      }
      outsideJobs += count
    }

    mutating func outsideJobFinished() {
      guard outsideJobs > 0 else {
        preconditionFailure("test executor: an outside job finished that was never counted")
      }
      outsideJobs -= 1
      jobsRun += 1
    }

    mutating func beginOutsideWork() { outsideWork += 1 }

    mutating func endOutsideWork() {
      guard outsideWork > 0 else {
        preconditionFailure("test executor: outside work ended more often than it began")
      }
      outsideWork -= 1
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(
        mainJobs >= 0 && outsideJobs >= 0 && outsideWork >= 0,
        "test executor: a count of work in flight is below zero")
      precondition(jobsRun >= 0 && accepted >= 0, "test executor: a count of jobs is below zero")
    }
  }

  /// The task a clock opened the executor for, while the job it was running then, or where that
  /// job led it without coming here, may still run: that job came to no executor, yet it is
  /// the test's work, and may start more (the second child of two `async let`s, after the
  /// first has slept), or leave for an actor whose job no executor takes (a job of the default
  /// main executor gives the hooks no task to go by). It is known to have ended (``end()``)
  /// when a job of the task arrives here, when the task begins to wait for quiet itself, or
  /// when its status reads as suspended (``read(runnable:at:)``, trusted as ``Reads`` says).
  struct OpenerWatch {
    /// How far a read of the opener's status is trusted. A task marks itself suspended before it
    /// publishes itself as waiting (on a task's result, a continuation, a group), and marks
    /// itself running again, and goes on in the same job, if what it waits for has completed in
    /// between: one read of "suspended" may be that window, stretched by the thread being
    /// preempted in it.
    enum Reads: Equatable {
      /// The opener's job runs on the main queue, and the pass through the queue queued as the
      /// executor opened has not run: that job is still running, whatever a read says.
      case ignoredUntilMainQueuePass
      /// Only reads that say "suspended" for ``OpenerWatch/confirmation`` end the job: the
      /// opener's job runs elsewhere, and nothing else tells when it ends.
      case confirmed
      /// One read that says "suspended" ends it: the job the executor opened in is over, and a
      /// read only follows where it led (an actor no executor took).
      case trusted
    }

    /// How long the opener's status must read as suspended, at every look, before its job is
    /// taken to have ended, where reads are ``Reads/confirmed``: 5 ms. Reads that agree over
    /// 5 ms make a preempted window unlikely; they are not proof (see TimeThatMovesItself.md).
    static var confirmation: UInt64 { 5_000_000 }

    /// The opening task, while its job may still run; nil once it has ended, or if the
    /// executor was not opened for a running task.
    private(set) var opener: UnsafeRawPointer?
    /// How far a read of the opener's status is trusted.
    private(set) var reads = Reads.trusted
    /// Whether someone looks at the opener's status until it suspends.
    private(set) var isWatched = false
    /// When the opener's status first read as suspended with no read since saying otherwise, in
    /// nanoseconds of uptime.
    private(set) var suspendedSince: UInt64?

    /// The executor was opened for `task`, which is running a job, on the main queue if
    /// `onMainQueue`.
    mutating func start(_ task: UnsafeRawPointer, onMainQueue: Bool) {
      guard opener == nil else {
        preconditionFailure("test executor: opened for a running task while another one ran")
      }
      opener = task
      reads = onMainQueue ? .ignoredUntilMainQueuePass : .confirmed
      isWatched = false
      suspendedSince = nil
    }

    /// A job of `task` came to the executor, here or for the main queue: if `task` is the
    /// opener, the job it was running has ended. (That releases no waiter: the job that came is
    /// the test's work.)
    mutating func jobArrived(of task: UnsafeRawPointer) {
      if task == opener { _ = end() }
    }

    /// The opener's job has ended; false if it had already (or there was none).
    mutating func end() -> Bool {
      guard opener != nil else { return false }
      opener = nil
      isWatched = false
      suspendedSince = nil
      return true
    }

    /// The pass through the main queue has run; false if reads were not waiting for it.
    mutating func mainQueuePassRan() -> Bool {
      guard reads == .ignoredUntilMainQueuePass else { return false }
      reads = .trusted
      return true
    }

    /// The opener's status read `runnable` (running or queued) or not at `now`; answers whether
    /// that tells its job has ended, which the caller then ends (``end()``).
    mutating func read(runnable: Bool, at now: UInt64) -> Bool {
      guard opener != nil else { return false }
      switch reads {
      case .ignoredUntilMainQueuePass:
        return false
      case .trusted:
        return !runnable
      case .confirmed:
        guard !runnable else {
          suspendedSince = nil
          return false
        }
        guard let since = suspendedSince else {
          suspendedSince = now
          return false
        }
        return now &- since >= Self.confirmation
      }
    }

    /// The opener to watch, if `waited` (someone waits for quiet), its reads count, and nobody
    /// watches it yet; from then on someone does.
    mutating func watch(whileWaitedFor waited: Bool) -> UnsafeRawPointer? {
      guard let opener, reads != .ignoredUntilMainQueuePass, !isWatched, waited else {
        return nil
      }
      isWatched = true
      return opener
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(
        opener != nil || (!isWatched && suspendedSince == nil),
        "test executor: the opener is watched after its job ended")
      precondition(
        !isWatched || reads != .ignoredUntilMainQueuePass,
        "test executor: the opener is watched before the main queue's pass")
      precondition(
        suspendedSince == nil || reads == .confirmed,
        "test executor: a suspension of the opener is timed where one read is enough")
    }
  }

  /// Who runs the queue, and who waits for the test to go quiet: the tasks driving (waiting for
  /// quiet), those of them draining the queue on their thread, whether a pump or a backstop is
  /// scheduled, and the waiters suspended.
  struct Runners {
    /// Tasks waiting for quiet: their own jobs never run here while they wait. (Usually one.)
    private(set) var drivers: [UnsafeRawPointer] = []
    /// Drivers draining the queue on their own thread now.
    private(set) var drainers = 0
    /// Whether a pump is scheduled or running, which runs the queue until it is empty.
    private(set) var isPumpScheduled = false
    /// Whether a backstop is armed, which runs the queue if a draining driver has not.
    private(set) var isBackstopScheduled = false
    /// Tasks suspended until quiet, or until their budget runs out.
    private(set) var waiters: [Waiter] = []

    func isDriver(_ task: UnsafeRawPointer) -> Bool { drivers.contains(task) }

    var hasDrivers: Bool { !drivers.isEmpty }

    var hasWaiters: Bool { !waiters.isEmpty }

    /// `task` waits for quiet (again: a drive settles many times).
    mutating func beginDriving(_ task: UnsafeRawPointer) {
      if !drivers.contains(task) { drivers.append(task) }
    }

    /// `task` no longer waits for quiet, if it did.
    mutating func endDriving(_ task: UnsafeRawPointer) {
      if let index = drivers.firstIndex(of: task) { drivers.remove(at: index) }
    }

    mutating func beginDraining() { drainers += 1 }

    mutating func endDraining() {
      guard drainers > 0 else {
        preconditionFailure("test executor: a driver stopped draining that never began")
      }
      drainers -= 1
    }

    /// Who runs a job that is queued: a driver that is draining (with a backstop in case it is
    /// blocked on that job), else a pump; `.none` if the one needed is scheduled already.
    mutating func wakeForQueuedJob() -> Wake {
      if drainers > 0 {
        guard !isBackstopScheduled else { return .none }
        isBackstopScheduled = true
        return .backstop
      }
      guard !isPumpScheduled else { return .none }
      isPumpScheduled = true
      return .pump
    }

    /// A pump found nothing to take. (A backstop's pump was never scheduled: the flag may be
    /// clear already.)
    mutating func pumpEnded() { isPumpScheduled = false }

    /// A pump's turn has ended: it stays scheduled, for its next turn, if jobs are queued.
    /// Answers whether it goes on.
    mutating func turnEnded(jobsQueued: Bool) -> Bool {
      isPumpScheduled = jobsQueued
      return jobsQueued
    }

    mutating func backstopFired() {
      guard isBackstopScheduled else {
        preconditionFailure("test executor: a backstop fired that was never armed")
      }
      isBackstopScheduled = false
    }

    mutating func wait(_ waiter: Waiter) { waiters.append(waiter) }

    /// Removes and returns the waiters answered now: quiet (with no outside work in flight, for
    /// a waiter that respects it), or out of budget at `jobsRun`.
    mutating func releaseWaiters(isQuiet: Bool, outsideWork: Int, jobsRun: Int) -> [Release] {
      guard !waiters.isEmpty else { return [] }
      var released: [Release] = []
      waiters.removeAll { waiter in
        let isAnswered = isQuiet && (!waiter.respectsOutsideWork || outsideWork == 0)
        guard isAnswered || jobsRun >= waiter.giveUpAt else { return false }
        released.append((waiter.continuation, isAnswered))
        return true
      }
      return released
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(drainers >= 0, "test executor: the count of draining drivers is below zero")
      precondition(
        Set(drivers).count == drivers.count, "test executor: a task is counted twice as driving")
    }
  }
}
