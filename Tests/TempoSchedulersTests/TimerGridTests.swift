import Foundation
import TempoClocks
import TempoTestHelpers
import Testing

@testable import TempoSchedulers

/// Repeats of a scheduler timer land on start + k × interval exactly, on a lone test scheduler and
/// on a shared timeline, however many of them there are: no rounding builds up from adding the
/// interval to a `Date` near 1970 again and again.
@Suite struct TimerGridTests {
  @Test func aRunLoopTimerOnASharedTimelineTicks600TimesIn60Seconds() {
    let time = TestTimeline()
    let runLoop = RunLoop.test(timeline: time)
    var ticks: [Duration] = []
    let timer = runLoop.schedule(
      after: runLoop.now.advanced(by: .milliseconds(100)), interval: .milliseconds(100)
    ) { ticks.append(time.now) }
    time.advance(by: .seconds(60))
    #expect(ticks.count == 600)
    #expect(ticks[20] == .milliseconds(2_100))
    #expect(ticks.last == .seconds(60))
    timer.cancel()
  }

  @Test func aLoneRunLoopTimerTicks600TimesIn60Seconds() {
    let runLoop = RunLoop.test
    let start = runLoop.now
    var ticks: [RunLoop.SchedulerTimeType] = []
    let timer = runLoop.schedule(
      after: start.advanced(by: .milliseconds(100)), interval: .milliseconds(100)
    ) { ticks.append(runLoop.now) }
    runLoop.advance(by: .seconds(60))
    #expect(ticks.count == 600)
    #expect(ticks[20] == start.advanced(by: .milliseconds(2_100)))
    #expect(ticks[20]._tempoElapsed == .milliseconds(2_100))
    timer.cancel()
  }

  @Test func anOperationQueueTimerOnASharedTimelinePutsTick11At550Milliseconds() {
    let time = TestTimeline()
    let operationQueue = OperationQueue.test(timeline: time)
    var ticks: [Duration] = []
    let timer = operationQueue.schedule(
      after: operationQueue.now.advanced(by: .milliseconds(50)), interval: .milliseconds(50)
    ) { ticks.append(time.now) }
    time.advance(by: .seconds(1))
    #expect(ticks.count == 20)
    #expect(ticks[10] == .microseconds(550_000))
    timer.cancel()
  }
}

/// An advance of zero never moves time, and runs the work due now, whichever member of a shared
/// timeline it is asked of, even when the shared time is finer than a member's dates.
@Suite struct SubMicrosecondTests {
  @Test func workScheduledOnARunLoopAt600NanosecondsRunsOnAnAdvanceOfZero() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    mainQueue.advance(by: .nanoseconds(600))
    var ran = false
    runLoop.schedule { ran = true }
    time.advance()
    #expect(ran)
    #expect(time.now == .nanoseconds(600))
  }

  @Test func anAdvanceOfZeroOnAnyMemberKeepsTheSharedTime() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let operationQueue = OperationQueue.test(timeline: time)
    mainQueue.advance(by: .nanoseconds(600))
    runLoop.advance()
    #expect(time.now == .nanoseconds(600))
    operationQueue.advance()
    #expect(time.now == .nanoseconds(600))
    runLoop.advance(to: runLoop.now)
    #expect(time.now == .nanoseconds(600))
    #expect(mainQueue.now.dispatchTime.uptimeNanoseconds == 601)
  }

  @Test func anAsyncAdvanceOfZeroOnAnyMemberKeepsTheSharedTime() async {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let clock = TestClock(timeline: time)
    await mainQueue.advance(by: .nanoseconds(600))
    await runLoop.advance()
    #expect(time.now == .nanoseconds(600))
    await clock.advance()
    #expect(time.now == .nanoseconds(600))
  }

  @Test func workDueNowOnEveryMemberRunsOnAnAdvanceOfZeroOfAnyOther() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let operationQueue = OperationQueue.test(timeline: time)
    mainQueue.advance(by: .nanoseconds(600))
    var log: [String] = []
    runLoop.schedule { log.append("run loop") }
    operationQueue.schedule { log.append("operation queue") }
    mainQueue.schedule { log.append("main queue") }
    operationQueue.advance()
    #expect(log == ["run loop", "operation queue", "main queue"])
    #expect(time.now == .nanoseconds(600))
  }
}
