import Dispatch
import TempoClocks
import TempoSchedulers
import TempoTestHelpers
import Testing
import XCTest

// A `@MainActor` test whose body started before any test executor was open read the main
// actor's executor then: the platform's, not Tempo's. Its task's hops back to the main actor
// (after each `await` of a nonisolated function, such as a sleep) go straight to the main
// queue, past every hook. When such a task opens an executor by making a clock or scheduler,
// time that moves itself must still wait for it to run after each wake.
//
// Whether a test's body read Tempo's executor or the platform's depends on whether another test
// had one open when it started: in a full parallel run it usually had. These tests make the
// platform's path on purpose, with an actor whose executor runs its jobs on the main queue as
// the platform's main executor does, unseen by Tempo's hooks.

/// An executor that runs each job on the main queue, as the platform's main executor does, and
/// that Tempo's hooks never see: a job enqueued here goes to the main queue directly.
final class PlainMainQueueExecutor: SerialExecutor {
  static let shared = PlainMainQueueExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    DispatchQueue.main.async { job.runSynchronously(on: Self.shared.asUnownedSerialExecutor()) }
  }

  func checkIsolated() {
    dispatchPrecondition(condition: .onQueue(.main))
  }
}

/// A global actor whose code runs on the main queue through ``PlainMainQueueExecutor``: as a
/// `@MainActor` test's body does when it started before Tempo's hooks were installed.
@globalActor actor PlainMainQueue {
  static let shared = PlainMainQueue()

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    PlainMainQueueExecutor.shared.asUnownedSerialExecutor()
  }
}

@Suite struct UnseenMainQueueWakeTests {
  /// The shape found in a held-out suite: a debounce pending at 300 ms, the test sleeps 100 ms
  /// on an auto-advancing `mainQueue`, then types again. Without the rule, the driver ran the
  /// debounce before the test's task had run on from its sleep: `now` read 300 ms there, and
  /// the debounce fired for the old query.
  @Test func anAutoAdvancingSchedulerWaitsForTheTestsTaskToWake() async {
    let events = await Task { @PlainMainQueue in
      let mainQueue = DispatchQueue.test
      mainQueue.automaticallyAdvances = true
      let start = mainQueue.now
      let events = Log<String>()
      mainQueue.schedule(after: start.advanced(by: .milliseconds(300))) {
        events.append("debounce at \(start.distance(to: mainQueue.now).magnitude / 1_000_000) ms")
      }
      try? await mainQueue.sleep(for: .milliseconds(100))
      events.append("woke at \(start.distance(to: mainQueue.now).magnitude / 1_000_000) ms")
      try? await mainQueue.sleep(for: .milliseconds(400))
      return events.values
    }.value
    #expect(events == ["woke at 100 ms", "debounce at 300 ms"])
  }

  /// The same for a clock, whose driver runs off the main queue while the test's task wakes on
  /// it.
  @Test func anAutoAdvancingClockWaitsForTheTestsTaskToWake() async {
    let events = await Task { @PlainMainQueue in
      let clock = TestClock()
      clock.automaticallyAdvances = true
      let events = Log<String>()
      async let later: Void = {
        try? await clock.sleep(for: .milliseconds(300))
        events.append("later at \(clock.now.offset)")
      }()
      for _ in 0..<2 {
        try? await clock.sleep(for: .milliseconds(100))
        events.append("woke at \(clock.now.offset)")
      }
      await later
      return events.values
    }.value
    #expect(events == ["woke at 0.1 seconds", "woke at 0.2 seconds", "later at 0.3 seconds"])
  }

  /// The shape as users write it: a `@MainActor` test with no wrapper. Its body read the
  /// platform's main executor if no executor was open when it started (run alone, or first):
  /// then this is the path above; otherwise Tempo's, which counts the wake.
  @MainActor
  @Test func aMainActorTestWakesBeforeTheDebounceFires() async {
    let mainQueue = DispatchQueue.test
    mainQueue.automaticallyAdvances = true
    let start = mainQueue.now
    var events: [String] = []
    mainQueue.schedule(after: start.advanced(by: .milliseconds(300))) {
      events.append("debounce at \(start.distance(to: mainQueue.now).magnitude / 1_000_000) ms")
    }
    try? await mainQueue.sleep(for: .milliseconds(100))
    events.append("woke at \(start.distance(to: mainQueue.now).magnitude / 1_000_000) ms")
    try? await mainQueue.sleep(for: .milliseconds(400))
    #expect(events == ["woke at 100 ms", "debounce at 300 ms"])
  }
}

/// The shape in XCTest: a scheduler held in a property, made with the test case (outside any
/// task), and a `@MainActor` async test method.
@MainActor
final class UnseenMainQueueWakeXCTests: XCTestCase {
  let mainQueue = DispatchQueue.test

  func testAMainActorTestWakesBeforeTheDebounceFires() async {
    mainQueue.automaticallyAdvances = true
    let start = mainQueue.now
    var events: [String] = []
    mainQueue.schedule(after: start.advanced(by: .milliseconds(300))) {
      let now = self.mainQueue.now
      events.append("debounce at \(start.distance(to: now).magnitude / 1_000_000) ms")
    }
    try? await mainQueue.sleep(for: .milliseconds(100))
    events.append("woke at \(start.distance(to: mainQueue.now).magnitude / 1_000_000) ms")
    try? await mainQueue.sleep(for: .milliseconds(400))
    XCTAssertEqual(events, ["woke at 100 ms", "debounce at 300 ms"])
  }
}
