import Foundation
import TempoClocks
import TempoExecutor
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import Testing
import XCTest

// A test that awaits a sleep nobody advances is reported and let go, instead of hanging: with or
// without a scope, under Swift Testing and XCTest. These tests wait for the hang watch, about a
// second of real time each, since that is what they check: that the test ends, with one report
// from the watch. How soon the watch reports (four looks 250 ms apart, and the rule for a gap
// between looks) is specified on a clock moved by hand, in `HangWatchTimeTests`. A bound of real
// time here would only measure the machine's load: beside the whole suite on two cores, every
// test starts at once and the system's threads are busy with the suite's synchronous tests for
// half a minute, so a test ends long after its watch reported on time (99 s was seen once, with
// a sanitizer build beside the suite).

@Suite struct HangReportTests {
  @Test func aSleepOfTheTestsOwnTaskIsReportedAndEnded() async {
    let clock = TestClock()
    var thrown: (any Error)?
    let issues = await countingIssues {
      do {
        try await clock.sleep(for: .seconds(5))
      } catch {
        thrown = error
      }
    }
    #expect(thrown is CancellationError)
    #expect(issues.count == 1)
    let report = issues.first ?? ""
    #expect(report.contains("The test is blocked on time"))
    #expect(report.contains("- due at 5.0 seconds on TestClock (its time is 0.0 seconds)"))
    #expect(report.contains("clock.automaticallyAdvances = true"))
    #expect(clock.now.offset == .zero)  // ended, not advanced
  }

  /// A sleep on a test scheduler is followed as one on a test clock is, also through
  /// `AnyScheduler`, whose repeating `schedule` hands back the test scheduler's `Cancellable`.
  @Test(arguments: [false, true])
  func aSchedulerSleepOfTheTestsOwnTaskIsReportedAndEnded(erased: Bool) async {
    let scheduler = DispatchQueue.test
    var thrown: (any Error)?
    let issues = await countingIssues {
      do {
        if erased {
          try await scheduler.eraseToAnyScheduler().sleep(for: .seconds(5))
        } else {
          try await scheduler.sleep(for: .seconds(5))
        }
      } catch {
        thrown = error
      }
    }
    #expect(thrown is CancellationError)
    #expect(issues.count == 1)
    let report = issues.first ?? ""
    #expect(report.contains("The test is blocked on time"))
    #expect(report.contains("TestScheduler"))
    #expect(report.contains("`await scheduler.advance(by:)`"))
    #expect(scheduler.pendingWorkCount == 0)  // the wake-up is cancelled with the sleep
    #expect(scheduler.now == DispatchQueue.test.now)  // ended, not advanced
  }

  /// Auto-advance turned off right after it moved time: its driver, still letting the woken
  /// task go quiet when the setter returns, takes no further step, so a sleep awaited afterwards
  /// is a hang like any other: reported, ended with `CancellationError`, time not moved.
  @Test(arguments: AutoAdvancingSource.allCases)
  func aSleepAfterAutoAdvanceWasTurnedOffIsReportedAndEnded(source: AutoAdvancingSource) async {
    let time = source.make()
    time.setAutomaticallyAdvances(true)
    try? await time.sleep(seconds: 1)  // the driver moves time to 1 s
    #expect(time.elapsed == .seconds(1))
    time.setAutomaticallyAdvances(false)
    var thrown: (any Error)?
    let issues = await countingIssues {
      do {
        try await time.sleep(seconds: 1)
      } catch {
        thrown = error
      }
    }
    #expect(thrown is CancellationError)
    #expect(issues.count == 1)
    #expect(issues.first?.contains("The test is blocked on time") == true)
    #expect(time.elapsed == .seconds(1))  // ended, not advanced
  }

