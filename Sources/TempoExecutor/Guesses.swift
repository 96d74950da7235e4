import Dispatch

// Every wall-clock guess the test executor makes, named in one place, with the reason Swift's
// runtime forces it and what could replace it.
//
// A guess is a length of real time, or a count of looks a real-time period apart, after which
// the executor decides something it cannot observe. Go's bubble needs none: its runtime tells it
// when every goroutine is durably blocked. Swift's offers no such event: a task's status is a
// word to read, not a change to be told of; a yield to the global executor passes no hook; a
// system sleep arrives as a deadline, not a duration. Where a rule or an event can replace a
// guess, its entry says which; the design of the executor as a bubble removes those.
//
// Two more live in TempoCore, which knows no executor: `RunBudget.realTimeLimit`, the half
// second of real time `run()` spends on work that never ends (ten times that for the
// auto-advance driver), where a count of steps alone would do; and `Settling.rounds`, the
// twenty probe rounds through the global executor and the main actor that stand in for quiet
// where no test executor sees the test's jobs (a runtime without the hooks, or the end of an
// XCTest test whose clocks opened none).

/// The test executor's wall-clock guesses (see the comment at the top of this file).
///
/// ```swift
/// Backstops.shared.arm(self, milliseconds: Guesses.backstopMilliseconds)
/// ```
enum Guesses {
  // MARK: Running what a driver did not run

  /// How long a job queued while a driver drains waits before a thread of the executor's runs
  /// it anyway: 5 ms. A driver runs the jobs an action released on its own thread, but may stop
  /// (its action returned, its task was suspended) with jobs still queued, and nothing tells
  /// the executor so. Replaceable by a rule: run released jobs after the action returns.
  static let backstopMilliseconds = 5

  /// How late a backstop may fire, so that the backstop thread wakes once for all those due
  /// within that much of each other: 2 ms. Tests run back to back arm one each, tens of
  /// microseconds apart, and a wake for each was a thread switch per test. Goes with the
  /// backstop.
  static let backstopSlackNanoseconds: UInt64 = 2_000_000

  // MARK: The opener's job

  /// How long the status of the task that opened the executor must read as suspended, at every
  /// look, before its job is taken to have ended: 5 ms. The runtime says when a job starts,
  /// not when the task running it suspends; a task preempted between the two reads as
  /// suspended; reads that agree over 5 ms make a preempted window unlikely, not impossible.
  /// Replaceable by a rule: open executors at a scope's boundary only.
  static let openerConfirmationNanoseconds: UInt64 = 5_000_000

  /// The looks at the opener's status: the first this many microseconds after the executor
  /// opens, then at doubling intervals up to ``openerLookCapMicroseconds``.
  static let openerFirstLookMicroseconds = 20
  static let openerLookCapMicroseconds = 1_000

  /// How long an opener still running its first job is looked at before it is taken to have
  /// suspended (time may then move while it runs, as it would without a look): 1 s; 10 s for
  /// one parked in a yield, whose continuation will run. Counted as ``LookCredit`` counts.
  static let openerRunningLimitNanoseconds: UInt64 = 1_000_000_000
  static let openerParkedLimitNanoseconds: UInt64 = 10_000_000_000

  /// Whether the opener is looked at again after `waited` nanoseconds of looks, as
  /// ``LookCredit`` counts them, `isParked` in a yield or not.
  static func looksAtOpenerAgain(afterWaiting waited: UInt64, isParked: Bool) -> Bool {
    waited < openerRunningLimitNanoseconds || isParked && waited < openerParkedLimitNanoseconds
  }

  // MARK: Yields no hook sees

  /// The looks for a task of the test parked in a yield the runtime sent to the global
  /// executor, past every hook: the first this many microseconds after the test looked quiet,
  /// then doubling up to ``yieldLookCapMicroseconds``. The runtime has no event for a yield's
  /// continuation leaving the global executor's queue.
  static let yieldFirstLookMicroseconds = 20
  static let yieldLookCapMicroseconds = 5_000

  /// How long one wait for a parked task lasts before the executor stops watching a task that
  /// never came back (it may block its thread): 1 s, as ``LookCredit`` counts.
  static let yieldWaitNanoseconds: UInt64 = 1_000_000_000

  /// How long a settle waits, in all, for tasks parked in yields before it goes on without
  /// them: 5 s, as ``LookCredit`` counts.
  static let settleYieldWaitNanoseconds: UInt64 = 5_000_000_000

  /// Whether one wait for parked tasks looks again after `waited` nanoseconds of looks.
  static func looksForYieldsAgain(afterWaiting waited: UInt64) -> Bool {
    waited < yieldWaitNanoseconds
  }

  /// Whether a settle still waits for parked tasks after its waits took `waited` in all.
  static func settleWaitsForYields(afterWaiting waited: UInt64) -> Bool {
    waited < settleYieldWaitNanoseconds
  }

  /// How much of the real time between two looks counts, at most, as a multiple of the delay
  /// the look was due after (``LookCredit``): 2. A look that comes late because every thread
  /// was busy with other work does not count that wait against the test.
  static let lookCreditFactor: UInt64 = 2

  // MARK: Jobs on their way, for a clock made outside any task

