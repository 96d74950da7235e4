import Dispatch
import TempoClocks
import TempoCore
import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

@testable import TempoExecutor

// The backstop: an advancing action that blocks until a job it released has run still
// finishes, because the one thread that times every executor's backstop runs that job on a
// thread of its own, even with the main thread held or every thread of the shared pool blocked.

@Suite struct BackstopTests {
  /// An action runs with the executor's thread left asleep, since the advancing thread runs the
  /// jobs the action releases right after it. An action that blocks until one of those jobs has
  /// run (a task started in the action, of the test's scope) must still get it run.
  @Test func anActionThatBlocksOnAJobOfTheTestStillFinishes() async {
    await withTestExecutor {
      let ran = await runAnActionThatBlocksOnAJob(detached: false)
      #expect(ran == ["task", "action"])
    }
  }

  /// A `@MainActor` test's advance holds the main thread while its action runs: an action that
  /// blocks until a job of the test has run gets that job run by the backstop, on a system
  /// thread.
  @MainActor @Test func anActionThatBlocksTheMainThreadOnAJobStillFinishes() async {
    await withTestExecutor {
      let ran = await runAnActionThatBlocksOnAJob()
      #expect(ran == ["task", "action"])
    }
  }

  /// Several drivers blocked in their actions at once, more than the shared pool has threads,
  /// are each rescued by the one backstop thread. (Run on the pool, the backstop's pump waited
  /// for a thread the blocked drivers held: four such scopes took a second.)
  @Test func actionsBlockedInParallelScopesAllFinish() async {
    let results = await withTaskGroup(of: [String].self) { group in
      for _ in 0..<4 {
        group.addTask { await withTestExecutor { await runAnActionThatBlocksOnAJob() } }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results == Array(repeating: ["task", "action"], count: 4))
  }
}

/// Schedules on a timeline an action that starts a task (a detached one if `detached`) and
/// blocks until that task has run, advances to it, and answers what ran, in order.
private func runAnActionThatBlocksOnAJob(
  detached: Bool = true, isolation: isolated (any Actor)? = #isolation
) async -> [String] {
  let timeline = Timeline<Int, Int>(now: 0, name: "Timeline") { $0 + $1 }
  let location = TempoSupport.SourceLocation(
    fileID: #fileID, filePath: #filePath, line: #line, column: #column)
  let ran = Log<String>()
  timeline.schedule(after: 1, at: location) {
    let done = DispatchSemaphore(value: 0)
    let body: @Sendable () -> Void = {
      ran.append("task")
      done.signal()
    }
    if detached { Task.detached(operation: body) } else { Task(operation: body) }
    done.wait()
    ran.append("action")
  }
  await timeline.advance(by: 1, at: location)
  return ran.values
}

/// The backstop thread's schedule, driven directly: it holds an executor only until that
/// executor's backstop fires, even while backstops are armed without pause, so that every
/// test's executor, and the task that an executor a clock opened retains, is let go. (Fired
/// entries once kept their executors until nothing was armed, which tests run back to back
/// never allow: every executor of the process stayed, about a kilobyte per test.)
@Suite struct BackstopScheduleTests {
  final class Owner {}

  private struct Watched {
    weak var owner: Owner?
  }

  @Test func anExecutorIsLetGoWhenItsBackstopFiresThoughOthersAreArmedWithoutPause() {
    var schedule = BackstopSchedule<Owner>()
    var watched: [Watched] = []
    // One backstop armed at every tick, due five ticks later, and the thread wakes at each
    // tick: something is always armed.
    for now in UInt64(0)..<1_000 {
      let owner = Owner()
      watched.append(Watched(owner: owner))
      schedule.arm(owner, deadline: now + 5)
      let (due, next) = schedule.takeDue(at: now)
      #expect(due.count == (now >= 5 ? 1 : 0))
      #expect(next == max(now + 1, 5))
    }
    // Only the five armed last are held, in at most twice as many entries.
    #expect(watched.filter { $0.owner != nil }.count == 5)
    #expect(schedule.storedCount < 10)
    let (due, next) = schedule.takeDue(at: .max)
    #expect(due.count == 5)
    #expect(next == nil)
    #expect(schedule.storedCount == 0)
  }

  /// The thread wakes once for all the backstops due within the slack of each other, after
  /// each deadline and never more than the slack after it.
  @Test func backstopsDueCloseTogetherShareOneWake() {
    let slack = Guesses.backstopSlackNanoseconds
    let start = 7 * slack
    let deadlines = stride(from: start, to: start + slack, by: Int(slack / 40)).map { $0 }
    let wakes = Set(deadlines.map { BackstopSchedule<Owner>.wakeTime(for: $0) })
    #expect(wakes == [start + slack])
    for deadline in [0, 1, slack - 1, slack, 5_000_000, UInt64(123_456_789)] {
      let wake = BackstopSchedule<Owner>.wakeTime(for: deadline)
      #expect(wake > deadline && wake <= deadline + slack)
    }
  }

  /// Owners fire in deadline order, those due together at one wake-up.
  @Test func ownersFireInDeadlineOrder() {
    var schedule = BackstopSchedule<Owner>()
    let owners = [Owner(), Owner(), Owner()]
    for (index, owner) in owners.enumerated() { schedule.arm(owner, deadline: UInt64(index)) }
    let first = schedule.takeDue(at: 1)
    #expect(first.due.map(ObjectIdentifier.init) == owners[..<2].map(ObjectIdentifier.init))
    #expect(first.next == 2)
    let second = schedule.takeDue(at: 2)
    #expect(second.due.map(ObjectIdentifier.init) == [ObjectIdentifier(owners[2])])
    #expect(second.next == nil)
  }
}

/// The backstop's five milliseconds (``Guesses/backstopMilliseconds``) and the slack after
/// them, driven by a clock moved by hand: no real time passes.
@Suite struct BackstopTimeTests {
  /// A backstop armed fires at the end of the 2 ms slack period its 5 ms deadline falls in,
  /// and not a nanosecond before; one armed 4 ms later waits for its own deadline.
  @Test func aBackstopFiresFiveMillisecondsAfterItIsArmed() async {
    let time = ManualTime()
    let (fired, fires) = AsyncStream<ObjectIdentifier>.makeStream()
    let backstops = Backstops(time: time) { fires.yield(ObjectIdentifier($0)) }
    var schedules = time.somethingScheduled.makeAsyncIterator()
    var fireOrder = fired.makeAsyncIterator()
    let first = await Task.detached { TestExecutor() }.value
    let second = await Task.detached { TestExecutor() }.value
    let armedAt = time.nanoseconds
    let delay = UInt64(Guesses.backstopMilliseconds) * 1_000_000
    let firstWake = BackstopSchedule<TestExecutor>.wakeTime(for: armedAt + delay)
    #expect(firstWake > armedAt + delay)
    #expect(firstWake <= armedAt + delay + Guesses.backstopSlackNanoseconds)

    backstops.arm(first, milliseconds: Guesses.backstopMilliseconds)
    // The thread was idle: the arming woke it, and it now waits for the first wake.
    _ = await schedules.next()
    time.advance(byMilliseconds: 4)
    backstops.arm(second, milliseconds: Guesses.backstopMilliseconds)
    time.advance(byNanoseconds: firstWake - 1 - time.nanoseconds)
    #expect(time.scheduledCount == 1, "the backstop thread woke before its first deadline")
    time.advance(byNanoseconds: 1)
    #expect(await fireOrder.next() == ObjectIdentifier(first))

    // The thread now waits for the second's wake, 4 ms later.
    _ = await schedules.next()
    let secondWake = BackstopSchedule<TestExecutor>.wakeTime(for: armedAt + 4_000_000 + delay)
    time.advance(byNanoseconds: secondWake - 1 - time.nanoseconds)
    #expect(time.scheduledCount == 1, "the backstop thread woke before the second deadline")
    time.advance(byNanoseconds: 1)
    #expect(await fireOrder.next() == ObjectIdentifier(second))

    backstops.stop()
    first.close()
    second.close()
  }
}
