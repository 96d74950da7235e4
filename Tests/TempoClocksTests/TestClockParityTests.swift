import TempoClocks
import TempoTestSupport
import XCTest

/// Parity with the established test clock: a welcome message and a timer, tested the way its
/// users write such tests, pass as written on Tempo's `TestClock`. The feature's "has seen the
/// view before" flag is injected instead of read from `UserDefaults`, so the tests can run in
/// parallel.
final class TestClockParityTests: XCTestCase {
  @MainActor
  func testWelcome_FirstTimer() async {
    let clock = TestClock()
    let model = FeatureModel(clock: clock, hasSeenViewBefore: false)
    XCTAssertEqual(model.message, nil)
    Task { await model.task() }
    await clock.advance(by: .seconds(4))
    XCTAssertEqual(model.message, nil)
    await clock.advance(by: .seconds(1))
    XCTAssertEqual(model.message, "Welcome!")
  }

  @MainActor
  func testWelcome_RepeatVisitor() async {
    let clock = TestClock()
    let model = FeatureModel(clock: clock, hasSeenViewBefore: true)
    XCTAssertEqual(model.message, nil)
    Task { await model.task() }
    await clock.advance(by: .seconds(1))
    XCTAssertEqual(model.message, "Welcome!")
  }

  /// The same test inside a test executor: the advance waits for the model by construction.
  @MainActor
  func testWelcome_FirstTimer_OnATestExecutor() async {
    await withTestExecutor {
      let clock = TestClock()
      let model = FeatureModel(clock: clock, hasSeenViewBefore: false)
      Task { await model.task() }
      await clock.advance(by: .seconds(4))
      XCTAssertEqual(model.message, nil)
      await clock.advance(by: .seconds(1))
      XCTAssertEqual(model.message, "Welcome!")
    }
  }

  @MainActor
  func testWelcome_ImmediateClock() async {
    let model = FeatureModel(clock: ImmediateClock(), hasSeenViewBefore: false)
    XCTAssertEqual(model.message, nil)
    await model.task()
    XCTAssertEqual(model.message, "Welcome!")
  }

  @MainActor
  func testTimer() async throws {
    let clock = TestClock()
    let model = FeatureModel(clock: clock, hasSeenViewBefore: false)

    model.startTimerButtonTapped()
    XCTAssertNotNil(model.timerTask)

    await clock.advance(by: .seconds(1))
    XCTAssertEqual(model.count, 1)

    await clock.advance(by: .seconds(1))
    XCTAssertEqual(model.count, 2)

    await clock.advance(by: .seconds(8))
    XCTAssertEqual(model.count, 10)

    model.stopTimerButtonTapped()
    XCTAssertNil(model.timerTask)

    await clock.run()
    XCTAssertEqual(model.count, 10)
    try await clock.checkSuspension()
  }
}

@MainActor
final class FeatureModel {
  var message: String?
  var count = 0
  var timerTask: Task<Never, any Error>?
  let clock: any Clock<Duration>
  let hasSeenViewBefore: Bool

  init(clock: any Clock<Duration>, hasSeenViewBefore: Bool) {
    self.clock = clock
    self.hasSeenViewBefore = hasSeenViewBefore
  }

  func task() async {
    do {
      try await clock.sleep(for: .seconds(hasSeenViewBefore ? 1 : 5))
      message = "Welcome!"
    } catch {}
  }

  func startTimerButtonTapped() {
    self.timerTask = Task<Never, any Error> {
      while true {
        try await self.clock.sleep(for: .seconds(1))
        self.count += 1
      }
    }
  }

  func stopTimerButtonTapped() {
    timerTask?.cancel()
    timerTask = nil
  }
}
