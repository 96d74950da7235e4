import TempoSchedulers
import XCTest

/// Parity with the established test scheduler: what a test scheduler must do, test by test
/// (actions scheduled now, after a delay, on an interval, cancelled; debounce; advance), on
/// `DispatchQueue.test`.
final class TestSchedulerParityTests: XCTestCase {
  var cancellables: Set<AnyCancellable> = []
  let scheduler = DispatchQueue.test

  func testImmediateScheduledAction() {
    let testScheduler = DispatchQueue.test
    var isExecuted = false
    testScheduler.schedule(options: nil) { isExecuted = true }
    XCTAssertEqual(isExecuted, false)
    testScheduler.advance()
    XCTAssertEqual(isExecuted, true)
  }

  func testMultipleImmediateScheduledAction() {
    var executionCount = 0
    scheduler.schedule(options: nil) { executionCount += 1 }
    scheduler.schedule(options: nil) { executionCount += 1 }
    XCTAssertEqual(executionCount, 0)
    scheduler.advance()
    XCTAssertEqual(executionCount, 2)
  }

  func testImmediateScheduledActionWithPublisher() {
    var output: [Int] = []
    Just(1)
      .receive(on: scheduler)
      .sink { output.append($0) }
      .store(in: &self.cancellables)
    XCTAssertEqual(output, [])
    scheduler.advance()
    XCTAssertEqual(output, [1])
  }

  func testImmediateScheduledActionWithMultiplePublishers() {
    var output: [Int] = []
    Just(1)
      .receive(on: scheduler)
      .merge(with: Just(2).receive(on: scheduler))
      .sink { output.append($0) }
      .store(in: &self.cancellables)
    XCTAssertEqual(output, [])
    scheduler.advance()
    XCTAssertEqual(output, [1, 2])
  }

  func testScheduledAfterDelay() {
    let testScheduler = DispatchQueue.test
    var isExecuted = false
    testScheduler.schedule(after: testScheduler.now.advanced(by: 1)) { isExecuted = true }
    XCTAssertEqual(isExecuted, false)
    testScheduler.advance()
    XCTAssertEqual(isExecuted, false)
    testScheduler.advance(by: .milliseconds(500))
    XCTAssertEqual(isExecuted, false)
    testScheduler.advance(by: .milliseconds(499))
    XCTAssertEqual(isExecuted, false)
    testScheduler.advance(by: .microseconds(999))
    XCTAssertEqual(isExecuted, false)
    testScheduler.advance(by: .microseconds(1))
    XCTAssertEqual(isExecuted, true)
  }

  func testScheduledAfterLongDelay() {
    let testScheduler = DispatchQueue.test
    var isExecuted = false
    testScheduler.schedule(after: testScheduler.now.advanced(by: 1_000_000)) { isExecuted = true }
    XCTAssertEqual(isExecuted, false)
    testScheduler.advance(by: .seconds(100_000_000))
    XCTAssertEqual(isExecuted, true)
  }

  func testScheduledInterval() {
    var executionCount = 0
    scheduler.schedule(after: scheduler.now, interval: 1) { executionCount += 1 }
      .store(in: &self.cancellables)
    XCTAssertEqual(executionCount, 0)
    scheduler.advance()
    XCTAssertEqual(executionCount, 1)
    scheduler.advance(by: .milliseconds(500))
    XCTAssertEqual(executionCount, 1)
    scheduler.advance(by: .milliseconds(500))
    XCTAssertEqual(executionCount, 2)
    scheduler.advance(by: .seconds(1))
    XCTAssertEqual(executionCount, 3)
    scheduler.advance(by: .seconds(5))
    XCTAssertEqual(executionCount, 8)
  }

  func testScheduledIntervalCancellation() {
    var executionCount = 0
    scheduler.schedule(after: scheduler.now, interval: 1) { executionCount += 1 }
      .store(in: &self.cancellables)
    XCTAssertEqual(executionCount, 0)
    scheduler.advance()
    XCTAssertEqual(executionCount, 1)
    scheduler.advance(by: .milliseconds(500))
    XCTAssertEqual(executionCount, 1)
    scheduler.advance(by: .milliseconds(500))
    XCTAssertEqual(executionCount, 2)
    self.cancellables.removeAll()
    scheduler.advance(by: .seconds(1))
    XCTAssertEqual(executionCount, 2)
  }

  func testScheduledTwoIntervals() {
    let testScheduler = DispatchQueue.test
    var values: [String] = []
    let c1 = testScheduler.schedule(after: testScheduler.now.advanced(by: 1), interval: 1) {
      values.append("Hello")
    }
    let c2 = testScheduler.schedule(after: testScheduler.now.advanced(by: 2), interval: 2) {
      values.append("World")
    }
    XCTAssertEqual(values, [])
    testScheduler.advance(by: 2)
    XCTAssertEqual(values, ["Hello", "Hello", "World"])
    _ = (c1, c2)
  }

  func testScheduleNow() {
    let testScheduler = DispatchQueue.test
    var times: [UInt64] = []
    let c = testScheduler.schedule(after: testScheduler.now, interval: 1) {
      times.append(testScheduler.now.dispatchTime.uptimeNanoseconds)
    }
    XCTAssertEqual(times, [])
    testScheduler.advance(by: 3)
    XCTAssertEqual(times, [1, 1_000_000_001, 2_000_000_001, 3_000_000_001])
    _ = c
  }

  func testFun() {
    let testScheduler = DispatchQueue.test
    var values: [Int] = []
    let c = testScheduler.schedule(after: testScheduler.now, interval: 1) {
      values.append(values.count)
    }
    XCTAssertEqual(values, [])
    testScheduler.advance(by: 1_000)
    XCTAssertEqual(values, Array(0...1_000))
    _ = c
  }

  func testDebounceThenReceiveOnFiresOnce() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Void, Never>()
    var count = 0
    subject
      .debounce(for: 1, scheduler: scheduler)
      .receive(on: scheduler)
      .sink { count += 1 }
      .store(in: &self.cancellables)
    subject.send()
    scheduler.advance(by: 100)
    XCTAssertEqual(count, 1)
  }

  /// From the clocks transcript's look at the scheduler library: a delay of one second,
  /// advanced a quarter at a time.
  func testAdvance() {
    let scheduler = DispatchQueue.test
    var value: Int?
    Just(1)
      .delay(for: 1, scheduler: scheduler)
      .sink { value = $0 }
      .store(in: &self.cancellables)
    XCTAssertEqual(value, nil)
    scheduler.advance(by: .milliseconds(250))
    XCTAssertEqual(value, nil)
    scheduler.advance(by: .milliseconds(250))
    XCTAssertEqual(value, nil)
    scheduler.advance(by: .milliseconds(250))
    XCTAssertEqual(value, nil)
    scheduler.advance(by: .milliseconds(250))
    XCTAssertEqual(value, 1)
  }
}
