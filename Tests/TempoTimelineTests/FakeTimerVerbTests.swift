import Foundation
import TempoClocks
import TempoSchedulers
import TempoTestHelpers
import Testing

// The verbs users of fake timers expect, each against its definition, on every front, sync and
// async:
// - advanceToNextDueTime(): time moves to the earliest pending due time, and exactly the work
//   due then runs (Jest's advanceTimersToNextTimer);
// - runPending(): time moves to the latest due time pending at the call, and work scheduled
//   later than that stays pending (sinon's runToLast, Jest's runOnlyPendingTimers);
// - advance(): the work due now runs, and time does not move (kotlinx's runCurrent);
// - pendingWorkDescription: each pending item's due time and source.

/// Reconnects after 1 s, 2 s and 4 s, recording the clock's time at each attempt.
private actor Reconnector {
  var attempts: [Duration] = []

  func run(clock: TestClock<Duration>) async {
    for delay in [1, 2, 4] {
      try? await clock.sleep(for: .seconds(delay))
      attempts.append(clock.now.offset)
    }
  }
}

@Suite struct AdvanceToNextDueTimeTests {
  @Test func aClockMovesToEachDeadlineInTurn() async {
    let clock = TestClock()
    let reconnector = Reconnector()
    let task = Task { await reconnector.run(clock: clock) }
    await clock.advanceToNextDueTime()
    #expect(clock.now.offset == .seconds(1))
    #expect(await reconnector.attempts == [.seconds(1)])
    await clock.advanceToNextDueTime()
    #expect(clock.now.offset == .seconds(3))
    await clock.advanceToNextDueTime()
    #expect(clock.now.offset == .seconds(7))
    await task.value
    #expect(await reconnector.attempts == [.seconds(1), .seconds(3), .seconds(7)])
    // Nothing pending: time stays.
    await clock.advanceToNextDueTime()
    #expect(clock.now.offset == .seconds(7))
  }

  @Test func aSchedulerRunsEverythingDueAtTheNextDateAndNothingLater() {
    let scheduler = DispatchQueue.test
    let ran = Log<String>()
    for (name, seconds) in [("a", 1), ("b", 2), ("c", 2), ("d", 5)] {
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(seconds))) {
        ran.append(name)
        // Work scheduled for the same instant runs in the same step.
        if name == "b" { scheduler.schedule { ran.append("b+0") } }
      }
    }
    scheduler.advanceToNextDueTime()
    #expect(ran.values == ["a"])
    #expect(scheduler.now == .init(.init(uptimeNanoseconds: 1_000_000_001)))
    scheduler.advanceToNextDueTime()
    #expect(ran.values == ["a", "b", "c", "b+0"])
    #expect(scheduler.now == .init(.init(uptimeNanoseconds: 2_000_000_001)))
    scheduler.advanceToNextDueTime()
    #expect(ran.values == ["a", "b", "c", "b+0", "d"])
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func aSchedulerWaitsForTheWorkStartedBeforeReadingTheNextDate() async {
    let scheduler = DispatchQueue.test
    let woke = Log<Int>()
    // The task has not slept yet when the advance starts: the advance lets it.
    let task = Task {
      try? await scheduler.sleep(for: .seconds(2))
      woke.append(2)
    }
    await scheduler.advanceToNextDueTime()
    #expect(woke.values == [2])
    #expect(scheduler.now == .init(.init(uptimeNanoseconds: 2_000_000_001)))
    await task.value
  }

  @Test func aTimelineTakesTheEarliestOfEverySource() async {
    let time = TestTimeline()
    let clock = TestClock(timeline: time)
    let scheduler = DispatchQueue.test(timeline: time)
    let ran = Log<String>()
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(3))) { ran.append("scheduler") }
    let task = Task {
      try? await clock.sleep(for: .seconds(2))
      ran.append("clock")
    }
    await time.advanceToNextDueTime()
    #expect(time.now == .seconds(2))
    #expect(ran.values == ["clock"])
    await time.advanceToNextDueTime()
    #expect(time.now == .seconds(3))
    #expect(ran.values == ["clock", "scheduler"])
    await task.value
  }
}

@Suite struct RunPendingTests {
  @Test func aClockRunsToTheLastDeadlinePendingAndLeavesWhatComesAfter() async {
    let clock = TestClock()
    let ticks = Log<Duration>()
    let timer = Task {
      while !Task.isCancelled {
        do { try await clock.sleep(for: .seconds(1)) } catch { return }
        ticks.append(clock.now.offset)
      }
    }
    let hint = Task { try? await clock.sleep(for: .seconds(5)) }
    await clock.runPending()
    #expect(clock.now.offset == .seconds(5))
    #expect(ticks.values == [.seconds(1), .seconds(2), .seconds(3), .seconds(4), .seconds(5)])
    // The timer sleeps on, until 6 s; a task that sleeps in a loop did not keep it running.
    #expect(clock.pendingWorkCount == 1)
    #expect(clock.nextDueTime?.offset == .seconds(6))
    await hint.value
    timer.cancel()
    await timer.value
  }