  @Test(.testExecutor) func aSleepOfTheTestIsReportedAtTheTestInsideATestExecutorTest()
    async throws
  {
    let clock = TestClock()
    let declaration = try #require(Test.current).sourceLocation
    let reported = Log<Testing.Issue>()
    // The trait reports through Swift Testing itself, at the test's declaration.
    await withKnownIssue {
      let model = Task { try await clock.sleep(for: .seconds(3)) }
      await clock.advance(by: .seconds(3))  // the model's sleep returns
      _ = await model.result
      await #expect(throws: CancellationError.self) {
        try await clock.sleep(for: .seconds(4))  // nobody advances this one
      }
    } matching: { issue in
      reported.append(issue)
      return true
    }
    let issues = reported.values
    #expect(issues.count == 1)
    #expect(String(describing: issues.first).contains("- due at 7.0 seconds on TestClock"))
    #expect(issues.first?.sourceLocation == declaration)
  }

  @Test func aTaskTheTestStartedIsWatchedAsAMemberWithoutAScope() async {
    // Without a scope, a task the test started is watched while the test's own task lives
    // (HangsWithoutAScopeTests).
    let clock = TestClock()
    let role = await Task { TestExecutor.roleOfCurrentSleeper() }.value
    if case .testMember? = role {
    } else {
      Issue.record("a member's sleep is not watched: \(String(describing: role))")
    }
    if case .testTask(let executor)? = TestExecutor.roleOfCurrentSleeper() {
      #expect(executor != nil)
    } else {
      Issue.record("the test's own task is watched")
    }
    _ = clock
  }

  @Test func everyTaskOfAScopeIsWatchedWhileItsBodyRuns() async {
    var executor: TestExecutor?
    await withTestExecutor {
      let clock = TestClock()
      executor = TestExecutor.current
      guard case .scoped? = TestExecutor.roleOfCurrentSleeper() else {
        Issue.record("the scope's body is watched")
        return
      }
      let unstructured = await Task { TestExecutor.roleOfCurrentSleeper() }.value
      let child = await withTaskGroup(of: SleeperRole?.self) { group in
        group.addTask { TestExecutor.roleOfCurrentSleeper() }
        return await group.next() ?? nil
      }
      for role in [unstructured, child] {
        guard case .scopeMember(let member)? = role, member === executor else {
          Issue.record("another task of the scope is watched: \(String(describing: role))")
          continue
        }
      }
      _ = clock
    }
    #expect(executor?.activity.isRunningTest == false)
  }

  /// A member's sleep holds the test up only while the body's task waits: a body that runs (or
  /// is queued to run) may be busy with work the executor cannot see.
  @Test func theBodysTaskReadsAsWaitingOnlyWhileItIsSuspended() async {
    await withTestExecutor {
      let executor = TestExecutor.current
      #expect(executor?.activity.testTaskIsWaiting == false, "the body runs now")
      // Reported by `waitUntil` if the body, suspended in `await member.value`, never reads
      // as waiting.
      let member = Task { await waitUntil { executor?.activity.testTaskIsWaiting == true } }
      await member.value
      #expect(executor?.activity.testTaskIsWaiting == false)
    }
  }

  /// The body awaits a task whose sleep nobody advances: reported at the scope, and the sleep
  /// ended, whether the task is unstructured or a child of a group.
  @Test(arguments: [false, true])
  func aSleepOfAnotherTaskOfAScopeIsReportedWhileTheBodyWaits(inGroup: Bool) async {
    var thrown: (any Error)?
    let issues = await countingIssues {
      await withTestExecutor {
        let clock = TestClock()
        let model: @Sendable () async throws -> Void = {
          try await clock.sleep(for: .seconds(1))
          try await clock.sleep(for: .seconds(5))  // nobody advances this one
        }
        await clock.advance(by: .zero)
        let outcome: Result<Void, any Error>
        if inGroup {
          outcome = await withTaskGroup(of: Result<Void, any Error>.self) { group in
            group.addTask {
              do {
                try await model()
                return .success(())
              } catch {
                return .failure(error)
              }
            }
            group.addTask {
              await clock.advance(by: .seconds(1))
              return .success(())
            }
            var first: Result<Void, any Error> = .success(())
            for await result in group { if case .failure = result { first = result } }
            return first
          }
        } else {
          let task = Task { try await model() }
          await clock.advance(by: .seconds(1))
          outcome = await task.result
        }
        if case .failure(let error) = outcome { thrown = error }
        #expect(clock.now.offset == .seconds(1))  // ended, not advanced
      }
    }
    #expect(thrown is CancellationError)
    #expect(issues.count == 1)
    let report = issues.first ?? ""
    #expect(report.contains("The test is blocked on time"))
    #expect(report.contains("- due at 6.0 seconds on TestClock"))
  }

  /// A body that only yields (a loop waiting for a state) runs on the scope's executor from its
  /// first job: each of its yields is seen, so it never looks quiet.
  @Test(arguments: [false, true])
  func aScopesBodyThatOnlyYieldsIsSeen(onMainActor: Bool) async {
    let seen: (Int, Int)? =
      if onMainActor {
        await withTestExecutor { @MainActor in await yields() }
      } else {
        await withTestExecutor { await yields() }
      }
    let (before, after) = try! #require(seen)
    #expect(after >= before + 10)

    func yields() async -> (Int, Int)? {
      guard let executor = TestExecutor.current else { return nil }
      let before = executor.activity.accepted
      for _ in 0..<10 { await Task.yield() }
      return (before, executor.activity.accepted)
    }
  }

  @Test func outsideWorkIsSeenByTheWatchWhileItRuns() async {
    await withTestExecutor {
      let executor = TestExecutor.current
      #expect(executor?.activity.waitsOnOutsideWork == false)
      await withOutsideWork {
        #expect(executor?.activity.waitsOnOutsideWork == true)
      }
      #expect(executor?.activity.waitsOnOutsideWork == false)
    }
  }
}

