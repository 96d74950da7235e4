// The values of a test executor's state (`TestExecutorStateMachine`), each with its own rules
// and invariants: the job queue, the counts that make quiet, the opener watch, and who runs the
// queue and who waits.

extension TestExecutorStateMachine {
  /// The jobs queued here, in the order they came: an array read from a head index up to a
  /// tail. Its slots are reused once the queue empties, so that a queue that fills and empties
  /// (every test's usual run) neither allocates nor clears memory once warm: a debug build
  /// runs every array operation unspecialized.
  ///
  /// ```swift
  /// var queue = TestExecutorStateMachine.JobQueue()
  /// queue.append(1)
  /// queue.append(2)
  /// queue.takeNext()   // 1
  /// ```
  struct JobQueue: ~Copyable {
    /// `storage[head..<tail]` is queued; the slots before `head` have been taken, and those
    /// from `tail` on are free.
    private var storage: [Job] = []
    private var head = 0
    private var tail = 0
    /// How many jobs have ever been queued.
    private(set) var appended = 0

    var isEmpty: Bool { head == tail }

    /// How many jobs are queued.
    var count: Int { tail - head }

    /// - Complexity: Amortized O(1).
    mutating func append(_ job: Job) {
      if tail < storage.count {
        storage[tail] = job
      } else {
        storage.append(job)
      }
      tail += 1
      appended += 1
    }

    /// Takes the job to run next, nil if none is queued. This is the one place where the next
    /// job is chosen, and every take of the state machine goes through it: today the first
    /// queued, first in, first out. A seeded job order (the runnable jobs taken in an order
    /// drawn from a seed, to bring out work that depends on one order) will be built on it.
    ///
    /// - Complexity: Amortized O(1): the queue starts again at the front of its array when it
    ///   empties; a queue that never empties drops its taken jobs once they are 1,024 or more
    ///   and at least half of what it holds.
    mutating func takeNext() -> Job? {
      guard head < tail else { return nil }
      let job = storage[head]
      head += 1
      if head == tail {
        head = 0
        tail = 0
      } else if head >= 1024, head * 2 >= tail {
        storage.removeFirst(head)
        tail -= head
        head = 0
      }
      return job
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(
        head <= tail && tail <= storage.count, "test executor: the queue's bounds are out of order")
      precondition(head < tail || head == 0, "test executor: an emptied queue kept its taken jobs")
      precondition(
        head < 1024 || head * 2 < tail,
        "test executor: the queue kept more taken jobs than queued ones")
    }
  }

  /// The job running here, and the counts of the test's work elsewhere: together with an empty
  /// ``JobQueue`` and the end of the opener's job (``OpenerWatch``), what makes the test quiet.
  struct QuietCounts: ~Copyable {
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
    /// Switches the running job's task went on through in that job: each counts as a job when
    /// the job finishes (so the budget, and the waiters it releases, move only at job ends).
    private(set) var switchesInRunningJob = 0
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

    /// - Parameter switches: Switches that went on in the job besides those counted here.
    mutating func jobFinished(switches: Int = 0) {
      guard isRunningJob else {
        preconditionFailure("test executor: a job finished that was not running")
      }
      isRunningJob = false
      jobsRun += 1 + switchesInRunningJob + switches
      switchesInRunningJob = 0
    }

    /// The running job's task went on in it after a switch: as much work as a job, for the
    /// job budget, counted when the job finishes.
    mutating func switchHandedOff() {
      guard isRunningJob else {
        preconditionFailure("test executor: a switch was handed off with no job running")
      }
      switchesInRunningJob += 1
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
      precondition(
        switchesInRunningJob == 0 || isRunningJob,
        "test executor: switches are counted for a job that is not running")
    }
  }

  /// Who runs the queue, and who waits for the test to go quiet: the tasks driving (waiting for
  /// quiet), those of them draining the queue on their thread, whether a pump or a backstop is
  /// scheduled, and the waiters suspended.
  struct Runners: ~Copyable {
    /// Tasks waiting for quiet: their own jobs never run here while they wait. (Usually one.)
    private(set) var drivers: [UnsafeRawPointer] = []
    /// Drivers draining the queue on their own thread now.
    private(set) var drainers = 0
    /// Whether a pump is scheduled or running, which runs the queue until it is empty.
    private(set) var isPumpScheduled = false
    /// Whether a backstop is armed, which runs the queue if a draining driver has not.
    private(set) var isBackstopScheduled = false
    /// Pump blocks of backstops that fired, queued on threads of their own, not started yet.
    private(set) var backstopPumpsQueued = 0
    /// Tasks suspended until quiet, or until their budget runs out.
    private(set) var waiters: [Waiter] = []
    /// The least `giveUpAt` of the waiters; `Int.max` if none waits.
    private var earliestGiveUp = Int.max

    func isDriver(_ task: UnsafeRawPointer) -> Bool {
      // A loop, not `contains`: a debug build runs a generic algorithm through its protocol
      // witnesses, and this is asked for every job.
      var index = 0
      while index < drivers.count {
        if drivers[index] == task { return true }
        index += 1
      }
      return false
    }

    var hasDrivers: Bool { !drivers.isEmpty }

    var hasWaiters: Bool { !waiters.isEmpty }

