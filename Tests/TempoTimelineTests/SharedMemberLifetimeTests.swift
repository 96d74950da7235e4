import Foundation
import TempoClocks
import TempoTestHelpers
import Testing

@testable import TempoSchedulers

/// A source of a shared timeline that the test lets go of keeps its pending work: the timeline
/// keeps it alive until that work has run or been cancelled. Nothing is kept once nothing can
/// advance the timeline any more.
@Suite struct SharedMemberLifetimeTests {
  @Test func workOnASourceTheTestLetGoOfStillRuns() {
    let time = TestTimeline()
    var ran = false
    scheduleOnATemporaryRunLoop(time, after: 1) { ran = true }
    #expect(time.pendingWorkCount == 1)
    time.advance(by: .seconds(1))
    #expect(ran)
    #expect(time.pendingWorkCount == 0)
  }

  @Test func aRepeatingTimerOfASourceTheTestLetGoOfTicksUntilItsCancellableIsCancelled() {
    let time = TestTimeline()
    var ticks = 0
    let cancellable = repeatOnATemporaryOperationQueue(time, every: 1) { ticks += 1 }
    time.advance(by: .seconds(3))
    #expect(ticks == 3)
    cancellable.cancel()
    time.advance(by: .seconds(3))
    #expect(ticks == 3)
    #expect(time.pendingWorkCount == 0)
  }

  @Test func anotherSourceAdvancesTheWorkOfOneTheTestLetGoOfAfterTheTimelineIsGone() {
    var ran = false
    let mainQueue = makeMainQueueOnATimelineWithWorkOnAnotherSource { ran = true }
    mainQueue.advance(by: .seconds(1))
    #expect(ran)
  }

  @Test func nothingIsKeptOnceNothingCanAdvanceTheTimeline() {
    weak var token: Token?
    do {
      let time = TestTimeline()
      let runLoop = RunLoop.test(timeline: time)
      let captured = Token()
      token = captured
      runLoop.schedule(after: runLoop.now.advanced(by: 1)) { _ = captured }
      let timer = runLoop.schedule(after: runLoop.now.advanced(by: 1), interval: 1) {
        _ = captured
      }
      _ = timer
    }
    #expect(token == nil, "pending work of a timeline nobody can advance was kept alive")
  }

  private func scheduleOnATemporaryRunLoop(
    _ time: TestTimeline, after seconds: Int, _ action: @escaping () -> Void
  ) {
    let runLoop = RunLoop.test(timeline: time)
    runLoop.schedule(after: runLoop.now.advanced(by: .seconds(seconds)), action)
  }

  private func repeatOnATemporaryOperationQueue(
    _ time: TestTimeline, every seconds: Int, _ action: @escaping () -> Void
  ) -> any Cancellable {
    let operationQueue = OperationQueue.test(timeline: time)
    return operationQueue.schedule(
      after: operationQueue.now.advanced(by: .seconds(seconds)),
      interval: .seconds(seconds), action)
  }

  private func makeMainQueueOnATimelineWithWorkOnAnotherSource(
    _ action: @escaping () -> Void
  ) -> TestSchedulerOf<DispatchQueue> {
    let time = TestTimeline()
    let runLoop = RunLoop.test(timeline: time)
    runLoop.schedule(after: runLoop.now.advanced(by: 1), action)
    return DispatchQueue.test(timeline: time)
  }
}

private final class Token {}
