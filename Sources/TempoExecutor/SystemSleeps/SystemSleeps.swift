import Dispatch
import Synchronization
package import TempoCore
import TempoRuntimeABI
@_spi(TempoInternals) package import TempoSupport

/// A clock that takes the sleeps of the system clocks of its test (TempoClocks' `TestClock`,
/// after `controlSystemSleeps()`).
package protocol SystemSleepClock: AnyObject, Sendable {
  /// Where the clock was made, for the hang watch's reports.
  var creation: SourceLocation { get }

  /// Schedules `wake` to run once `delay` of this clock's time has passed, listed as a system
  /// sleep of `clock`, and answers its handle. Called with no lock of the executor held.
  func scheduleSystemSleep(
    after delay: Duration, clock: String, _ wake: @escaping @Sendable () -> Void
  ) -> TimelineHandle
}

/// Where a sleep of the system clocks goes when it reaches a test executor's stand-in (see
/// `TestExecutorStandIn+Scheduling.swift`): to the test clock that controls its test's system
/// sleeps, or else to real time, as the platform's executor would have taken it.
///
/// The runtime hands over a "wake" job (a task of its own, which resumes the sleeper) with the
/// sleep's deadline as an instant of `ContinuousClock` or `SuspendingClock`. The sleeper is the
/// current task. Its length is the deadline less the clock's `now` when the sleeper read it,
/// which has passed by the time the sleep arrives here (microseconds; more under load), so the
/// length is recovered by ``length(from:)``.
///
/// ```swift
/// SystemSleep.route(job, at: instant, clock: ContinuousClock())
/// ```
@available(TempoTestExecutor 1.0, *)
package enum SystemSleep {
  /// Sends `job`, the wake job of a sleep until `instant` of `clock`, where it belongs.
  static func route<C: Clock>(_ job: UnownedJob, at instant: C.Instant, clock: C) {
    let known = systemDelay(until: instant)
    let executor =
      known == nil ? nil : RunningJob.executor ?? TestRegistry.executorThatMetCurrentTask()
    if let (delay, name) = known, let executor {
      // The sleeper read the clock's `now` during the job it runs now, or the one it switched
      // from to this one (a call of a nonisolated async function switches: see
      // `TestExecutor.systemSleepWindowStart(of:)`).
      let window = TestExecutor.currentTaskPointer.flatMap(RunningJob.timeInJob(of:))
      let length = length(from: delay, window: window ?? Guesses.systemSleepWindowWithoutAStart)
      if executor.takeSystemSleep(job, after: length, clock: name) { return }
    }
    // Real time. A clock whose durations are `Duration` has its delay; any other (only code
    // that calls the executor's scheduling API itself can send one) is run at once.
    let delay = known?.delay ?? (clock.now.duration(to: instant) as? Duration) ?? .zero
    // A task of a test that sleeps in real time waits on time that will pass by itself: its
    // executor follows the sleep until its wake job has run, so that the hang watch does not
    // take the test for blocked meanwhile (``SystemSleeps/waitsInRealTime``).
    guard let executor, delay > .zero, let sleeper = TestExecutor.currentTaskPointer else {
      return runInRealTime(job, after: delay)
    }
    let followed = executor.followRealSleep(of: sleeper)
    runInRealTime(job, after: delay) { [weak executor] in
      executor?.realSleepWoke(followed)
      tempo_task_release(followed.address)
    }
  }

  /// The delay until `instant` of a system clock, with the clock's name; nil for another
  /// clock.
  private static func systemDelay<Instant: InstantProtocol>(
    until instant: Instant
  ) -> (delay: Duration, name: String)? {
    if let instant = instant as? ContinuousClock.Instant {
      return (RealTime.delay(until: instant), "ContinuousClock")
    }
    if let instant = instant as? SuspendingClock.Instant {
      return (RealTime.delay(until: instant), "SuspendingClock")
    }
    return nil
  }

  /// The length of a sleep whose deadline was `delay` away when it arrived, and which began
  /// at most `window` before (its task read the clock's `now` during the job that runs it):
  /// the length lies between `delay` and `delay + window`, and the roundest value there is
  /// taken, the one with the fewest significant digits in nanoseconds (the smallest, at a tie).
  /// Zero for a deadline reached.
  ///
  /// A sleep of `.seconds(5)` that took 2 ms to arrive (a slow machine, a sanitizer) is found
  /// exactly; so is any length that is the roundest in its window, which for a job that has
  /// run briefly before sleeping is every length written in a few digits. A length beyond
  /// 10⁹ seconds is kept to the second.
  package static func length(from delay: Duration, window: Duration) -> Duration {
    guard delay > .zero else { return .zero }
    let (seconds, attoseconds) = delay.components
    guard seconds < 1_000_000_000 else { return .seconds(seconds) }
    let low = seconds * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
    let (windowSeconds, windowAttoseconds) = max(window, .zero).components
    let span = min(windowSeconds, 1_000_000_000) * 1_000_000_000 + windowAttoseconds / 1_000_000_000
    let high = low + span
    var unit: Int64 = 1_000_000_000_000_000_000
    while unit > 1 {
      let candidate = (low + unit - 1) / unit * unit
      if candidate <= high { return .nanoseconds(candidate) }
      unit /= 10
    }
    return .nanoseconds(low)
  }

  /// Where a task suspended in one of the system sleeps resumes, learned once per process by
  /// a probe task sleeping on a task executor that holds its sleep (empty where system sleeps
  /// are not available). A task of a test found resuming at one of them, with no sleep of its
  /// own on the test's clock, sleeps in real time.
  // Invariant: addresses of code in the runtime, never written after they are learned.
  nonisolated(unsafe) static let resumePoints: [UnsafeRawPointer] = learnResumePoints()

  /// Runs `job` after `delay` of real time, on a system thread and with no task executor (a
  /// wake job run so resumes its sleeper in place, which comes back through its own executor).
  /// A delay beyond a year waits a year: the process will not live that long.
  static func runInRealTime(
    _ job: UnownedJob, after delay: Duration, then ran: (@Sendable () -> Void)? = nil
  ) {
    let year = Duration.seconds(31_536_000)
    let wait = min(max(delay, .zero), year)
    let (seconds, attoseconds) = wait.components
    let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    RealTime.after(.nanoseconds(nanoseconds), on: .global(qos: .init(job.priority))) {
      job.runSynchronously(on: TaskLineage.genericExecutor)
      ran?()
    }
  }
}

