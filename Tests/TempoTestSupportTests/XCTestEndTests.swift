import TempoClocks
import TempoSchedulers
@_spi(TempoInternals) import TempoSupport
import XCTest

@testable import TempoTestSupport

/// The end of every XCTest test, with no scope: clocks and schedulers held as properties, made
/// when XCTest makes the test's instance (outside any task, before any test starts), as
/// swift-clocks' and combine-schedulers' own suites hold them. `tearDown`, which runs after the
/// end-of-test check, asserts what that check reported for the test. The tests run in the order
/// of their names, so that each clean test follows a leaky one.
final class XCTestEndTests: XCTestCase {
  let clock = TestClock()
  let scheduler = DispatchQueue.test
  let runLoop = RunLoop.test
  /// What the end of this test reported.
  private let reports = LockedBox<[(message: String, isWarning: Bool)]>([])
  /// What `tearDown` expects: a line each report must contain, or none for a clean test.
  private var expected: [String] = []
  private var expectedAsWarning = true

  override func setUp() {
    super.setUp()
    let reports = reports
    XCTestEndReports.intercept.withLock { intercept in
      intercept = { message, isWarning in reports.withLock { $0.append((message, isWarning)) } }
    }
  }

  override func tearDown() {
    XCTestEndReports.intercept.withLock { $0 = nil }
    LeftoverWork.inXCTests = .warn
    let reports = reports.withLock { $0 }
    if expected.isEmpty {
      XCTAssertEqual(reports.map(\.message), [], "a clean test reports nothing")
    } else {
      XCTAssertEqual(reports.count, 1, "one report per test: \(reports.map(\.message))")
      for line in expected {
        XCTAssertTrue(reports.first?.message.contains(line) == true, "\(line) in \(reports)")
      }
      XCTAssertEqual(reports.first?.isWarning, expectedAsWarning)
    }
    super.tearDown()
  }

  /// A task the test started sleeps on the property clock past the test's end.
  func test1ALeftoverSleeperIsReportedAtTheEndOfItsTest() async {
    let clock = clock
    Task { try await clock.sleep(for: .seconds(5)) }
    await clock.advance(by: .seconds(1))
    expected = ["test1ALeftoverSleeperIsReportedAtTheEndOfItsTest", "due at 5.0 seconds"]
  }

  /// The next test: the sleeper the previous test left is not reported into this one.
  func test2TheNextTestIsUnaffected() async {
    await clock.advance(by: .seconds(1))
  }

  /// A scheduler used only synchronously, as Combine tests use one: an action left pending.
  func test3AnActionLeftOnASchedulerIsReported() {
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) {}
    scheduler.advance(by: .seconds(1))
    expected = ["TestScheduler", "1 pending"]
  }

  /// A test that runs its scheduler's work to the end leaves nothing.
  func test4ACleanTestReportsNothing() {
    var ran = false
    runLoop.schedule(after: runLoop.now.advanced(by: .seconds(2))) { ran = true }
    runLoop.advance(by: .seconds(2))
    XCTAssertTrue(ran)
  }

  /// `LeftoverWork.inXCTests = .fail` makes the report a failure.
  func test5FailMakesItAFailure() {
    LeftoverWork.inXCTests = .fail
    runLoop.schedule(after: runLoop.now.advanced(by: .seconds(2))) {}
    expected = ["TestScheduler (RunLoop.test) has 1 pending"]
    expectedAsWarning = false
  }

  /// `.ignore` turns the check off; the test's executors close all the same.
  func test6IgnoreReportsNothing() async {
    LeftoverWork.inXCTests = .ignore
    let clock = clock
    Task { try await clock.sleep(for: .seconds(5)) }
    await clock.advance(by: .seconds(1))
  }

  /// A clock made inside the test, in its task: its work is the test's too.
  func test7AClockMadeInTheTestIsSeen() async {
    let clock = TestClock()
    Task { try await clock.sleep(for: .seconds(3)) }
    await clock.advance(by: .seconds(1))
    expected = ["due at 3.0 seconds"]
  }

  /// Keeps a stream's continuation alive past the test, so that its stream never finishes.
  private static let openStreams = LockedBox<[AsyncStream<Int>.Continuation]>([])

  /// A task the test started waits on a stream that never yields: nothing is pending on a
  /// clock, and the task has not finished when the test ends.
  func test8ATaskThatHasNotFinishedIsReported() async {
    let clock = clock
    await clock.advance(by: .seconds(1))  // the property clock's executor opens for this test
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    Self.openStreams.withLock { $0.append(continuation) }
    Task { for await _ in stream {} }
    await clock.advance(by: .seconds(1))
    expected = [
      "test8ATaskThatHasNotFinishedIsReported", "A task started in the test has not finished",
    ]
  }

  /// The same with a clock made in the test: its tasks are the test's from the start.
  func test9ATaskOfAClockMadeInTheTestThatHasNotFinishedIsReported() async {
    let clock = TestClock()
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    Self.openStreams.withLock { $0.append(continuation) }
    Task { for await _ in stream {} }
    await clock.advance(by: .seconds(1))
    expected = ["A task started in the test has not finished"]
  }

  /// A task that finished before the test ended is not reported.
  func test10ATaskThatFinishedIsNotReported() async {
    let clock = TestClock()
    let task = Task { try await clock.sleep(for: .seconds(1)) }
    await clock.advance(by: .seconds(1))
    _ = await task.result
  }

  /// A task started before the property clock's first advance, which has run and waits
  /// before it: the executor knows it from the lineage only, adopts it at that advance, and
  /// reports it if it has not finished.
  func test11ATaskStartedBeforeTheFirstAdvanceThatHasNotFinishedIsReported() async {
    let clock = clock
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let (started, hasStarted) = AsyncStream<Void>.makeStream()
    Self.openStreams.withLock { $0.append(continuation) }
    Task {
      hasStarted.finish()
      for await _ in stream {}
    }
    for await _ in started {}
    await clock.advance(by: .seconds(1))
    expected = ["A task started in the test has not finished"]
  }

  /// The same task finished before the test ends: nothing is reported.
  func test12ATaskStartedBeforeTheFirstAdvanceThatFinishedIsNotReported() async {
    let clock = clock
    let task = Task { try await clock.sleep(for: .seconds(1)) }
    await clock.advance(by: .seconds(1))
    _ = await task.result
  }
}
