import Dispatch
import Synchronization
import TempoCore
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// The hang watch's real-time guesses (``Guesses``), driven by a clock the test moves: a sleep
/// that holds its test up is reported four looks, a quarter of a second apart, after the look
/// that first sees it, pending work that holds it up two looks later, and a gap in the looks
/// starts the count again. No real time passes.
@Suite struct HangWatchTimeTests {
  /// A hang watch timed by a clock the test moves (with the guesses' own period and looks),
  /// following a sleep of the test's own task on a timeline nothing advances: answers the clock
  /// and how the sleep ended, once it has.
  private func watchedBlockedSleep() -> (ManualTime, LockedBox<(any Error)?>) {
    let time = ManualTime()
    let watch = hangWatch(timedBy: time)
    return (time, watchBlockedSleep(by: watch))
  }

  /// A hang watch with the guesses' own period and looks, timed by `time`, which reads the main
  /// queue's thread as able to run if `mainQueueThreadRuns`.
  private func hangWatch(
    timedBy time: ManualTime, mainQueueThreadRuns: Bool = false
  ) -> HangWatch {
    HangWatch(
      looksToFire: Guesses.hangLooksToFire, periodMilliseconds: Guesses.hangLookPeriodMilliseconds,
      time: time, mainQueueThreadRuns: { mainQueueThreadRuns })
  }

  /// A hang watch timed by a clock the test moves, following a source whose work is pending for
  /// a test whose task is held suspended: answers the clock, the task and the source, which the
  /// caller keeps alive (the watch holds it weakly).
  private func watchedPendingWork() -> (ManualTime, SuspendedTask, PendingSource) {
    let time = ManualTime()
    let waiting = SuspendedTask()
    let source = PendingSource()
    tempo_task_retain(waiting.address)
    let watched = WatchedWork(
      source: source, role: .testTask(nil), test: waiting.address, scheduling: nil, reporter: nil)
    #expect(hangWatch(timedBy: time).watch(watched))
    return (time, waiting, source)
  }

  /// Has `watch` follow a sleep of a test's own task on a timeline nothing advances; answers how
  /// the sleep ended, once it has. `whenEnded` runs as the watch ends it, in the watch's look.
  private func watchBlockedSleep(
    by watch: HangWatch, whenEnded: @escaping @Sendable () -> Void = {}
  ) -> LockedBox<(any Error)?> {
    let ended = LockedBox<(any Error)?>(nil)
    let timeline = Timeline<Int, Int>(now: 0, name: "TestClock") { $0 + $1 }
    let sleeper = timeline.makeSleeper()
    _ = sleeper.install { error in
      ended.withLock { $0 = error }
      whenEnded()
    }
    let handle = timeline.scheduleWake(of: sleeper, after: 5, at: .unknown)
    sleeper.hold(handle)
    _ = sleeper.beginWatch(by: watch)
    watch.watch(
      sleeper, handle: handle, role: .testTask(nil), clock: .unknown, onScheduler: false)
    // The sleeper lives as long as its wake-up, which the timeline holds.
    withExtendedLifetime(timeline) {}
    return ended
  }

  @Test func aSleepThatHoldsItsTestUpIsEndedFourLooksAfterItIsFirstSeen() {
    let (time, ended) = watchedBlockedSleep()
    // The first look, at 250 ms, records the sleep; four more with nothing moving report it.
    time.advance(byMilliseconds: 1_249)
    #expect(ended.withLock { $0 } == nil, "reported before the fourth look after the first")
    time.advance(byMilliseconds: 1)
    #expect(ended.withLock { $0 } is EndedBlockedOnTime)
  }

  @Test func aGapInTheLooksStartsTheCountAgain() {
    let (time, ended) = watchedBlockedSleep()
    time.advance(byMilliseconds: 500)  // two looks, at 250 and 500 ms
    // The watch itself is held up: its next look comes a second late, at 1.5 s, more than
    // three periods after the one before, and counts again from there.
    time.holdUp(byMilliseconds: 1_000)
    time.advance(byMilliseconds: 0)
    time.advance(byMilliseconds: 500)  // 1.75 s and 2 s: five looks, but across the gap
    #expect(ended.withLock { $0 } == nil, "a look after a gap counted the looks before it")
    time.advance(byMilliseconds: 500)  // the fourth look after the one at the gap
    #expect(ended.withLock { $0 } is EndedBlockedOnTime)
  }

