import Foundation
import TempoClocks
import TempoSchedulers
import TempoTimeline
import XCTest

/// Schedulers and timelines held as XCTest properties, made outside any task like the clocks of
/// `PropertyClockTests`: async code waiting on them is seen from the first advance, with no
/// issue reported.
final class PropertySourcesTests: XCTestCase {
  let scheduler = DispatchQueue.test
  let timeline = TestTimeline()
  lazy var clock = TestClock(timeline: timeline)
  lazy var queue = DispatchQueue.test(timeline: timeline)

  func testATaskSleepingOnAPropertySchedulerWakesAtItsTime() async {
    let scheduler = scheduler
    let woke = Flag()
    Task {
      try? await scheduler.sleep(for: .seconds(1))
      woke.set()
    }
    await scheduler.advance(by: .milliseconds(999))
    XCTAssertFalse(woke.isSet)
    await scheduler.advance(by: .milliseconds(1))
    XCTAssertTrue(woke.isSet)
  }

  func testASharedTimelineMadeOutsideATaskSeesBothSources() async {
    let (clock, queue) = (clock, queue)
    let events = Events()
    Task {
      try? await clock.sleep(for: .seconds(1))
      events.append("clock")
      try? await queue.sleep(for: .seconds(1))
      events.append("queue")
    }
    await timeline.advance(by: .seconds(1))
    XCTAssertEqual(events.values, ["clock"])
    await timeline.advance(by: .seconds(1))
    XCTAssertEqual(events.values, ["clock", "queue"])
  }
}

/// A flag set from any thread.
final class Flag: @unchecked Sendable {
  // Invariant: `lock` guards `value`.
  private let lock = NSLock()
  private var value = false

  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }
}

/// Strings appended from any thread.
final class Events: @unchecked Sendable {
  // Invariant: `lock` guards `storage`.
  private let lock = NSLock()
  private var storage: [String] = []

  func append(_ value: String) { lock.withLock { storage.append(value) } }
  var values: [String] { lock.withLock { storage } }
}