  @Test func aSchedulerRunsARepeatingTimerUpToTheLastPendingDate() {
    let scheduler = DispatchQueue.test
    let ran = Log<String>()
    let timer = scheduler.schedule(
      after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(1)
    ) { ran.append("tick") }
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(3))) {
      ran.append("hint")
      // Scheduled later than the last pending date: stays pending.
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(10))) { ran.append("later") }
    }
    scheduler.runPending()
    #expect(ran.values == ["tick", "tick", "tick", "hint"])
    #expect(scheduler.now == .init(.init(uptimeNanoseconds: 3_000_000_001)))
    #expect(scheduler.pendingWorkCount == 2)
    timer.cancel()
    scheduler.run()
    #expect(ran.values.last == "later")
  }

  @Test func workScheduledByThePendingWorkRunsIfDueByTheLastDate() async {
    let scheduler = RunLoop.test
    let ran = Log<String>()
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) {
      ran.append("first")
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { ran.append("nested") }
    }
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(4))) { ran.append("last") }
    await scheduler.runPending()
    #expect(ran.values == ["first", "nested", "last"])
  }

  @Test func aTimelineRunsEverySourceToTheLastPendingDate() {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    let ran = Log<String>()
    mainQueue.schedule(after: mainQueue.now.advanced(by: .seconds(2))) { ran.append("queue") }
    runLoop.schedule(after: runLoop.now.advanced(by: .seconds(4))) {
      ran.append("loop")
      mainQueue.schedule(after: mainQueue.now.advanced(by: .seconds(1))) { ran.append("after") }
    }
    time.runPending()
    #expect(ran.values == ["queue", "loop"])
    #expect(time.now == .seconds(4))
    #expect(time.pendingWorkCount == 1)
  }

  @Test func nothingPendingMovesNoTime() async {
    let clock = TestClock()
    await clock.runPending()
    #expect(clock.now.offset == .zero)
  }

  @Test func nothingPendingMovesNoTimeOnAScheduler() {
    let scheduler = DispatchQueue.test
    scheduler.runPending()
    scheduler.advanceToNextDueTime()
    #expect(scheduler.now == .init(.init(uptimeNanoseconds: 1)))
  }
}

@Suite struct RunCurrentTests {
  @Test func advancingByZeroRunsWhatIsDueNowAndMovesNoTime() {
    let scheduler = DispatchQueue.test
    let ran = Log<String>()
    scheduler.schedule { ran.append("now") }
    scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(1))) { ran.append("later") }
    scheduler.advance()
    #expect(ran.values == ["now"])
    #expect(scheduler.now == .init(.init(uptimeNanoseconds: 1)))
  }

  @Test func advancingAClockByZeroLetsStartedWorkRunAndMovesNoTime() async {
    let clock = TestClock()
    let started = Log<String>()
    let task = Task {
      started.append("started")
      try? await clock.sleep(for: .seconds(1))
    }
    await clock.advance()
    #expect(started.values == ["started"])
    #expect(clock.now.offset == .zero)
    #expect(clock.pendingWorkCount == 1)
    await clock.advance(by: .seconds(1))
    await task.value
  }
}

@Suite struct PendingWorkDescriptionTests {
  @Test func aClockListsEachSleeperWithItsDueTimeAndSource() async {
    let clock = TestClock<Duration>(now: .init())
    let line = #line - 1
    let tasks = [3, 1].map { seconds in
      Task { try? await clock.sleep(for: .seconds(seconds)) }
    }
    await clock.advance()
    let source = "TestClock created at TempoTimelineTests/FakeTimerVerbTests.swift:\(line)"
    #expect(
      clock.pendingWorkDescription == """
        \(source) has 2 pending (now is 0.0 seconds):
        - due at 1.0 seconds on \(source)
        - due at 3.0 seconds on \(source)
        """)
    await clock.run()
    #expect(clock.pendingWorkDescription == "\(source) has nothing pending (now is 3.0 seconds).")
    for task in tasks { await task.value }
    // `TestClock()` cannot know its caller's line (it stays ambiguous beside swift-clocks').
    #expect(
      TestClock().pendingWorkDescription == "TestClock has nothing pending (now is 0.0 seconds).")
  }

  @Test func aSchedulerNamesRepeatingWorkAndAFactoryProperty() {
    let scheduler = DispatchQueue.test
    let timer = scheduler.schedule(
      after: scheduler.now.advanced(by: .seconds(1)), interval: .milliseconds(500)
    ) {}
    let description = scheduler.pendingWorkDescription
    #expect(description.hasPrefix("TestScheduler (DispatchQueue.test) has 1 pending"))
    #expect(description.contains("repeating every 0.5 seconds"))
    timer.cancel()
  }

  @Test func aTimelineListsEverySourceInTheOrderTheyRun() async {
    let time = TestTimeline()
    let timelineLine = #line - 1
    let clock = TestClock(timeline: time)
    let clockLine = #line - 1
    let scheduler = DispatchQueue.test(timeline: time)
    let schedulerLine = #line - 1
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) {}
    let task = Task { try? await clock.sleep(for: .seconds(1)) }
    await time.advance()
    let file = "TempoTimelineTests/FakeTimerVerbTests.swift"
    #expect(
      time.pendingWorkDescription == """
        TestTimeline created at \(file):\(timelineLine) has 2 pending (now is 0.0 seconds):
        - due at 1.0 seconds on TestClock created at \(file):\(clockLine)
        - due at 2.0 seconds on TestScheduler created at \(file):\(schedulerLine)
        """)
    await time.run()
    await task.value
  }

  @Test func aLongListEndsWithHowManyMore() {
    let scheduler = DispatchQueue.test
    for seconds in 1...25 {
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(seconds))) {}
    }
    let lines = scheduler.pendingWorkDescription.split(separator: "\n")
    #expect(lines.count == 22)
    #expect(lines.last == "- and 5 more")
    scheduler.run()
  }
}