    /// `task` waits for quiet (again: a drive settles many times).
    mutating func beginDriving(_ task: UnsafeRawPointer) {
      // There is rarely more than one driver, and often none: the empty list is not searched
      // (a debug build searches generically).
      if drivers.isEmpty || !drivers.contains(task) { drivers.append(task) }
    }

    /// `task` no longer waits for quiet, if it did.
    mutating func endDriving(_ task: UnsafeRawPointer) {
      // Asked whenever a task rejoins, usually with no driver at all.
      guard !drivers.isEmpty, let index = drivers.firstIndex(of: task) else { return }
      drivers.remove(at: index)
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

    /// A block already running became the pump (a main-actor job's, whose task went on here).
    mutating func pumpStartedInPlace() { isPumpScheduled = true }

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

    /// A backstop that fired queued a pump block.
    mutating func backstopPumpQueued() { backstopPumpsQueued += 1 }

    mutating func backstopPumpStarted() {
      guard backstopPumpsQueued > 0 else {
        preconditionFailure("test executor: a backstop's pump started that was never queued")
      }
      backstopPumpsQueued -= 1
    }

    mutating func wait(_ waiter: Waiter) {
      waiters.append(waiter)
      earliestGiveUp = min(earliestGiveUp, waiter.giveUpAt)
    }

    /// Removes and returns the waiters answered now: quiet (with no outside work in flight, for
    /// a waiter that respects it), or out of budget at `jobsRun`.
    mutating func releaseWaiters(isQuiet: Bool, outsideWork: Int, jobsRun: Int) -> [Release] {
      guard !waiters.isEmpty else { return [] }
      // Asked at the end of every job while a test waits: answered at once when no waiter can
      // be released.
      guard isQuiet || jobsRun >= earliestGiveUp else { return [] }
      defer { earliestGiveUp = waiters.reduce(Int.max) { min($0, $1.giveUpAt) } }
      var released: [Release] = []
      waiters.removeAll { waiter in
        let isAnswered = isQuiet && (!waiter.respectsOutsideWork || outsideWork == 0)
        guard isAnswered || jobsRun >= waiter.giveUpAt else { return false }
        released.append(Release(continuation: waiter.continuation, quiet: isAnswered))
        return true
      }
      return released
    }

    /// Removes and returns every waiter, answered "not quiet" (the main queue stalled).
    mutating func releaseAllWaiters() -> [Release] {
      defer {
        waiters.removeAll()
        earliestGiveUp = .max
      }
      return waiters.map { Release(continuation: $0.continuation, quiet: false) }
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(drainers >= 0, "test executor: the count of draining drivers is below zero")
      precondition(
        earliestGiveUp == waiters.reduce(Int.max) { min($0, $1.giveUpAt) },
        "test executor: the earliest budget of the waiters is not theirs")
      precondition(
        Set(drivers).count == drivers.count, "test executor: a task is counted twice as driving")
    }
  }
}

extension TestExecutorStateMachine {
  /// The pump blocks queued on the main queue, for an executor whose pumps run there
  /// (``TestExecutor/pumpsOnMainQueue``), and whether the main queue has stopped running them.
  ///
  /// The main queue runs only while something drains it: on Apple's systems a run loop at base
  /// level. A main-actor job that blocks the main thread, or that runs a nested run loop (which
  /// does not drain the main queue from inside one of its blocks), stops every pump block behind
  /// it. When one has not started for a while (the hang watch decides,
  /// ``MainQueueWatchState``), the queue is stalled: the waiters for quiet are let go, with the
  /// stall to report, and a wait answers at once until a pump block starts again.
  ///
  /// ```swift
  /// var pumps = TestExecutorStateMachine.MainQueuePumps()
  /// pumps.blockQueued()
  /// pumps.stalled(since: pumps.started)   // true: stalled, to be reported
  /// pumps.blockStarted()                  // moving again
  /// pumps.takeReport()                    // true, once
  /// ```
  struct MainQueuePumps: ~Copyable {
    /// Pump blocks on the main queue that have not started.
    private(set) var queued = 0
    /// Pump blocks that have started on the main queue so far: any change means it moves.
    private(set) var started = 0
    /// Whether the main queue is stalled: the watch found no pump block started, and none has
    /// since.
    private(set) var isStalled = false
    /// Whether a stall is still to be reported, by the first waiter it let go: it may have
    /// ended by the time that waiter runs.
    private(set) var isReportDue = false

    mutating func blockQueued() { queued += 1 }

    /// A pump block started on the main queue: it moves again.
    mutating func blockStarted() {
      guard queued > 0 else {
        preconditionFailure("test executor: a pump block started that was never queued")
      }
      queued -= 1
      started += 1
      isStalled = false
    }

    /// The watch saw pump blocks queued and none started since `started`; answers whether that
    /// stalls the queue now (false if one has started since, none is queued, or it is stalled
    /// already).
    mutating func stalled(since started: Int) -> Bool {
      guard queued > 0, started == self.started, !isStalled else { return false }
      isStalled = true
      isReportDue = true
      return true
    }

    /// Answers whether a stall is still to be reported; from then on it is not.
    mutating func takeReport() -> Bool {
      defer { isReportDue = false }
      return isReportDue
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(
        queued >= 0 && started >= 0, "test executor: a count of main-queue pumps is below zero")
      precondition(!isStalled || queued > 0, "test executor: stalled with no pump block queued")
    }
  }
}