  /// A look that takes long, ending a test's sleeps and reporting them on a loaded machine, is
  /// not the watch held up: the test beside it counts on across it.
  @Test func aLongLookIsNoGap() {
    let time = ManualTime()
    let watch = hangWatch(timedBy: time)
    // The first test's sleep is reported at 1.25 s, and its look then takes a second.
    let first = watchBlockedSleep(by: watch) { time.holdUp(byMilliseconds: 1_000) }
    time.advance(byMilliseconds: 500)
    // The second's is first seen at 0.75 s; its looks at 1 and 1.25 s count, and so do the
    // two a period apart after the long look ended, at 2.25 s: the fourth comes at 2.75 s.
    let second = watchBlockedSleep(by: watch)
    time.advance(byMilliseconds: 2_249)
    #expect(first.withLock { $0 } is EndedBlockedOnTime)
    #expect(second.withLock { $0 } == nil, "reported before the fourth look after the first")
    time.advance(byMilliseconds: 1)
    #expect(
      second.withLock { $0 } is EndedBlockedOnTime,
      "the long look was taken for a gap, and the count started again")
  }

  /// A test's task waiting, quiet, while work is pending on a source nothing advances (a
  /// pipeline read through `.values`) is reported two looks after a sleep would be: six looks
  /// after the look that first sees it, 1.75 s on this clock. Then its task is cancelled.
  @Test func pendingWorkThatHoldsItsTestUpIsReportedTwoLooksAfterASleepWouldBe() async {
    let (time, waiting, source) = watchedPendingWork()
    let reports = countingIssues {
      time.advance(byMilliseconds: 1_749)
      #expect(!waiting.isCancelled, "reported before the sixth look after the first")
      time.advance(byMilliseconds: 1)
    }
    #expect(waiting.isCancelled, "the test's task was not cancelled six looks after the first")
    #expect(reports.count == 1)
    #expect(reports.first?.contains("1.5 seconds") == true, "\(reports)")
    // The watch holds its source weakly: kept to here, as a test keeps its scheduler.
    withExtendedLifetime(source) {}
    await waiting.end()
  }

  /// A main queue that holds an advance up, its pump block not starting, while the thread that
  /// drains it waits in the kernel (blocked) is reported at the fourth look after the watch
  /// began: a second on this clock.
  @Test func aMainQueueWhoseThreadIsBlockedIsReportedAfterASecond() {
    let time = ManualTime()
    let queue = HeldMainQueue()
    hangWatch(timedBy: time).watchMainQueue(of: queue)
    time.advance(byMilliseconds: 999)
    #expect(queue.stalls.withLock { $0 } == [], "reported before the fourth look")
    time.advance(byMilliseconds: 1)
    #expect(queue.stalls.withLock { $0 } == [0])
  }

  /// The same main queue while its thread could run (starved of a core on a loaded machine, or
  /// busy with work that is not Tempo's) is reported only at the fortieth look: ten seconds.
  @Test func aMainQueueWhoseThreadCouldRunIsReportedTenTimesLater() {
    let time = ManualTime()
    let queue = HeldMainQueue()
    hangWatch(timedBy: time, mainQueueThreadRuns: true).watchMainQueue(of: queue)
    time.advance(byMilliseconds: 9_999)
    #expect(queue.stalls.withLock { $0 } == [], "reported before the fortieth look")
    time.advance(byMilliseconds: 1)
    #expect(queue.stalls.withLock { $0 } == [0])
  }

  /// Pending work that moves (the source ran an action since the last look) holds nothing up:
  /// the count starts again from the look that sees it move.
  @Test func pendingWorkThatMovesStartsTheCountAgain() async {
    let (time, waiting, source) = watchedPendingWork()
    let reports = countingIssues {
      time.advance(byMilliseconds: 1_500)  // the first look and five more
      source.progress()
      time.advance(byMilliseconds: 1_749)  // the look that sees it move, and six more but one
      #expect(!waiting.isCancelled, "a look after the work moved counted the looks before it")
      time.advance(byMilliseconds: 1)
    }
    #expect(waiting.isCancelled)
    #expect(reports.count == 1)
    await waiting.end()
  }

}

/// A test whose pump block waits on a main queue that never runs it, while an advance waits, as
/// the hang watch reads one: records the stalls reported, by the count of blocks started.
private final class HeldMainQueue: MainQueueWatched {
  let stalls = LockedBox<[Int]>([])

  var mainQueueObservation: MainQueueObservation {
    MainQueueObservation(isWaitedFor: true, pumpBlocksQueued: 1, pumpBlocksStarted: 0)
  }

  func mainQueueStalled(since started: Int) { stalls.withLock { $0.append(started) } }
}

/// A time source with work pending that nothing advances, as the hang watch reads one: its
/// progress moves only when the test says so.
private final class PendingSource: WatchedWorkSource, @unchecked Sendable {
  // Invariant: `mark` is atomic; everything else is constant.
  private let mark = Atomic<UInt64>(0)

  var progressMark: UInt64 { mark.load(ordering: .relaxed) }
  var hasPendingWork: Bool { true }
  var isAdvancedByItself: Bool { false }
  var name: String { "TestScheduler" }
  var leftoverDescription: String? { "TestScheduler: 1 action pending" }
  var scheduledCount: UInt64 { 1 }
  var creationLine: TempoSupport.SourceLocation? { nil }
  var pendingSleeps: [PendingSleep] { [] }
  func watchStarted() {}
  func watchEnded() {}

  /// The source ran an action.
  func progress() { mark.add(1, ordering: .relaxed) }
}

/// A task suspended for certain, on a continuation only ``end()`` resumes: its jobs run on an
/// executor of its own, by hand, so that it has suspended once the job that awaits has run.
private final class SuspendedTask: TaskExecutor, @unchecked Sendable {
  // Invariant: `state` guards the jobs, the continuation and the task's address; jobs are run
  // after unlocking. The runtime holds this executor unowned: the task ends in `end()`, which
  // its caller awaits while holding it.
  private let state = LockedBox<
    (jobs: [UnownedJob], continuation: UnsafeContinuation<Void, Never>?, address: UnsafeRawPointer?)
  >(([], nil, nil))
  private var task: Task<Void, Never>?

  init() {
    task = Task(executorPreference: self) { [state] in
      let address = withUnsafeCurrentTask { unsafeBitCast($0!, to: UnsafeRawPointer.self) }
      state.withLock { $0.address = address }
      await withUnsafeContinuation { continuation in
        state.withLock { $0.continuation = continuation }
      }
    }
    runJobs()
  }

  /// The task's address (the runtime's task object), while the task is alive.
  var address: UnsafeRawPointer { state.withLock { $0.address! } }

  /// Whether the task has been cancelled.
  var isCancelled: Bool { task?.isCancelled ?? false }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    state.withLock { $0.jobs.append(job) }
  }

  /// Resumes the task and runs it to its end.
  func end() async {
    let continuation = state.withLock { $0.continuation }
    continuation?.resume()
    runJobs()
    await task?.value
  }

  private func runJobs() {
    while let job = state.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) {
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
