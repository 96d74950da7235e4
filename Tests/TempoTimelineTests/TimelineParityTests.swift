import Foundation
import TempoClocks
import TempoTestHelpers
import Testing

@testable import TempoSchedulers

/// `TestScheduler`, `TestClock` and `TestTimeline` answer the same questions with the same names,
/// and the timeline can do what its sources can.
@Suite struct TimelineParityTests {
  @Test func aTimelineAdvancesToAnInstant() {
    let time = TestTimeline()
    let runLoop = RunLoop.test(timeline: time)
    var ranAt: Duration?
    runLoop.schedule(after: runLoop.now.advanced(by: 2)) { ranAt = time.now }
    time.advance(to: .seconds(1))
    #expect(ranAt == nil)
    #expect(time.now == .seconds(1))
    time.advance(to: .seconds(3))
    #expect(ranAt == .seconds(2))
    #expect(time.now == .seconds(3))
  }

  @Test func aTimelineAdvancesToAnInstantAsync() async {
    let time = TestTimeline()
    let clock = TestClock(timeline: time)
    await time.advance(to: .milliseconds(1_500))
    #expect(clock.now.offset == .milliseconds(1_500))
  }

  @Test func aTimelineReportsAnInstantInThePastAndKeepsItsTime() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    time.advance(by: .seconds(5))
    var ran = false
    mainQueue.schedule { ran = true }
    expectIssues("TestTimeline was asked to advance to 1.0 seconds, which is before") {
      time.advance(to: .seconds(1))
    }
    #expect(ran)
    #expect(time.now == .seconds(5))
  }

  @Test func aTimelineExpectsNoPendingWorkOnAnySource() {
    let time = TestTimeline()
    let runLoop = RunLoop.test(timeline: time)
    let mainQueue = DispatchQueue.test(timeline: time)
    time.expectNoPendingWork()
    runLoop.schedule(after: runLoop.now.advanced(by: .milliseconds(1_500))) {}
    mainQueue.schedule(after: mainQueue.now.advanced(by: .nanoseconds(600))) {}
    expectIssues(
      "TestTimeline has 2 pending actions or sleepers on its sources, due at 0.0000006 "
        + "seconds, 1.5 seconds (now is 0.0 seconds)."
    ) {
      time.expectNoPendingWork()
    }
    time.advance(by: .seconds(2))
    time.expectNoPendingWork()
  }

  @Test func theSameNamesOnEveryFront() async {
    let time = TestTimeline()
    let scheduler = DispatchQueue.test(timeline: time)
    let clock = TestClock(timeline: time)
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) {}
    let sleeper = Task { try? await clock.sleep(for: .seconds(2)) }
    await waitUntil { clock.pendingWorkCount == 1 }
    #expect(scheduler.pendingWorkCount == 1)
    #expect(time.pendingWorkCount == 2)
    #expect(scheduler.nextDueTime == scheduler.now.advanced(by: 1))
    #expect(clock.nextDueTime == clock.now.advanced(by: .seconds(2)))
    #expect(time.nextDueTime == .seconds(1))
    sleeper.cancel()
    await sleeper.value
    await scheduler.advance(by: 1)
    scheduler.expectNoPendingWork()
    clock.expectNoPendingWork()
    time.expectNoPendingWork()
  }
}