/// The same under XCTest: a property clock (made outside any task) whose sleep holds up the
/// test method's own task, without a scope and in one.
final class HangReportXCTests: XCTestCase {
  private let clock = TestClock()
  private let scheduler = DispatchQueue.test
  private let failures = Log<String>()

  // Failures are kept, not recorded: these tests expect them.
  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
    expected: Bool
  ) {
    failures.append(description)
  }

  /// Expects one hang report, containing `line`.
  private func assertOneReport(
    containing line: String, file: StaticString = #filePath, lineNumber: UInt = #line
  ) {
    let failures = failures.values
    XCTAssertEqual(failures.count, 1, file: file, line: lineNumber)
    XCTAssertTrue(failures.first?.contains(line) == true, file: file, line: lineNumber)
  }

  /// Starts a task that runs `sleep`, awaits it as the test method, and expects the sleep to
  /// have been ended, with one report containing `line`.
  private func assertAwaitedSleepIsReportedAndEnded(
    containing line: String, file: StaticString = #filePath, lineNumber: UInt = #line,
    _ sleep: @escaping @Sendable () async throws -> Void
  ) async {
    let model = Task { try await sleep() }
    if case .success = await model.result {
      XCTFail("the sleep was not ended", file: file, line: lineNumber)
    }
    assertOneReport(containing: line, file: file, lineNumber: lineNumber)
  }

  func testASleepOfTheTestMethodIsReportedAndEnded() async {
    var thrown: (any Error)?
    do {
      try await clock.sleep(for: .seconds(5))
    } catch {
      thrown = error
    }
    let failures = failures.values
    XCTAssertTrue(thrown is CancellationError)
    XCTAssertEqual(failures.count, 1)
    XCTAssertTrue(failures.first?.contains("The test is blocked on time") == true)
    XCTAssertTrue(failures.first?.contains("- due at 5.0 seconds on TestClock") == true)
  }

  func testASchedulerSleepOfTheTestMethodIsReportedAndEnded() async {
    await XCTAssertThrowsErrorAsync { try await self.scheduler.sleep(for: .seconds(3)) }
    let failures = failures.values
    XCTAssertEqual(failures.count, 1)
    XCTAssertTrue(failures.first?.contains("The test is blocked on time") == true)
    XCTAssertTrue(failures.first?.contains("TestScheduler") == true)
  }

  func testASleepOfATaskTheScopeAwaitsIsReportedAndEnded() async {
    let clock = clock
    await withTestExecutor {
      let model = Task { try await clock.sleep(for: .seconds(4)) }
      if case .success = await model.result { XCTFail("the sleep was not ended") }
    }
    assertOneReport(containing: "- due at 4.0 seconds on TestClock")
  }

  /// No scope: a task the test method started sleeps on a clock made in the method.
  func testASleepOfATaskTheMethodAwaitsIsReportedAndEnded() async {
    let clock = TestClock()
    await assertAwaitedSleepIsReportedAndEnded(containing: "- due at 4.0 seconds on TestClock") {
      try await clock.sleep(for: .seconds(4))
    }
  }

  /// No scope: the property clock, once an advance has opened its executor for the method.
  func testASleepOfATaskAwaitedAfterAnAdvanceIsReportedAndEnded() async {
    let clock = clock
    await clock.advance(by: .seconds(1))
    await assertAwaitedSleepIsReportedAndEnded(containing: "- due at 5.0 seconds on TestClock") {
      try await clock.sleep(for: .seconds(4))
    }
  }

  /// No scope and no advance yet: the property clock has no executor, and the test method's
  /// own task is known from the lineage only.
  func testASleepOfATaskTheMethodAwaitsBeforeAnyAdvanceIsReportedAndEnded() async {
    let clock = clock
    await assertAwaitedSleepIsReportedAndEnded(containing: "- due at 4.0 seconds on TestClock") {
      try await clock.sleep(for: .seconds(4))
    }
  }

  /// The same for a child of a task group the method waits on.
  func testASleepingChildOfATaskGroupBeforeAnyAdvanceIsReportedAndEnded() async {
    let clock = clock
    let ended = await withTaskGroup(of: Bool.self) { group in
      group.addTask { (try? await clock.sleep(for: .seconds(3))) == nil }
      return await group.next() ?? false
    }
    XCTAssertTrue(ended, "the sleep was not ended")
    assertOneReport(containing: "- due at 3.0 seconds on TestClock")
  }

  /// The same for a sleep on the property scheduler.
  func testASchedulerSleepOfATaskTheMethodAwaitsBeforeAnyAdvanceIsReportedAndEnded() async {
    let scheduler = scheduler
    await assertAwaitedSleepIsReportedAndEnded(containing: "TestScheduler") {
      try await scheduler.sleep(for: .seconds(2))
    }
  }

  /// No scope and no advance: the test method reads a pipeline that waits for the property
  /// scheduler, which has no executor yet.
  func testAPipelineTheMethodReadsBeforeAnyAdvanceIsReportedAndEnded() async {
    var received: [Int] = []
    for await value in Just(1).delay(for: .seconds(2), scheduler: scheduler).values {
      received.append(value)
    }
    XCTAssertEqual(received, [])
    assertOneReport(containing: "TestScheduler (DispatchQueue.test) has 2 pending")
  }

  /// The same, read by a task the method awaits.
  func testAPipelineATaskOfTheMethodReadsIsReportedAndEnded() async {
    let scheduler = scheduler
    let task = Task {
      var received: [Int] = []
      for await value in Just(1).delay(for: .seconds(2), scheduler: scheduler).values {
        received.append(value)
      }
      return received
    }
    let received = await task.value
    XCTAssertEqual(received, [])
    assertOneReport(containing: "TestScheduler (DispatchQueue.test) has 2 pending")
  }

  func testASleepInAScopeIsReportedAndEnded() async {
    await withTestExecutor {
      await XCTAssertThrowsErrorAsync { try await self.clock.sleep(for: .seconds(2)) }
    }
    assertOneReport(containing: "- due at 2.0 seconds on TestClock")
  }
}

