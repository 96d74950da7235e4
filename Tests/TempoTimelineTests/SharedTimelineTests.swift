import Foundation
import TempoClocks
import TempoTestHelpers
import TempoTestSupport
import Testing

@testable import TempoSchedulers

/// A feature with three time sources: it debounces queries on the main queue, delivers results
/// after a delay on a run loop, and logs analytics after sleeping on a clock.
final class SearchFeature: @unchecked Sendable {
  // Invariant: `lock` guards `events` and `cancellables`; nothing else is mutable.
  private let lock = NSLock()
  private var events: [String] = []
  private let queries = PassthroughSubject<String, Never>()
  private var cancellables: Set<AnyCancellable> = []
  private let runLoop: AnySchedulerOf<RunLoop>
  private let clock: any Clock<Duration>
  private let time: TestTimeline

  init(
    mainQueue: AnySchedulerOf<DispatchQueue>,
    runLoop: AnySchedulerOf<RunLoop>,
    clock: any Clock<Duration>,
    time: TestTimeline
  ) {
    self.runLoop = runLoop
    self.clock = clock
    self.time = time
    queries
      .debounce(for: .milliseconds(300), scheduler: mainQueue)
      .sink { [unowned self] query in self.search(query) }
      .store(in: &cancellables)
  }

  var log: [String] { lock.withLock { events } }

  func queryChanged(_ query: String) { queries.send(query) }

  private func search(_ query: String) {
    record("search \(query)")
    let delivery = Just(query.uppercased())
      .delay(for: .milliseconds(500), scheduler: runLoop)
      .sink { [unowned self] results in self.record("results \(results)") }
    lock.withLock { delivery.store(in: &cancellables) }
    Task { [clock] in
      try? await clock.sleep(for: .milliseconds(600))
      self.record("analytics \(query)")
    }
  }

  private func record(_ event: String) {
    let now = time.now
    lock.withLock { events.append("\(event) at \(now)") }
  }
}