/// The system sleeps a test executor holds for the clock that controls them, and the hangs of
/// such sleeps the hang watch ended, to report when the test ends.
///
/// ```swift
/// var sleeps = SystemSleeps()
/// sleeps.clock = clock
/// sleeps.add(pending, for: sleeper)
/// let resumed = sleeps.remove(sleeper)   // woken, or cancelled
/// ```
struct SystemSleeps {
  /// A sleep waiting for its clock.
  struct Pending {
    /// The wake job: run, it resumes the sleeper (or, once the sleep was cancelled, only frees
    /// what the sleep kept).
    let wake: UnownedJob
    /// The sleeping task, retained, so that the executor can cancel it.
    let sleeper: UnsafeRawPointer
    /// The clock, kept while the sleep is pending on it (a sleeper on a test clock keeps its
    /// clock too): its pending work is listed if the test ends first.
    let clock: any SystemSleepClock
    /// The sleep as the clock and the hang watch follow it: ending it cancels the wake-up.
    let sleep: Sleeper
  }

  /// The clock that controls the test's system sleeps, if any (weak: the test owns it).
  weak var clock: (any SystemSleepClock)?
  /// The sleeps pending, by sleeper: a task sleeps once at a time.
  private(set) var pending: [TaskRef: Pending] = [:]
  /// For a task that switched from a job of its own to the next (a hop), when that job began:
  /// the start of the window in which it may have read the clock for a system sleep.
  var carriedStarts: [UnsafeRawPointer: UInt64] = [:]
  /// The hangs of system sleeps that the hang watch ended, reported when the executor closes
  /// (from the test's own task, where the report counts).
  var hangs: [HangReport] = []

  /// The tasks found in a system sleep that went to real time, reported once each.
  private var reportedReal: Set<TaskRef> = []
  /// The test's tasks whose system sleep went to real time and whose wake job has not run,
  /// with how many such sleeps each has (a cancelled one's wake job runs at its deadline all
  /// the same). Each is kept alive by the sleep's wake-up until it leaves this list.
  private var inRealTime: [TaskRef: Int] = [:]

  mutating func add(_ sleep: Pending, for sleeper: TaskRef) { pending[sleeper] = sleep }

  /// Whether `sleeper`, found suspended in a system sleep, sleeps in real time: its sleep is
  /// not one the clock holds, and it has not been reported.
  func isReal(_ sleeper: TaskRef) -> Bool {
    pending[sleeper] == nil && !reportedReal.contains(sleeper)
  }

  /// Remembers `sleepers` as reported; true if there were any.
  mutating func noteReported(_ sleepers: [TaskRef]) -> Bool {
    reportedReal.formUnion(sleepers)
    return !sleepers.isEmpty
  }