/// Expects `body` to throw.
private func XCTAssertThrowsErrorAsync(_ body: () async throws -> Void) async {
  do {
    try await body()
    XCTFail("expected an error")
  } catch {}
}

/// A time source whose auto-advance can be turned on and off: a lone clock, a lone scheduler,
/// and a clock on a shared timeline (whose switch is the timeline's).
enum AutoAdvancingSource: CaseIterable, Sendable, CustomTestStringConvertible {
  case clock, scheduler, sharedTimeline

  var testDescription: String { "\(self)" }

  func make() -> AutoAdvancing {
    switch self {
    case .clock:
      let clock = TestClock()
      return AutoAdvancing(
        set: { clock.automaticallyAdvances = $0 },
        sleep: { try await clock.sleep(for: .seconds($0)) },
        readElapsed: { clock.now.offset })
    case .scheduler:
      let scheduler = DispatchQueue.test
      let start = scheduler.now.dispatchTime.uptimeNanoseconds
      return AutoAdvancing(
        set: { scheduler.automaticallyAdvances = $0 },
        sleep: { try await scheduler.sleep(for: .seconds($0)) },
        readElapsed: { .nanoseconds(scheduler.now.dispatchTime.uptimeNanoseconds - start) })
    case .sharedTimeline:
      let time = TestTimeline()
      let clock = TestClock(timeline: time)
      return AutoAdvancing(
        set: { time.automaticallyAdvances = $0 },
        sleep: { try await clock.sleep(for: .seconds($0)) },
        readElapsed: { clock.now.offset })
    }
  }
}

