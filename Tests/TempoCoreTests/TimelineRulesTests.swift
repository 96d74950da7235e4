import Foundation
import TempoTestHelpers
import Testing

@testable import TempoCore
@testable import TempoSchedulers

/// One test (or more) per rule of the virtual timeline, in the order the documentation gives them.
@Suite struct TimelineRulesTests {
  // MARK: Rule 1: `now` is the action's date; work scheduled on the way runs in the same advance

  @Test func nowIsSetToEachActionsDateBeforeItRuns() {
    let scheduler = DispatchQueue.test
    var seen: [UInt64] = []
    for seconds in [3, 1, 2] {
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(seconds))) {
        seen.append(scheduler.now.dispatchTime.uptimeNanoseconds)
      }
    }
    scheduler.advance(by: 10)
    #expect(seen == [1_000_000_001, 2_000_000_001, 3_000_000_001])
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 10_000_000_001)
  }

  @Test func workScheduledWhileAdvancingRunsInTheSameAdvanceWhenDue() {
    let scheduler = DispatchQueue.test
    var log: [String] = []
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) {
      log.append("first")
      scheduler.schedule(after: scheduler.now.advanced(by: 1)) { log.append("second") }
      scheduler.schedule(after: scheduler.now.advanced(by: 5)) { log.append("too late") }
    }
    scheduler.advance(by: 2)
    #expect(log == ["first", "second"])
    #expect(scheduler.pendingWorkCount == 1)
  }

  // MARK: Rule 2: ties run in scheduling order

  @Test func tiesRunInSchedulingOrder() {
    let scheduler = RunLoop.test
    var log: [Int] = []
    let date = scheduler.now.advanced(by: 1)
    for index in 0..<100 {
      scheduler.schedule(after: date) { log.append(index) }
    }
    scheduler.advance(by: 1)
    #expect(log == Array(0..<100))
  }

  @Test func aRepeatingActionKeepsItsFirstPlaceInTies() {
    let scheduler = DispatchQueue.test
    var log: [String] = []
    let timer = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) {
      log.append("timer")
    }
    // Scheduled after the timer, due at the timer's second tick.
    scheduler.schedule(after: scheduler.now.advanced(by: 2)) { log.append("one-shot") }
    scheduler.advance(by: 2)
    #expect(log == ["timer", "timer", "one-shot"])
    timer.cancel()
  }

  // MARK: Rule 3: time never runs backwards

  @Test func workDatedInThePastRunsAtTheCurrentTime() {
    let scheduler = DispatchQueue.test
    scheduler.advance(by: 10)
    var ranAt: UInt64?
    scheduler.schedule(after: scheduler.now.advanced(by: -5)) {
      ranAt = scheduler.now.dispatchTime.uptimeNanoseconds
    }
    #expect(scheduler.nextDueTime == scheduler.now)
    scheduler.advance()
    #expect(ranAt == 10_000_000_001)
  }

  @Test func advancingToAnEarlierInstantIsReportedAndRunsWhatIsDueNow() {
    let scheduler = DispatchQueue.test
    scheduler.advance(by: 10)
    let start = scheduler.now
    var ran = false
    scheduler.schedule { ran = true }
    expectIssues("before its current time") {
      scheduler.advance(to: start.advanced(by: -1))
    }
    #expect(ran)
    #expect(scheduler.now == start)
  }

  @Test func advancingByANegativeStrideIsReportedAndKeepsTheTime() {
    let scheduler = OperationQueue.test
    let start = scheduler.now
    expectIssues("a stride must be zero or more") {
      scheduler.advance(by: -1)
    }
    #expect(scheduler.now == start)
  }

  @Test func advancingByNaNIsReportedAndKeepsTheTime() {
    let scheduler = RunLoop.test
    let start = scheduler.now
    expectIssues("a stride must be zero or more") {
      scheduler.advance(by: .init(.nan))
    }
    #expect(scheduler.now == start)
  }

  @Test func advancingBeyondRepresentableTimeIsReportedAndKeepsTheTime() {
    let scheduler = DispatchQueue.test
    var ran = false
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) { ran = true }
    // Dispatch time saturates at its largest value, which then compares as both earlier and
    // later than any other time.
    expectIssues("cannot represent a later instant") {
      scheduler.advance(by: .nanoseconds(.max))
    }
    #expect(!ran)
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 1)
    scheduler.advance(by: 1)
    #expect(ran)
  }

  @Test func advancingByAnInfiniteStrideIsReportedAndKeepsTheTime() {
    let scheduler = RunLoop.test
    let start = scheduler.now
    expectIssues("cannot represent a later instant") {
      scheduler.advance(by: .init(.infinity))
    }
    #expect(scheduler.now == start)
  }

  @Test func workAtASaturatedDispatchTimeIsReportedAndNeverRuns() {
    let scheduler = DispatchQueue.test
    var ran = false
    expectIssues("cannot order against the current time") {
      scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(.max))) { ran = true }
    }
    #expect(scheduler.pendingWorkCount == 0)
    scheduler.advance(by: .seconds(1_000_000))
    #expect(!ran)
  }

  @Test func workDatedAtNaNIsReportedAndRunsNow() {
    let scheduler = RunLoop.test
    var ran = false
    expectIssues("not a valid date", "not a valid date") {
      scheduler.schedule(after: .init(Date(timeIntervalSinceReferenceDate: .nan))) { ran = true }
      scheduler.schedule(after: .init(Date(timeIntervalSinceReferenceDate: .infinity))) {}
    }
    scheduler.advance()
    #expect(ran)
    #expect(scheduler.now == RunLoop.test.now)
  }

  // MARK: Rule 4: a repeating interval of zero or less runs once

  @Test(arguments: [0, -1])
  func aRepeatingIntervalOfZeroOrLessIsReportedAndRunsOnce(seconds: Int) {
    let scheduler = DispatchQueue.test
    var count = 0
    var timer: (any Cancellable)?
    expectIssues("must be greater than zero") {
      timer = scheduler.schedule(after: scheduler.now, interval: .seconds(seconds)) { count += 1 }
    }
    scheduler.advance(by: 100)
    #expect(count == 1)
    #expect(scheduler.pendingWorkCount == 0)
    timer?.cancel()
  }

  @Test func aNaNIntervalIsReportedAndRunsOnce() {
    let scheduler = RunLoop.test
    var count = 0
    var timer: (any Cancellable)?
    expectIssues("must be greater than zero") {
      timer = scheduler.schedule(after: scheduler.now, interval: .init(.nan)) { count += 1 }
    }
    scheduler.advance(by: 100)
    #expect(count == 1)
    timer?.cancel()
  }

  @Test func anIntervalTooSmallToMoveTheDateStopsRepeating() {
    let scheduler = TestSchedulerOf<RunLoop>(now: .init(Date(timeIntervalSince1970: 1e9)))
    var count = 0
    var timer: (any Cancellable)?
    timer = scheduler.schedule(after: scheduler.now, interval: .init(1e-300)) { count += 1 }
    expectIssues("too small to move the date") {
      scheduler.advance(by: 1)
    }
    #expect(count == 1)
    #expect(scheduler.pendingWorkCount == 0)
    timer?.cancel()
  }

  // MARK: Rule 5: `run` always returns

  @Test func runDrainsFiniteWorkAndEndsAtTheLastDate() {
    let scheduler = DispatchQueue.test
    var log: [Int] = []
    for seconds in [5, 1, 1_000_000] {
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(seconds))) {
        log.append(seconds)
      }
    }
    scheduler.run()
    #expect(log == [1, 5, 1_000_000])
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 1_000_000_000_000_001)
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func runStopsEndlessWorkAndSaysWhatIsPending() {
    let scheduler = DispatchQueue.test
    var count = 0
    let timer = scheduler.schedule(after: scheduler.now, interval: 1) { count += 1 }
    expectIssues("stopped running after 1000 actions: 1 still pending, due at") {
      scheduler.run(limit: 1_000)
    }
    #expect(count == 1_000)
    timer.cancel()
  }

  @Test func runWithTheDefaultBoundStopsARunawayTimer() {
    let scheduler = DispatchQueue.test
    var count = 0
    let timer = scheduler.schedule(after: scheduler.now, interval: 1) { count += 1 }
    expectIssues("1 still pending, due at") {
      RunBudget.$realTimeLimit.withValue(.milliseconds(50)) { scheduler.run() }
    }
    #expect(count > 1)
    timer.cancel()
  }

  @Test func runFinishesWorkThatCancelsItself() {
    let scheduler = DispatchQueue.test
    var count = 0
    var timer: (any Cancellable)?
    timer = scheduler.schedule(after: scheduler.now, interval: 1) {
      count += 1
      if count == 10 { timer?.cancel() }
    }
    scheduler.run()
    #expect(count == 10)
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 9_000_000_001)
  }

  // MARK: Rule 6: thread safety and advancing from inside an action

  @Test func anActionThatAdvancesRunsTheWorkDueByItsOwnTarget() {
    let scheduler = DispatchQueue.test
    var log: [String] = []
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) {
      log.append("outer at 1")
      scheduler.advance(by: 2)
      log.append("outer resumes at \(scheduler.now.dispatchTime.uptimeNanoseconds / 1_000_000_000)")
    }
    scheduler.schedule(after: scheduler.now.advanced(by: 2)) { log.append("at 2") }
    scheduler.schedule(after: scheduler.now.advanced(by: 4)) { log.append("at 4") }
    scheduler.advance(by: 5)
    #expect(log == ["outer at 1", "at 2", "outer resumes at 3", "at 4"])
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 5_000_000_001)
  }

  @Test func concurrentSchedulingAndCancellingWhileAdvancing() {
    let scheduler = DispatchQueue.test
    let counts = Counts<DispatchQueue.SchedulerTimeType>(size: 8 * 1_000)
    DispatchQueue.concurrentPerform(iterations: 9) { worker in
      if worker == 8 {
        for _ in 0..<200 { scheduler.advance(by: .milliseconds(5)) }
        return
      }
      for index in 0..<1_000 {
        let id = worker * 1_000 + index
        let date = scheduler.now.advanced(by: .milliseconds(index % 50))
        if index % 4 == 0 {
          let timer = scheduler.schedule(after: date, interval: .seconds(1_000)) {
            counts.ran(id, at: scheduler.now, due: date)
          }
          timer.cancel()
        } else {
          scheduler.schedule(after: date) { counts.ran(id, at: scheduler.now, due: date) }
        }
      }
    }
    scheduler.advance(by: 60)
    #expect(counts.earlyRuns == 0, "an action ran before its date")
    for id in 0..<8_000 {
      // A cancelled timer may have fired once, if the advancing thread took it between its
      // scheduling and its cancellation; it never fires again.
      let expected = id % 1_000 % 4 == 0 ? 0...1 : 1...1
      #expect(expected.contains(counts.count(id)), "action \(id) ran \(counts.count(id)) times")
    }
    #expect(scheduler.pendingWorkCount == 0)
  }

  // MARK: Rule 7: inspecting what is left

  @Test func pendingWorkCanBeInspected() {
    let scheduler = DispatchQueue.test
    #expect(scheduler.pendingWorkCount == 0)
    #expect(scheduler.nextDueTime == nil)
    scheduler.schedule(after: scheduler.now.advanced(by: 3)) {}
    let timer = scheduler.schedule(after: scheduler.now.advanced(by: 2), interval: 1) {}
    #expect(scheduler.pendingWorkCount == 2)
    #expect(scheduler.nextDueTime == scheduler.now.advanced(by: 2))
    expectIssues("2 pending actions, due at") {
      scheduler.expectNoPendingWork()
    }
    timer.cancel()
    #expect(scheduler.pendingWorkCount == 1)
    #expect(scheduler.nextDueTime == scheduler.now.advanced(by: 3))
    scheduler.advance(by: 3)
    scheduler.expectNoPendingWork()
  }

  // MARK: Starting points and memory

  @Test func dispatchTimeSchedulersStartAtOneNanosecond() {
    #expect(DispatchQueue.test.now.dispatchTime.uptimeNanoseconds == 1)
    #expect(UIScheduler.test.now.dispatchTime.uptimeNanoseconds == 1)
    #expect(DispatchQueue.immediate.now.dispatchTime.uptimeNanoseconds == 1)
    #expect(RunLoop.test.now.date == Date(timeIntervalSince1970: 0))
    #expect(OperationQueue.test.now.date == Date(timeIntervalSince1970: 0))
  }

  @Test func cancellingReleasesTheClosureAtOnce() {
    let scheduler = DispatchQueue.test
    weak var weakBox: Box?
    var timer: (any Cancellable)?
    do {
      let box = Box()
      weakBox = box
      timer = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) {
        _ = box
      }
    }
    #expect(weakBox != nil)
    timer?.cancel()
    #expect(weakBox == nil)
  }

  @Test func manyCancellationsCompactThePendingWork() {
    let scheduler = DispatchQueue.test
    var ran = 0
    let timers = (0..<10_000).map { index in
      scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(index)), interval: 1) {
        ran += 1
      }
    }
    for timer in timers.dropFirst() { timer.cancel() }
    #expect(scheduler.pendingWorkCount == 1)
    scheduler.advance(by: 10)
    #expect(ran == 11)
    timers[0].cancel()
    #expect(scheduler.pendingWorkCount == 0)
  }
}

