import TempoClocks
import TempoSchedulers
@_spi(TempoInternals) import TempoSupport
import XCTest

@testable import TempoTestSupport

/// Sleeps left pending at the end of an XCTest test, with clocks and schedulers held as
/// properties and no scope, as swift-clocks' README teaches: each throws CancellationError
/// into its task, which finishes inside its own test. The tests run in the order of their
/// names: each odd one leaves a sleep, and the even one after it checks, in its own time, what
/// became of it.
final class XCTestEndSleepTests: XCTestCase {
  let clock = TestClock()
  let scheduler = DispatchQueue.test

  /// The test running now, and what the tasks of earlier tests did, and in which test.
  private static let current = LockedBox("")
  /// The test that ran before this one.
  private static let previous = LockedBox("")
  private static let log = LockedBox<[String]>([])
  /// What the ends of tests reported since it was last read.
  private static let reports = LockedBox<[String]>([])

  private static func note(_ event: String) {
    let test = current.withLock { $0 }
    log.withLock { $0.append("\(event) in \(test)") }
  }

  /// A task that sleeps on `sleep`, noting how the sleep ended and when the task finished.
  private static func sleeper(_ sleep: @escaping @Sendable () async throws -> Void) {
    Task {
      do {
        try await sleep()
        note("woke")
      } catch {
        note("threw \(type(of: error)), cancelled: \(Task.isCancelled)")
      }
      note("finished")
    }
  }

  /// Sleeps a second at a time, noting each turn, whether cancelled or not.
  private static func loopIgnoringCancellation(on clock: TestClock<Duration>) async {
    var turns = 0
    while turns >= 0 {
      try? await clock.sleep(for: .seconds(1))
      note("turn")
      turns += 1
    }
  }

  override func setUp() {
    super.setUp()
    let name = name
    let previous = Self.current.withLock { current in
      defer { current = name }
      return current
    }
    Self.previous.withLock { $0 = previous }
    let reports = Self.reports
    XCTestEndReports.intercept.withLock { intercept in
      intercept = { message, _ in reports.withLock { $0.append(message) } }
    }
  }

  override func tearDown() {
    XCTestEndReports.intercept.withLock { $0 = nil }
    LeftoverWork.inXCTests = .warn
    super.tearDown()
  }

  private func takeLog() -> [String] {
    Self.log.withLock { log in
      defer { log = [] }
      return log
    }
  }

  /// The sleeper the previous test left threw into its task and finished, inside that test.
  private func expectThePreviousTestsSleeperEndedInsideIt(
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let test = Self.previous.withLock { $0 }
    XCTAssertEqual(
      takeLog(),
      ["threw CancellationError, cancelled: true in \(test)", "finished in \(test)"],
      file: file, line: line)
  }

  private func takeReports() -> String {
    Self.reports.withLock { reports in
      defer { reports = [] }
      return reports.joined(separator: "\n")
    }
  }

  func test1ASleepOnAPropertyClockIsLeft() async {
    let clock = clock
    Self.sleeper { try await clock.sleep(for: .seconds(5)) }
    await clock.advance(by: .seconds(2))
  }

  func test2ItEndedInsideItsOwnTest() async {
    XCTAssertTrue(takeReports().contains("due at 5.0 seconds"))
    expectThePreviousTestsSleeperEndedInsideIt()
  }

  func test3ASleepOnAPropertySchedulerIsLeftAndIgnored() async {
    LeftoverWork.inXCTests = .ignore
    let scheduler = scheduler
    Self.sleeper { try await scheduler.sleep(for: .seconds(5)) }
    await scheduler.advance(by: .seconds(2))
  }

  func test4ItEndedInsideItsOwnTestToo() async {
    XCTAssertEqual(takeReports(), "", "ignored")
    expectThePreviousTestsSleeperEndedInsideIt()
  }

  func test5ALoopThatIgnoresCancellationIsNamed() async {
    let clock = clock
    Task { await XCTestEndSleepTests.loopIgnoringCancellation(on: clock) }
    await clock.advance(by: .seconds(2))
  }

  func test6TheNextTestIsUnaffected() async {
    let test = Self.previous.withLock { $0 }
    // Two turns as the test advanced, one as the end threw into its sleep; parked since.
    XCTAssertEqual(takeLog(), ["turn in \(test)", "turn in \(test)", "turn in \(test)"])
    let report = takeReports()
    XCTAssertTrue(report.contains("The task of the sleep due at 3.0 seconds"), report)
    XCTAssertTrue(report.contains("did not finish"), report)
    let clock = clock
    await clock.advance(by: .seconds(10))
    XCTAssertEqual(takeLog(), [])
  }

  /// A clock made in the test's task, not a property: it opens the test's executor itself.
  func test7ASleepOnAClockMadeInTheTestIsLeft() async {
    let clock = TestClock()
    Self.sleeper { try await clock.sleep(for: .seconds(5)) }
    await clock.advance(by: .seconds(2))
  }

  func test8ItEndedInsideItsOwnTestAsWell() async {
    XCTAssertTrue(takeReports().contains("due at 5.0 seconds"))
    expectThePreviousTestsSleeperEndedInsideIt()
  }
}
