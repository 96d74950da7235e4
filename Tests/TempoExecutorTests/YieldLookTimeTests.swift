import Dispatch
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport
import Testing

@testable import TempoExecutor

/// The looks for a task parked in a yield no hook sees (``Guesses``), driven by a clock the test
/// moves by hand. The task is parked for real: its `Task.yield()` continuation is held by a task
/// executor of the test's, as the platform's global executor holds one while its threads are
/// busy, so the task reads as parked at every look until the test lets it go. No real time
/// passes.
@Suite struct YieldLookTimeTests {
  /// A settle that finds its test quiet with a task parked in an unseen yield waits for it:
  /// looks 20 µs apart, doubling to 5 ms, until a second of looks has been counted. The task
  /// still parked then stays watched (its continuation will run), and the settle waits again,
  /// five seconds of such waits in all, and then goes on.
  @Test func aParkedTaskIsWaitedForBySecondsOfLooks() async throws {
    let (delays, quiet) = try await Self.settleBesideAParkedTask { _, _, answer in
      #expect(answer == nil, "the settle went on before its last look")
    }
    #expect(quiet == true)
    #expect(
      Looks.runs(of: delays) == Array([[Looks]](repeating: Self.oneWait, count: 5).joined()))
    #expect(delays.reduce(0, +) == 5_000_500_000)
  }

  /// A job of the test between two looks ends the wait (accepted since the look before, or
  /// running at the look): a task that yields in a loop comes back through a hook after each
  /// yield, and is found parked at almost every look. The settle waits for quiet again, and its
  /// five seconds count again from there.
  @Test func aJobBetweenTwoLooksStartsTheWaitAgain() async throws {
    let (delays, _) = try await Self.settleBesideAParkedTask { looks, executor, _ in
      // Half a second of looks in, a task of the test runs once. (Started from a task of its
      // own: this one, which moves the time, stays out of the test.)
      guard looks == 107 else { return }
      await Task.detached { await TestExecutor.withCurrent(executor) { await Task {}.value } }
        .value
    }
    // The first wait ends at its 107th look, which finds the job: then five whole waits.
    let cut = Self.doublingLooks + [Looks(microseconds: 5_000, count: 99)]
    #expect(
      Looks.runs(of: delays)
        == cut + Array([[Looks]](repeating: Self.oneWait, count: 5).joined()))
  }

  /// The first looks of a wait: 20 µs doubling to 2,560 µs (5,100 µs in all).
  static let doublingLooks = [20, 40, 80, 160, 320, 640, 1_280, 2_560].map {
    Looks(microseconds: $0, count: 1)
  }

  /// One whole wait: the doubling looks, then 199 looks 5 ms apart, the last past one second.
  static let oneWait = doublingLooks + [Looks(microseconds: 5_000, count: 199)]

  /// Settles an executor opened by a task of its own (the test's task, which moves the time,
  /// is not the executor's work) beside a task parked in a yield, moving the handed time to
  /// each look as it is scheduled. `beforeLook` runs before each, with the count of looks so
  /// far, the executor, and the settle's answer if it has one. Answers the delays between
  /// the looks, in nanoseconds, and the settle's answer.
  static func settleBesideAParkedTask(
    beforeLook: (Int, TestExecutor, Bool?) async -> Void
  ) async throws -> (delays: [UInt64], quiet: Bool?) {
    try #require(YieldResumePoint.function != nil, "this runtime's yields pass the hooks")
    let time = ManualTime()
    let holder = HoldingExecutor()
    let opened = LockedBox<TestExecutor?>(nil)
    let settled = LockedBox<Bool?>(nil)
    var schedules = time.somethingScheduled.makeAsyncIterator()
    let location = TempoSupport.SourceLocation(
      fileID: #fileID, filePath: #filePath, line: #line, column: #column)
    let settling = Task.detached {
      await TestExecutor.$handedTime.withValue(time) {
        let executor = TestExecutor()
        opened.withLock { $0 = executor }
        executor.watch(holder.parkInYield(), isRetained: true)
        let quiet = await executor.settle(at: location)
        settled.withLock { $0 = quiet }
        executor.close()
        time.finishScheduling()
      }
    }
    var delays: [UInt64] = []
    while await schedules.next() != nil {
      let delay = try #require(time.nextDelay)
      delays.append(delay)
      let executor = try #require(opened.withLock { $0 })
      await beforeLook(delays.count, executor, settled.withLock { $0 })
      time.advance(byNanoseconds: delay)
    }
    await settling.value
    holder.letGo()
    return (delays, settled.withLock { $0 })
  }
}

/// Looks that came one after another the same time apart: a run of a look schedule, which a
/// failure prints short.
struct Looks: Equatable, CustomStringConvertible {
  var microseconds: UInt64
  var count: Int

  var description: String { "\(count) × \(microseconds) µs" }

  /// `delays`, in nanoseconds, as runs of equal delays.
  static func runs(of delays: [UInt64]) -> [Looks] {
    var runs: [Looks] = []
    for delay in delays {
      if let last = runs.last, last.microseconds * 1_000 == delay {
        runs[runs.count - 1].count += 1
      } else {
        runs.append(Looks(microseconds: delay / 1_000, count: 1))
      }
    }
    return runs
  }
}

/// A task executor that holds every job it is given until ``letGo()``: a task started on it
/// with `Task.yield()` stays parked in that yield, its continuation held here.
final class HoldingExecutor: TaskExecutor, @unchecked Sendable {
  // Invariant: `lock` guards `jobs`; jobs are run after unlocking.
  private let lock = Lock()
  private var jobs: [UnownedJob] = []

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    lock.withLock { jobs.append(job) }
  }

  /// Starts a task that yields once, and runs it here up to its yield: it is parked, its
  /// continuation held. Answers the task, as the runtime's job pointer, retained for the
  /// caller.
  func parkInYield() -> UnsafeRawPointer {
    let task = Task(executorPreference: self) { await Task.yield() }
    let first = lock.withLock { jobs.removeFirst() }
    let pointer = unsafeBitCast(first, to: UnsafeRawPointer.self)
    tempo_task_retain(pointer)
    first.runSynchronously(on: asUnownedTaskExecutor())
    withExtendedLifetime(task) {}
    return pointer
  }

  /// Runs what is held, and what that enqueues here, until nothing is: the parked task ends.
  func letGo() {
    while let job = lock.withLock({ jobs.isEmpty ? nil : jobs.removeFirst() }) {
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
