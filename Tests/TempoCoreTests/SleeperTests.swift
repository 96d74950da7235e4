@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoCore

/// A sleep's one-time ending (`Sleeper`): whichever of its wake-up and its cancellation comes
/// first ends it, cancels the timeline entry it holds, and resumes the task once.
@Suite struct SleeperTests {
  let location = TempoSupport.SourceLocation(
    fileID: #fileID, filePath: #filePath, line: #line, column: #column)

  func makeTimeline() -> Timeline<Int, Int> {
    Timeline(now: 0, name: "TestTimeline", advancedBy: { $0 + $1 })
  }

  /// The synchronous advance, which an async test would not pick by itself.
  func advanceSynchronously(_ timeline: Timeline<Int, Int>, by stride: Int) {
    timeline.advance(by: stride, at: location)
  }

  @Test func aWakeUpResumesTheSleepAndCountsUntilTheTaskAcknowledges() async throws {
    let timeline = makeTimeline()
    let sleeper = timeline.makeSleeper()
    let ended = Log<String>()
    let sleep = Task {
      try await withUnsafeThrowingContinuation { continuation in
        guard sleeper.install(continuation) else { return }
        sleeper.hold(timeline.schedule(after: 5, interval: nil, at: location) { sleeper.wake() })
      }
      ended.append("woke")
    }
    while timeline.pendingCount == 0 { await Task.yield() }
    // A synchronous drive: the wake-up runs on this thread, outside the timeline's lock, which
    // the sleeper borrows.
    advanceSynchronously(timeline, by: 5)
    #expect(timeline.wakeUps.areOutstanding, "the wake-up is counted until the task runs")
    try await sleep.value
    timeline.wakeUps.acknowledge()
    #expect(ended.values == ["woke"])
    #expect(!timeline.wakeUps.areOutstanding)
    #expect(timeline.pendingCount == 0)
  }

  @Test func cancellingTheSleepCancelsItsWakeUpAndAWakeUpAfterwardsCountsNothing() async {
    let timeline = makeTimeline()
    let sleeper = timeline.makeSleeper()
    let outcome = Log<String>()
    let installed = Flag()
    let sleep = Task {
      do {
        try await withUnsafeThrowingContinuation { continuation in
          guard sleeper.install(continuation) else { return }
          sleeper.hold(timeline.schedule(after: 5, interval: nil, at: location) { sleeper.wake() })
          installed.set()
        }
        outcome.append("woke")
      } catch {
        outcome.append("cancelled")
      }
    }
    while !installed.isSet { await Task.yield() }
    sleeper.cancel()
    await sleep.value
    #expect(outcome.values == ["cancelled"])
    #expect(timeline.pendingCount == 0, "the cancelled sleep's wake-up is no longer pending")
    sleeper.wake()
    #expect(!timeline.wakeUps.areOutstanding, "a wake-up of an ended sleep is not counted")
  }

  @Test func aHandleHeldAfterTheSleepEndedIsCancelledAtOnce() async {
    let timeline = makeTimeline()
    let sleeper = timeline.makeSleeper()
    let ran = Log<Int>()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Task {
        _ = try? await withUnsafeThrowingContinuation { continuation in
          _ = sleeper.install(continuation)
          sleeper.cancel()
        }
        done.resume()
      }
    }
    let handle = timeline.schedule(after: 1, interval: nil, at: location) { ran.append(1) }
    #expect(timeline.pendingCount == 1)
    sleeper.hold(handle)
    #expect(timeline.pendingCount == 0)
    advanceSynchronously(timeline, by: 1)
    #expect(ran.values.isEmpty)
  }

  @Test func aClosureHeldAfterTheSleepEndedIsCalledAtOnce() {
    let sleeper = Sleeper()
    sleeper.cancel()
    let called = Flag()
    sleeper.hold { called.set() }
    #expect(called.isSet)
  }
}
