import TempoClocks
import XCTest

/// The most common way of writing a clock test in XCTest: the clock is a property of the test
/// case, made by XCTest outside any task (XCTest makes every test case's instance before the
/// run), and advanced from the test's task. Exact, and with no issue reported (an issue fails
/// an XCTest).
final class PropertyClockTests: XCTestCase {
  let clock = TestClock()
  var setUpClock: TestClock<Duration>!

  override func setUp() {
    super.setUp()
    // A synchronous setUp runs outside any task too.
    setUpClock = TestClock()
  }

  @MainActor
  func testWelcomeMessageAppearsAfterFiveSeconds() async {
    let model = FeatureModel(clock: clock, hasSeenViewBefore: false)
    Task { await model.task() }
    await clock.advance(by: .seconds(4))
    XCTAssertEqual(model.message, nil)
    await clock.advance(by: .seconds(1))
    XCTAssertEqual(model.message, "Welcome!")
  }

  @MainActor
  func testTimerCountsEveryTickOnAClockMadeInSetUp() async {
    let model = FeatureModel(clock: setUpClock, hasSeenViewBefore: false)
    model.startTimerButtonTapped()
    for tick in 1...10 {
      await setUpClock.advance(by: .seconds(1))
      XCTAssertEqual(model.count, tick)
    }
    model.stopTimerButtonTapped()
  }

  /// Work started by nonisolated tasks, and their children, before the first advance.
  func testTasksStartedBeforeTheFirstAdvanceAreSeen() async {
    let clock = clock
    let results = LockedArray()
    Task {
      await withTaskGroup(of: Void.self) { group in
        for index in 1...3 {
          group.addTask {
            try? await clock.sleep(for: .seconds(index))
            results.append(index)
          }
        }
      }
    }
    await clock.advance(by: .seconds(2))
    XCTAssertEqual(results.values.sorted(), [1, 2])
    await clock.advance(by: .seconds(1))
    XCTAssertEqual(results.values.sorted(), [1, 2, 3])
  }

  /// A stream finished by a task the test starts, awaited by the test.
  func testAStreamFinishedByAStartedTaskEnds() async {
    let clock = clock
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    Task {
      try? await clock.sleep(for: .seconds(1))
      continuation.yield(1)
      continuation.finish()
    }
    await clock.advance(by: .seconds(1))
    var received: [Int] = []
    for await value in stream { received.append(value) }
    XCTAssertEqual(received, [1])
  }
}

/// An array that tasks append to from any thread.
final class LockedArray: @unchecked Sendable {
  // Invariant: `lock` guards `storage`.
  private let lock = NSLock()
  private var storage: [Int] = []

  func append(_ value: Int) { lock.withLock { storage.append(value) } }
  var values: [Int] { lock.withLock { storage } }
}