  /// What a test that controls its system sleeps is told when one of them went to real time.
  static var realSleepMessage: String {
    """
    A task of this test sleeps in real time although its clock controls the test's system \
    sleeps (controlSystemSleeps()): its Task.sleep (or sleep of ContinuousClock or \
    SuspendingClock) did not reach Tempo. The usual cause: the sleep is in an actor's method, \
    or right after a call into one, where the runtime sends it to the executor its task \
    prefers, and the task prefers none, so it goes to the system's timers. Advancing the clock \
    will not wake it. Await that code inside `await clock.controlSystemSleeps { ... }`, which \
    gives the calling task and its child tasks that preference (a task started with \
    `Task { }` there inherits none), or give the code a clock to sleep on and pass it this \
    test clock.
    """
  }

  mutating func followRealSleep(of sleeper: TaskRef) { inRealTime[sleeper, default: 0] += 1 }

  mutating func realSleepWoke(_ sleeper: TaskRef) {
    guard let count = inRealTime[sleeper] else { return }
    inRealTime[sleeper] = count > 1 ? count - 1 : nil
  }

  /// Whether a task of the test is suspended, now, in a system sleep that went to real time:
  /// its time passes by itself, so the test waits rather than being blocked. (A cancelled sleep
  /// has let its task go on, whose status then says so, though its wake job is still due.)
  /// Call with the executor's lock held, which keeps the tasks listed alive: it reads their
  /// status words and calls nothing out.
  var waitsInRealTime: Bool {
    guard !inRealTime.isEmpty else { return false }
    let points = SystemSleep.resumePoints
    return inRealTime.keys.contains { sleeper in
      !tempo_task_is_complete(sleeper.address) && !tempo_task_is_runnable(sleeper.address)
        && tempo_task_resume_function(sleeper.address).map(points.contains) == true
    }
  }

  /// Takes `sleeper`'s pending sleep, if it has one.
  mutating func remove(_ sleeper: TaskRef) -> Pending? {
    pending.isEmpty ? nil : pending.removeValue(forKey: sleeper)
  }