/// One auto-advancing time source, seen through what the tests of turning it off need.
struct AutoAdvancing: Sendable {
  let set: @Sendable (Bool) -> Void
  let sleep: @Sendable (Int) async throws -> Void
  let readElapsed: @Sendable () -> Duration

  func setAutomaticallyAdvances(_ on: Bool) { set(on) }
  func sleep(seconds: Int) async throws { try await sleep(seconds) }
  /// The virtual time since the source was made.
  var elapsed: Duration { readElapsed() }
}

/// Without a scope, a sleep of a task the test started (not only of the test's own task) is
/// reported and ended once the test's own task waits and everything is quiet; once the test's
/// task has ended, a sleep it left is leftover work, never reported as a hang.
@Suite struct HangsWithoutAScopeTests {
  @Test func aSleepingTaskTheTestAwaitsIsReportedAndEnded() async {
    let clock = TestClock()
    var result: Result<Void, any Error>?
    let issues = await countingIssues {
      let task = Task { try await clock.sleep(for: .seconds(3)) }
      result = await task.result
    }
    #expect(throws: CancellationError.self) { try result?.get() }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("- due at 3.0 seconds on TestClock") == true)
  }

  @Test func aSleepingChildOfATaskGroupIsReportedAndEnded() async {
    let clock = TestClock()
    var cancelled = 0
    let issues = await countingIssues {
      cancelled = await withTaskGroup(of: Bool.self) { group in
        for seconds in [2, 4] {
          group.addTask {
            do {
              try await clock.sleep(for: .seconds(seconds))
              return false
            } catch {
              return error is CancellationError
            }
          }
        }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
      }
    }
    #expect(cancelled == 2)
    #expect(issues.count == 1)
    #expect(issues.first?.contains("- due at 2.0 seconds on TestClock") == true)
    #expect(issues.first?.contains("- due at 4.0 seconds on TestClock") == true)
  }

  @Test func aSchedulerSleepOfATaskTheTestAwaitsIsReportedAndEnded() async {
    let scheduler = DispatchQueue.test(timeline: TestTimeline())
    var result: Result<Void, any Error>?
    let issues = await countingIssues {
      // A clock made in the test opens its executor: the task below is the test's.
      _ = TestClock()
      let task = Task { try await scheduler.sleep(for: .seconds(3)) }
      result = await task.result
    }
    #expect(throws: CancellationError.self) { try result?.get() }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("TestScheduler") == true)
  }

  /// A test that ends with a task still sleeping: the sleep is not a hang, of this test or a
  /// later one. The "test" here is a task of its own, which ends; from then on, its executor
  /// no longer says a test runs, so the watch never takes the sleep for a hang.
  @Test func aSleepLeftByATestThatEndedIsNeverReportedAsAHang() async throws {
    let (clock, executor) = await Task { () async -> (TestClock<Duration>, TestExecutor?) in
      let clock = TestClock()
      Task { try await clock.sleep(for: .seconds(3)) }
      await clock.advance()  // the sleeper is pending when the test ends
      return (clock, TestExecutor.ofCurrentTest)
    }.value
    let ended = try #require(executor)
    #expect(clock.pendingWorkCount == 1)
    #expect(!ended.activity.isRunningTest)
    let observation = HangObservation(progress: 0, activity: ended.activity, isPending: true)
    #expect(!observation.holdsTestUp)
  }
}

/// A test blocked on a scheduler's pending action rather than on a sleep: a Combine pipeline
/// read through `.values` leaves the waiting task suspended on a continuation, with no sleep to
/// watch. The scheduler's pending work is followed instead: once the test's task has waited,
/// quiet, for about a second and a half with work pending that nothing advanced, it is
/// reported, and the test's task (with the task that subscribed, if another) is cancelled,
/// which ends the iteration.
@Suite struct PendingWorkHangTests {
  /// Reads a value that the scheduler delays by 2 s, which nothing advances (its delivery and
  /// the pipeline's end are the two actions pending).
  private static func readDelayedValue(
    on scheduler: TestSchedulerOf<DispatchQueue>
  ) async -> [Int] {
    var received: [Int] = []
    for await value in Just(1).delay(for: .seconds(2), scheduler: scheduler).values {
      received.append(value)
    }
    return received
  }