final class Box {}

@Suite struct MemoryTests {
  @Test func aSchedulerDeallocatedWithWorkPendingReleasesThatWork() {
    weak var weakScheduler: TestSchedulerOf<DispatchQueue>?
    weak var weakBox: Box?
    var timer: (any Cancellable)?
    do {
      let scheduler = DispatchQueue.test
      let box = Box()
      weakScheduler = scheduler
      weakBox = box
      scheduler.schedule(after: scheduler.now.advanced(by: 5)) { _ = box }
      timer = scheduler.schedule(after: scheduler.now, interval: 1) { _ = box }
    }
    #expect(weakScheduler == nil)
    #expect(weakBox == nil)
    timer?.cancel()  // cancelling after the scheduler is gone does nothing
  }

  @Test func aTimerPublisherDoesNotKeepItsSchedulerAlive() {
    weak var weakScheduler: TestSchedulerOf<DispatchQueue>?
    var cancellable: AnyCancellable?
    do {
      let scheduler = DispatchQueue.test
      weakScheduler = scheduler
      cancellable = Publishers.Timer(every: 1, scheduler: scheduler).autoconnect().sink { _ in }
      scheduler.advance(by: 3)
    }
    cancellable?.cancel()
    cancellable = nil
    #expect(weakScheduler == nil)
  }
}