  /// Takes every pending sleep.
  mutating func removeAll() -> [Pending] {
    defer { pending = [:] }
    return Array(pending.values)
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// From now on, the system sleeps of this test's tasks wait for `clock`.
  package func controlSystemSleeps(on clock: any SystemSleepClock) {
    lock.withLock { systemSleeps.clock = clock }
    controlsSystemSleeps.store(true, ordering: .relaxed)
  }

  /// When the work of `task` in the job about to run began (nanoseconds of uptime): the start
  /// of the job it switched from, carried by ``accept(_:)``, else now. Zero, and no clock is
  /// read, unless a clock controls this test's system sleeps.
  func systemSleepWindowStart(of task: UnsafeRawPointer) -> UInt64 {
    guard controlsSystemSleeps.load(ordering: .relaxed) else { return 0 }
    let carried = lock.withLock {
      systemSleeps.carriedStarts.isEmpty
        ? nil : systemSleeps.carriedStarts.removeValue(forKey: task)
    }
    return carried ?? RealTime.nanoseconds
  }

  /// Takes `job`, the wake job of a system sleep of the current task, for the clock that
  /// controls this test's system sleeps, to run once `length` of its time has passed; false
  /// if no clock does (or the executor has closed).
  func takeSystemSleep(_ job: UnownedJob, after length: Duration, clock name: String) -> Bool {
    guard let current = Self.currentTaskPointer else { return false }
    let sleeper = TaskRef(current)
    let clock = lock.withLock { state.isClosed ? nil : systemSleeps.clock }
    guard let clock else { return false }
    let isCancelled = withUnsafeCurrentTask { $0?.isCancelled ?? false }
    guard length > .zero, !isCancelled else {
      // Due now (or cancelled already: the sleep ends either way), as the platform's
      // executor would run it: the test's work from here.
      if !accept(job) { TaskLineage.runOnSystemThread(job) }
      return true
    }
    let sleep = Sleeper()
    _ = sleep.install { error in
      if let ended = error as? EndedBlockedOnTime {
        self.systemSleepWasBlocked(sleeper, report: ended.report)
      } else if let ended = error as? EndedWithItsTest {
        self.systemSleepEndedWithItsTest(sleeper, ended)
      }
    }
    tempo_task_retain(current)
    let added = lock.withLock {
      guard !state.isClosed else { return false }
      systemSleeps.add(
        .init(wake: job, sleeper: current, clock: clock, sleep: sleep), for: sleeper)
      return true
    }
    guard added else {
      tempo_task_release(current)
      return false
    }
    TestSleeps.willWait()
    let handle = clock.scheduleSystemSleep(after: length, clock: name) {
      self.systemSleepIsDue(sleeper)
    }
    // Ended meanwhile (cancelled, or the executor closed), the wake-up is cancelled at once.
    sleep.hold(handle)
    // One of the sleeps the end of the test ends, if still pending then.
    handle.noteSleeper(sleep)
    TestSleeps.watchForHangs(sleep, handle: handle, clock: clock.creation)
    return true
  }

  /// `sleeper`, the current task, sleeps in real time: followed until ``realSleepWoke(_:)``.
  /// Answers it kept alive (retained) for the sleep's wake-up to let go of.
  func followRealSleep(of sleeper: UnsafeRawPointer) -> TaskRef {
    let followed = TaskRef(sleeper)
    tempo_task_retain(sleeper)
    lock.withLock { systemSleeps.followRealSleep(of: followed) }
    return followed
  }

  /// The wake job of a sleep of `sleeper` in real time has run.
  func realSleepWoke(_ sleeper: TaskRef) {
    lock.withLock { systemSleeps.realSleepWoke(sleeper) }
  }

  /// The clock reached the deadline of `sleeper`'s sleep: its wake job is this test's work.
  private func systemSleepIsDue(_ sleeper: TaskRef) {
    guard let pending = lock.withLock({ systemSleeps.remove(sleeper) }) else { return }
    pending.sleep.resume()
    if !accept(pending.wake) { TaskLineage.runOnSystemThread(pending.wake) }
    tempo_task_release(pending.sleeper)
  }

  /// A job of a sleeper arrived while its system sleep was pending: the sleep was cancelled,
  /// and the runtime resumed the sleeper without its wake job. The wake-up is cancelled and
  /// the wake job run (it only frees what the sleep kept). Called after unlocking.
  func systemSleepWasCancelled(_ pending: SystemSleeps.Pending) {
    pending.sleep.cancel()
    end(pending, cancellingItsTask: false)
  }

  /// The hang watch ended `sleeper`'s system sleep, which held the test up for good: the
  /// sleep returns early (throwing into it would mean cancelling its whole task, and the
  /// test's own task is the test framework's), and `report` is kept for the end of the test.
  private func systemSleepWasBlocked(_ sleeper: TaskRef, report: HangReport?) {
    let note = """
      (A system sleep — Task.sleep, or a sleep of ContinuousClock or SuspendingClock — \
      cannot throw CancellationError without its whole task being cancelled: it returned \
      early instead.)
      """
    let pending = lock.withLock {
      if let report { systemSleeps.hangs.append(report.adding(note)) }
      return systemSleeps.remove(sleeper)
    }
    guard let pending else { return }
    if !accept(pending.wake) { TaskLineage.runOnSystemThread(pending.wake) }
    tempo_task_release(pending.sleeper)
  }

  /// The end of the test ended `sleeper`'s system sleep, still pending: its task is cancelled,
  /// which the sleep throws as `CancellationError`, and the end of the test sees whether it
  /// finishes (see ``EndedSleeps``), as for a sleep on the clock itself.
  private func systemSleepEndedWithItsTest(_ sleeper: TaskRef, _ ended: EndedWithItsTest) {
    guard let pending = lock.withLock({ systemSleeps.remove(sleeper) }) else { return }
    ended.cancel(pending.sleeper)
    TaskLineage.runOnSystemThread(pending.wake)
    tempo_task_release(pending.sleeper)
  }

  /// The executor has closed: each system sleep still pending (listed with the clock's
  /// pending work) is cancelled, so that its sleeper throws `CancellationError` rather than
  /// waking into a later test. Then the hangs of system sleeps are reported: the executor
  /// closes as its test ends, on the test's own task.
  func endSystemSleeps() {
    let ended = lock.withLock { () -> (pending: [SystemSleeps.Pending], hangs: [HangReport])? in
      // Most tests have neither: nothing is built or walked then.
      guard !systemSleeps.pending.isEmpty || !systemSleeps.hangs.isEmpty else { return nil }
      defer { systemSleeps.hangs = [] }
      return (systemSleeps.removeAll(), systemSleeps.hangs)
    }
    guard let (pending, hangs) = ended else { return }
    for sleep in pending {
      sleep.sleep.cancel()
      end(sleep, cancellingItsTask: true)
    }
    for hang in hangs { hang.deliver() }
  }

  /// Lets go of a sleep that ended without its wake-up: cancels its task if asked (the sleep
  /// then throws), then runs the wake job, which only frees what the sleep kept.
  private func end(_ pending: SystemSleeps.Pending, cancellingItsTask: Bool) {
    if cancellingItsTask { tempo_task_cancel(pending.sleeper) }
    TaskLineage.runOnSystemThread(pending.wake)
    tempo_task_release(pending.sleeper)
  }
}