  /// The test's task sleeps in real time (a `Task.sleep` that no clock controls, which Tempo
  /// sends to the system's timers) while a scheduler has work pending that nothing advances:
  /// it waits on time that passes by itself, and is not blocked. The sleep is real, and longer
  /// than the watch takes to report a test that is blocked: what it shows is that time.
  @Test(.enabled(if: systemSleepsAreAvailable))
  func aTestInARealSleepBesidePendingWorkIsNotReported() async {
    let scheduler = DispatchQueue.test
    var slept = false
    let issues = await countingIssues {
      await withTestExecutor(leftoverWork: .ignore) {
        let delivery = Just(1).delay(for: .seconds(2), scheduler: scheduler).sink { _ in }
        slept = (try? await Task.sleep(for: .seconds(2))) != nil
        delivery.cancel()
      }
    }
    #expect(issues == [])
    #expect(slept, "the sleep was cancelled as a hang")
  }

  /// A sleep in real time that was cancelled no longer holds the test's task: a test that
  /// then blocks on a scheduler's pending work is reported as blocked, as without it.
  @Test(.enabled(if: systemSleepsAreAvailable))
  func aCancelledRealSleepHidesNoHang() async {
    let scheduler = DispatchQueue.test
    var received: [Int]?
    let issues = await countingIssues {
      await withTestExecutor(leftoverWork: .ignore) {
        let (asleep, isAsleep) = AsyncStream<Void>.makeStream()
        let sleeper = Task {
          isAsleep.finish()  // the test's executor runs this task on to its sleep first
          try? await Task.sleep(for: .seconds(3_600))
        }
        for await _ in asleep {}
        sleeper.cancel()
        await sleeper.value
        received = await Self.readDelayedValue(on: scheduler)
      }
    }
    #expect(received == [])
    #expect(issues.count == 1)
  }

  @Test func aPipelineTheTestReadsIsReportedAndEnded() async {
    let scheduler = DispatchQueue.test
    var received: [Int]?
    let issues = await countingIssues { received = await Self.readDelayedValue(on: scheduler) }
    #expect(received == [])
    #expect(issues.count == 1)
    let report = issues.first ?? ""
    #expect(report.contains("The test is blocked on time"))
    #expect(report.contains("TestScheduler (DispatchQueue.test) has 2 pending"))
    #expect(report.contains("`await scheduler.advance(by:)`"))
    #expect(scheduler.pendingWorkCount == 2)  // reported, not run: the value and the end
  }

  /// A `@MainActor` test, whose work is pumped on the main queue, waiting for a value received
  /// on the scheduler (an action due now, which only an advance runs).
  @MainActor @Test func aPipelineAMainActorTestReadsIsReportedAndEnded() async {
    let scheduler = DispatchQueue.test
    var received: [Int] = []
    let issues = await countingIssues {
      for await value in Just(1).receive(on: scheduler).values {
        received.append(value)
      }
    }
    #expect(received == [])
    #expect(issues.count == 1)
    #expect(issues.first?.contains("TestScheduler (DispatchQueue.test) has 2 pending") == true)
  }

  @Test func aPipelineReadByATaskTheTestAwaitsIsReportedAndEnded() async {
    let scheduler = DispatchQueue.test
    var received: [Int]?
    let issues = await countingIssues {
      let task = Task { await Self.readDelayedValue(on: scheduler) }
      received = await task.value
    }
    #expect(received == [])
    #expect(issues.count == 1)
    #expect(issues.first?.contains("TestScheduler (DispatchQueue.test) has 2 pending") == true)
  }

  @Test func aPipelineInAScopeIsReportedAndEnded() async {
    var received: [Int]?
    let issues = await countingIssues {
      await withTestExecutor {
        received = await Self.readDelayedValue(on: DispatchQueue.test)
      }
    }
    #expect(received == [])
    // The report, then the scope's end lists the same work as left over.
    #expect(issues.count == 2)
    #expect(issues.first?.contains("The test is blocked on time") == true)
    #expect(issues.first?.contains("TestScheduler (DispatchQueue.test) has 2 pending") == true)
    #expect(issues.last?.contains("left over") == true)
  }