@Suite struct SharedTimelineTests {
  @Test(.testExecutor) func oneAdvanceDrivesAMainQueueARunLoopAndAClock() async {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let clock = TestClock(timeline: time)
    let feature = SearchFeature(
      mainQueue: mainQueue.eraseToAnyScheduler(),
      runLoop: runLoop.eraseToAnyScheduler(),
      clock: clock,
      time: time
    )
    feature.queryChanged("t")
    await time.advance(by: .milliseconds(100))
    feature.queryChanged("te")
    await time.advance(by: .seconds(2))
    #expect(
      feature.log == [
        "search te at 0.4 seconds",
        "results TE at 0.9 seconds",
        "analytics te at 1.0 seconds",
      ])
    #expect(time.now == .milliseconds(2_100))
    #expect(time.pendingWorkCount == 0)
  }

  @Test func eachSourceSeesTheSharedTimeInItsOwnType() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let operationQueue = OperationQueue.test(timeline: time)
    let clock = TestClock(timeline: time)
    var seen: (UInt64, Date, Date, Duration)?
    runLoop.schedule(after: runLoop.now.advanced(by: .milliseconds(1_500))) {
      seen = (
        mainQueue.now.dispatchTime.uptimeNanoseconds, runLoop.now.date, operationQueue.now.date,
        clock.now.offset
      )
    }
    mainQueue.advance(by: .seconds(2))
    #expect(seen?.0 == 1_500_000_001)
    #expect(seen?.1 == Date(timeIntervalSince1970: 1.5))
    #expect(seen?.2 == Date(timeIntervalSince1970: 1.5))
    #expect(seen?.3 == .milliseconds(1_500))
    #expect(clock.now.offset == .seconds(2))
    #expect(runLoop.now.date == Date(timeIntervalSince1970: 2))
  }

  @Test func tiesAcrossSourcesRunInSchedulingOrder() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let operationQueue = OperationQueue.test(timeline: time)
    var log: [String] = []
    runLoop.schedule(after: runLoop.now.advanced(by: 1)) { log.append("run loop 1") }
    mainQueue.schedule(after: mainQueue.now.advanced(by: 1)) { log.append("main 1") }
    operationQueue.schedule(after: operationQueue.now.advanced(by: 1)) {
      log.append("operation 1")
    }
    mainQueue.schedule(after: mainQueue.now.advanced(by: 1)) { log.append("main 2") }
    mainQueue.schedule(after: mainQueue.now.advanced(by: .milliseconds(500))) {
      log.append("main at 0.5")
    }
    time.advance(by: .seconds(1))
    #expect(log == ["main at 0.5", "run loop 1", "main 1", "operation 1", "main 2"])
  }

  @Test func aRepeatingActionKeepsItsPlaceInTiesAcrossSources() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    var log: [String] = []
    let timer = runLoop.schedule(after: runLoop.now.advanced(by: 1), interval: 1) {
      log.append("tick at \(time.now)")
    }
    mainQueue.schedule(after: mainQueue.now.advanced(by: 2)) { log.append("main at \(time.now)") }
    time.advance(by: .seconds(2))
    #expect(log == ["tick at 1.0 seconds", "tick at 2.0 seconds", "main at 2.0 seconds"])
    timer.cancel()
  }

  @Test func pastDatedWorkRunsAtTheSharedTime() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    time.advance(by: .seconds(5))
    var ranAt: Duration?
    runLoop.schedule(after: RunLoop.SchedulerTimeType(Date(timeIntervalSince1970: 1))) {
      ranAt = time.now
    }
    mainQueue.advance()
    #expect(ranAt == .seconds(5))
  }

  @Test func cancellingOnOneSourceWhileAnotherAdvances() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    var ticks = 0
    let timer = runLoop.schedule(after: runLoop.now.advanced(by: 1), interval: 1) { ticks += 1 }
    mainQueue.schedule(after: mainQueue.now.advanced(by: .milliseconds(2_500))) { timer.cancel() }
    mainQueue.advance(by: 10)
    #expect(ticks == 2)
    #expect(time.pendingWorkCount == 0)
  }

  @Test func runStopsARunawayTimerOnAnySourceAndSaysSo() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    var ticks = 0
    let timer = runLoop.schedule(after: runLoop.now.advanced(by: 1), interval: 1) { ticks += 1 }
    var once = false
    mainQueue.schedule(after: mainQueue.now.advanced(by: 3)) { once = true }
    expectIssues(
      "TestTimeline stopped running after 100 actions: 1 still pending, due at 100.0 seconds (now is 99.0 seconds)"
    ) {
      time.run(limit: 100)
    }
    #expect(once)
    #expect(ticks == 99)
    timer.cancel()
  }

  @Test func aNegativeStrideIsReportedAndTimeStays() {
    let time = TestTimeline()
    expectIssues("stride must be zero or more") {
      time.advance(by: .seconds(-1))
    }
    #expect(time.now == .zero)
  }

  @Test func advancingAnySourceAdvancesAll() async {
    let time = TestTimeline()
    let runLoop = RunLoop.test(timeline: time)
    let clock = TestClock(timeline: time)
    let uiScheduler = UIScheduler.test(timeline: time)
    await runLoop.advance(by: 3)
    #expect(clock.now.offset == .seconds(3))
    #expect(uiScheduler.now.dispatchTime.uptimeNanoseconds == 3_000_000_001)
    await clock.advance(by: .seconds(1))
    #expect(runLoop.now.date == Date(timeIntervalSince1970: 4))
  }

  @Test func concurrentSchedulingFromSeveralSourcesWhileAdvancing() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let operationQueue = OperationQueue.test(timeline: time)
    let counts = Counts<Duration>(size: 6_000)
    DispatchQueue.concurrentPerform(iterations: 7) { worker in
      if worker == 6 {
        for _ in 0..<200 { time.advance(by: .milliseconds(5)) }
        return
      }
      for index in 0..<1_000 {
        let id = worker * 1_000 + index
        let due = time.now + .milliseconds(index % 50)
        // Dates are good to a microsecond near 1970 (see `_tempoElapsed`).
        let run = { counts.ran(id, at: time.now, due: due - .microseconds(1)) }
        switch worker % 3 {
        case 0: mainQueue.schedule(after: .init(.init(uptimeNanoseconds: nanoseconds(due))), run)
        case 1: runLoop.schedule(after: .init(Date(timeIntervalSince1970: seconds(due))), run)
        default:
          operationQueue.schedule(after: .init(Date(timeIntervalSince1970: seconds(due))), run)
        }
      }
    }
    time.advance(by: .seconds(60))
    #expect(counts.earlyRuns == 0, "an action ran before its date")
    #expect((0..<6_000).allSatisfy { counts.count($0) == 1 }, "an action ran not exactly once")
    #expect(time.pendingWorkCount == 0)
  }
}

private func nanoseconds(_ duration: Duration) -> UInt64 {
  let (seconds, attoseconds) = duration.components
  return UInt64(seconds * 1_000_000_000 + attoseconds / 1_000_000_000) + 1
}

private func seconds(_ duration: Duration) -> Double {
  let (seconds, attoseconds) = duration.components
  return Double(seconds) + Double(attoseconds) / 1e18
}

/// A Combine publisher bridged to async code and back, on one test scheduler, in a test
/// executor: each advance waits for the async side by construction.
@Suite(.testExecutor) struct CombineAsyncBridgeTests {
  @Test func aPublisherBridgedToAsyncAndBack() async {
    let scheduler = DispatchQueue.test
    let input = PassthroughSubject<Int, Never>()
    let output = PassthroughSubject<Int, Never>()
    let received = LockedLog()
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let toAsync = input.delay(for: 1, scheduler: scheduler).sink { continuation.yield($0) }
    let fromAsync = output.receive(on: scheduler).sink { received.append($0) }
    let doubler = Task {
      for await value in stream { output.send(value * 2) }
    }
    input.send(1)
    input.send(2)
    await scheduler.advance(by: .milliseconds(999))
    #expect(received.values == [])
    await scheduler.advance(by: .milliseconds(1))
    #expect(received.values == [2, 4])
    continuation.finish()
    await doubler.value
    _ = (toAsync, fromAsync)
  }
}

/// Values appended from any thread.
final class LockedLog: @unchecked Sendable {
  // Invariant: `lock` guards `log`.
  private let lock = NSLock()
  private var log: [Int] = []
  func append(_ value: Int) { lock.withLock { log.append(value) } }
  var values: [Int] { lock.withLock { log } }
}