  /// The looks for a task that yielded while its job was relayed by the lineage (a clock made
  /// outside any task, not yet advanced): the first this many microseconds after, then doubling
  /// up to ``lineageHoldCapMicroseconds`` (about 20 ms in all). Replaceable by a rule: start
  /// executors at a scope's boundary, and keep the lineage as an adapter.
  static let lineageFirstLookMicroseconds = 20
  static let lineageHoldCapMicroseconds = 10_240

  // MARK: Hangs

  /// The hang watch's period: it looks at every test this often, 250 ms of real time.
  static let hangLookPeriodMilliseconds = 250

  /// How many looks in a row a sleep must hold its test up, nothing moving, to be reported: 4
  /// (about a second). There is no event for "every task of the test is durably blocked".
  static let hangLooksToFire = 4

  /// How many looks beyond a sleep's a scheduler's pending work must hold its test up: 2. The
  /// sleeps of a blocked test are reported and ended first; what they release moves it on.
  static let hangWorkLooksBeyondSleeps = 2

  /// A gap from the end of one look to the start of the next longer than this many periods
  /// (the watch itself was held up, by a stopped process or a starved thread) starts every
  /// count again: 3. A look's own length is not a gap.
  static let hangGapPeriods: UInt64 = 3

  /// How many times ``hangLooksToFire`` a test waits for a main queue busy with another test's
  /// work (a main-actor job or pump block, or a main-actor job of a test that does not use
  /// Tempo) before it reports the main queue stalled: 4.
  static let mainQueueLooksBehindAnotherTest = 4

  /// How many times as many looks the main queue may stand still while the thread that drains
  /// it could run, before it is reported stalled: 10 (about ten seconds). A look counts toward
  /// the report in a second only while that thread waits in the kernel (blocked: the rule, read
  /// from the operating system, ``MainQueueActivity/drainerRuns``). A thread that could run is
  /// starved on a loaded machine, or busy with blocks that are not Tempo's, and moves on; one
  /// that spins on the main thread for ever looks the same, and is reported after this.
  static let mainQueueLooksWhileItsThreadRuns = 10

  // MARK: System sleeps

  /// The window a system sleep's length is recovered in, when the job that read the clock has
  /// no recorded start: 1 ms. The runtime hands over a deadline, not the duration asked for,
  /// and the clock was read at some point in the sleeper's job.
  static let systemSleepWindowWithoutAStart: Duration = .milliseconds(1)
}

/// Real time as a guess reads it and waits on it, handed to what keeps the guess: the system's
/// (``RealTime/system``) in production; a test hands its own, which it moves by hand, to drive
/// the guess with no real wait. Each executor (``TestExecutor/time``) and the hang watch take
/// one, and so do the backstop thread and the lineage hold.
///
/// ```swift
/// let watch = HangWatch(looksToFire: 4, periodMilliseconds: 250, time: RealTime.system)
/// ```
protocol WallTime: Sendable {
  /// Now, in nanoseconds since an origin of the clock's own. Read under its users' locks: it
  /// takes no lock of its own and calls nothing out.
  var nanoseconds: UInt64 { get }
  /// Runs `work` on `queue` once `nanoseconds` have passed.
  func after(
    nanoseconds: UInt64, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)
  /// Waits on `semaphore` until it is signalled, or until the clock reads `nanoseconds`.
  func wait(_ semaphore: DispatchSemaphore, untilNanoseconds nanoseconds: UInt64)
}

/// The one place the test executor reads real time or waits on it: the guesses above are kept
/// by these, and nothing else in TempoExecutor calls the system's clocks or timed waits.
///
/// ```swift
/// let start = RealTime.nanoseconds
/// RealTime.after(.microseconds(20), on: .global()) { look() }
/// ```
enum RealTime {
  /// The system's real time, as a ``WallTime``.
  static let system: any WallTime = SystemTime()

  private struct SystemTime: WallTime {
    var nanoseconds: UInt64 { RealTime.nanoseconds }

    func after(
      nanoseconds: UInt64, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void
    ) {
      RealTime.after(.nanoseconds(Int(clamping: nanoseconds)), on: queue, work)
    }

    func wait(_ semaphore: DispatchSemaphore, untilNanoseconds nanoseconds: UInt64) {
      _ = semaphore.wait(timeout: DispatchTime(uptimeNanoseconds: nanoseconds))
    }
  }

  /// Now, in nanoseconds of uptime.
  static var nanoseconds: UInt64 { DispatchTime.now().uptimeNanoseconds }

  /// Runs `work` on `queue` after `interval`.
  static func after(
    _ interval: DispatchTimeInterval, on queue: DispatchQueue,
    _ work: @escaping @Sendable () -> Void
  ) {
    queue.asyncAfter(deadline: .now() + interval, execute: work)
  }

  /// How far `instant` of the continuous clock is from now.
  static func delay(until instant: ContinuousClock.Instant) -> Duration {
    ContinuousClock.now.duration(to: instant)
  }

  /// How far `instant` of the suspending clock is from now.
  static func delay(until instant: SuspendingClock.Instant) -> Duration {
    SuspendingClock.now.duration(to: instant)
  }
}