  /// A repeating action (a timer on the scheduler) is pending work too.
  @Test func aTimerTheTestWaitsForIsReportedAndEnded() async {
    let scheduler = DispatchQueue.test
    var first: DispatchQueue.SchedulerTimeType?
    let issues = await countingIssues {
      let ticks = Publishers.Timer(every: .seconds(3), scheduler: scheduler).autoconnect()
      first = await ticks.values.first { _ in true }
    }
    #expect(first == nil)
    #expect(issues.count == 1)
    #expect(issues.first?.contains("due at 3.0 seconds since the scheduler's start") == true)
  }

  /// A test that made more schedulers than the watch follows for one test (64), each run and
  /// gone before the next, as a loop over inputs does: its hang on the last one's work is
  /// still reported.
  @Test func aPipelineOnTheLastOfManySchedulersIsReportedAndEnded() async {
    for input in 0..<100 {
      let scheduler = DispatchQueue.test
      var received: [Int] = []
      let delivery = Just(input).delay(for: .seconds(1), scheduler: scheduler).sink {
        received.append($0)
      }
      await scheduler.advance(by: .seconds(1))
      #expect(received == [input])
      delivery.cancel()
    }
    let scheduler = DispatchQueue.test
    var received: [Int]?
    let issues = await countingIssues { received = await Self.readDelayedValue(on: scheduler) }
    #expect(received == [])
    #expect(issues.count == 1)
    #expect(issues.first?.contains("TestScheduler (DispatchQueue.test) has 2 pending") == true)
  }

  /// Work that the test advances is never taken for a hang, however long the test runs.
  @Test func aPipelineThatTheTestAdvancesIsNotReported() async {
    let scheduler = DispatchQueue.test
    let issues = await countingIssues {
      let task = Task { await Self.readDelayedValue(on: scheduler) }
      await scheduler.advance(by: .seconds(2))
      #expect(await task.value == [1])
    }
    #expect(issues.isEmpty)
  }
}

/// Many tests at once, half of them ending with a task left sleeping, half blocked on a sleep
/// of their own: each blocked test gets one report naming its own sleep, and no sleep left by
/// an ended test is reported anywhere (a stray report would fail the test it lands in, or the
/// run). `TEMPO_ISOLATION_RUNS=500 swift test --filter LeakedSleepers` runs 500.
@Suite struct LeakedSleepersTests {
  static let runs = Int(ProcessInfo.processInfo.environment["TEMPO_ISOLATION_RUNS"] ?? "") ?? 40

  @Test(arguments: 0..<runs)
  func aSleepLeftByAnEndedTestIsReportedIntoNoOtherTest(run: Int) async {
    let clock = TestClock()
    guard run.isMultiple(of: 2) else {
      // Leaves a task sleeping, due long after any other test's sleep, and ends.
      Task { try await clock.sleep(for: .seconds(100_000 + run)) }
      await clock.advance()
      #expect(clock.pendingWorkCount == 1)
      return
    }
    let issues = await countingIssues {
      let task = Task { try await clock.sleep(for: .seconds(run + 1)) }
      _ = await task.result
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("- due at \(run + 1).0 seconds on TestClock") == true)
    #expect(issues.first?.contains("due at 1000") == false)  // no sleep a leaver left
  }
}

/// The same with schedulers: half the tests end with work left pending on theirs, half are
/// blocked on a pipeline that waits for their own. Each blocked test gets one report naming
/// its own work, and work left by an ended test is reported nowhere.
@Suite struct LeakedPendingWorkTests {
  @Test(arguments: 0..<LeakedSleepersTests.runs)
  func workLeftByAnEndedTestIsReportedIntoNoOtherTest(run: Int) async {
    let scheduler = DispatchQueue.test
    guard run.isMultiple(of: 2) else {
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(100_000 + run))) {}
      #expect(scheduler.pendingWorkCount == 1)
      return
    }
    let issues = await countingIssues {
      let delayed = Just(run).delay(for: .seconds(run + 1), scheduler: scheduler)
      for await _ in delayed.values {}
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("due at \(run + 1).0 seconds since the scheduler's") == true)
    #expect(issues.first?.contains("due at 1000") == false)  // no work a leaver left
  }
}
