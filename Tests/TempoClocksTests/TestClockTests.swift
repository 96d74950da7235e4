import TempoTestHelpers
import Testing

@testable import TempoClocks

@Suite struct TestClockTests {
  @Test func aSleeperResumesExactlyAtItsDeadline() async throws {
    let clock = TestClock()
    let task = Task {
      try await clock.sleep(for: .seconds(3))
      return clock.now
    }
    await waitUntil { clock.pendingWorkCount == 1 }
    await clock.advance(by: .seconds(2))
    #expect(clock.pendingWorkCount == 1)
    #expect(clock.nextDueTime == .init(offset: .seconds(3)))
    await clock.advance(by: .seconds(2))
    #expect(try await task.value == .init(offset: .seconds(3)))
    #expect(clock.now == .init(offset: .seconds(4)))
  }

  @Test func aReachedDeadlineReturnsAtOnceWithoutAnAdvance() async throws {
    let clock = TestClock<Duration>(now: .init(offset: .seconds(10)))
    try await clock.sleep(for: .zero)
    try await clock.sleep(until: .init(offset: .seconds(10)))
    try await clock.sleep(until: .init(offset: .seconds(1)))
    try await clock.sleep(for: .seconds(-5))
    #expect(clock.now == .init(offset: .seconds(10)))
    #expect(clock.pendingWorkCount == 0)
  }

  @Test func sleepersDueAtTheSameInstantResumeInTheOrderTheySlept() async {
    let clock = TestClock()
    let log = Log<Int>()
    for index in 0..<20 {
      Task {
        try await clock.sleep(until: .init(offset: .seconds(1)))
        log.append(index)
      }
      // Each sleeper is asleep before the next task starts.
      await waitUntil { clock.pendingWorkCount == index + 1 }
    }
    await clock.advance(by: .seconds(1))
    #expect(log.values == Array(0..<20))
  }

  @Test func aCancelledSleeperThrowsAtOnceAndLeavesNothingPending() async {
    let clock = TestClock()
    let task = Task { try await clock.sleep(for: .seconds(1)) }
    await waitUntil { clock.pendingWorkCount == 1 }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(clock.pendingWorkCount == 0)
    try? await clock.checkSuspension()
  }

  @Test func sleepingInACancelledTaskThrowsAtOnce() async {
    let clock = TestClock()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(clock.pendingWorkCount == 0)
  }

  @Test func advancingToAnEarlierInstantIsReportedAndKeepsTheTime() async {
    let clock = TestClock<Duration>(now: .init(offset: .seconds(5)))
    await expectIssues("before its current time") {
      await clock.advance(to: .init(offset: .seconds(1)))
    }
    #expect(clock.now == .init(offset: .seconds(5)))
    await expectIssues("a stride must be zero or more") {
      await clock.advance(by: .seconds(-1))
    }
    #expect(clock.now == .init(offset: .seconds(5)))
  }

  @Test func runReturnsAndNamesTheSleepersItCouldNotFinish() async {
    let clock = TestClock()
    let ticks = Log<Int>()
    let timer = Task {
      var count = 0
      for await _ in clock.timer(interval: .seconds(1)) {
        count += 1
        ticks.append(count)
      }
    }
    await waitUntil { clock.pendingWorkCount == 1 }
    await expectIssues("stopped running after 3 actions: 1 still pending, due at 4.0 seconds") {
      await clock.run(limit: 3)
    }
    #expect(ticks.values.count == 3)
    timer.cancel()
    await timer.value
  }

  @Test func checkSuspensionAndExpectNoPendingSleepersReportSleepers() async throws {
    let clock = TestClock()
    try await clock.checkSuspension()
    let task = Task { try await clock.sleep(for: .seconds(7)) }
    await waitUntil { clock.pendingWorkCount == 1 }
    await #expect(throws: SuspensionError.self) { try await clock.checkSuspension() }
    expectIssues("TestClock has 1 pending sleeper, due at 7.0 seconds") {
      clock.expectNoPendingWork()
    }
    await clock.run()
    try await task.value
    clock.expectNoPendingWork()
  }

  @Test func theStaticFactoriesMakeFreshClocks() async throws {
    func make<C: Clock>(_ clock: C) -> C { clock }
    let test = make(.test)
    let immediate = make(.immediate)
    #expect(test.now == .init())
    #expect(immediate.now == .init())
    #expect(test.minimumResolution == .zero)
  }
}

@Suite struct ImmediateClockTests {
  @Test func sleepingMovesNowToTheDeadlineAtOnce() async throws {
    let clock = ImmediateClock()
    try await clock.sleep(for: .seconds(5))
    #expect(clock.now == .init(offset: .seconds(5)))
    try await clock.sleep(until: .init(offset: .seconds(8)))
    #expect(clock.now == .init(offset: .seconds(8)))
  }

  @Test func sleepingUntilAnEarlierInstantNeverMovesNowBackwards() async throws {
    let clock = ImmediateClock<Duration>(now: .init(offset: .seconds(10)))
    try await clock.sleep(until: .init(offset: .seconds(3)))
    #expect(clock.now == .init(offset: .seconds(10)))
  }

  @Test func aCancelledTaskThrows() async {
    let clock = ImmediateClock()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await task.value }
  }

  @Test func aTimerOnAnImmediateClockTicksWithoutWaiting() async {
    let clock = ImmediateClock()
    var ticks: [ImmediateClock<Duration>.Instant] = []
    for await instant in clock.timer(interval: .seconds(2)) {
      ticks.append(instant)
      if ticks.count == 3 { break }
    }
    #expect(ticks.map(\.offset) == [.seconds(2), .seconds(4), .seconds(6)])
  }
}

@Suite struct UnimplementedClockTests {
  @Test func everyUseIsReportedAndForwardedToTheBase() async throws {
    let clock = UnimplementedClock(name: "feature.clock")
    try await expectIssues(
      "Unimplemented: feature.clock.now",
      "Unimplemented: feature.clock.minimumResolution",
      "Unimplemented: feature.clock.sleep"
    ) {
      _ = clock.now
      _ = clock.minimumResolution
      try await clock.sleep(
        until: .init(rawValue: AnyClock(ImmediateClock()).now.advanced(by: .seconds(1))))
    }
  }

  @Test func theFactoryNamesTheClock() async throws {
    let clock: UnimplementedClock<Duration> = .unimplemented("model.clock")
    expectIssues("Unimplemented: model.clock.now") {
      _ = clock.now
    }
  }

  @Test func wrappingATestClockKeepsItsTime() async throws {
    let base = TestClock()
    let clock = UnimplementedClock(base, name: "wrapped")
    expectIssues("Unimplemented: wrapped.now") {
      _ = clock.now
    }
    #expect(base.pendingWorkCount == 0)
  }
}

@Suite struct AnyClockTests {
  @Test func anErasedTestClockFollowsTheTestClock() async throws {
    let test = TestClock<Duration>(now: .init(offset: .seconds(100)))
    let clock = AnyClock(test)
    #expect(clock.now.duration(to: clock.now) == .zero)
    let start = clock.now
    let task = Task { try await clock.sleep(until: start.advanced(by: .seconds(2))) }
    await waitUntil { test.pendingWorkCount == 1 }
    await test.advance(by: .seconds(1))
    #expect(test.pendingWorkCount == 1)
    await test.advance(by: .seconds(1))
    try await task.value
    #expect(start.duration(to: clock.now) == .seconds(2))
    #expect(clock.minimumResolution == .zero)
  }
}

@Suite struct ClockTimerTests {
  @Test func ticksAtFixedInstantsOnATestClock() async {
    let clock = TestClock()
    let ticks = Log<Duration>()
    let task = Task {
      for await instant in clock.timer(interval: .milliseconds(250)) {
        ticks.append(instant.offset)
      }
    }
    await waitUntil { clock.pendingWorkCount == 1 }
    await clock.advance(by: .seconds(1))
    #expect(
      ticks.values == [.milliseconds(250), .milliseconds(500), .milliseconds(750), .seconds(1)])
    task.cancel()
    await task.value
    #expect(clock.pendingWorkCount == 0)
  }

  @Test func aLateConsumerGetsTheNextInstantOnTheGridWithoutABurst() async throws {
    let clock = ImmediateClock()
    var ticks: [Duration] = []
    for await instant in clock.timer(interval: .seconds(1)) {
      ticks.append(instant.offset)
      if ticks.count == 3 { break }
      try await clock.sleep(for: .milliseconds(2_500))  // misses the next two instants
    }
    #expect(ticks == [.seconds(1), .seconds(4), .seconds(7)])
  }

  @Test func aTimerRunsOnAClockHeldAsAnExistential() async throws {
    let immediate = ImmediateClock()
    let clock: any Clock<Duration> = immediate
    var ticks: [Duration] = []
    for await _ in clock.timer(interval: .seconds(2)) {
      ticks.append(immediate.now.offset)
      if ticks.count == 2 {
        try await immediate.sleep(for: .seconds(5))  // late: the instants 4 s and 6 s pass
      }
      if ticks.count == 3 { break }
    }
    #expect(ticks == [.seconds(2), .seconds(4), .seconds(10)])
  }

  @Test func aTimerOnAnExistentialTestClockTicksAtFixedInstants() async {
    let test = TestClock()
    let clock: any Clock<Duration> = test
    let ticks = Log<Duration>()
    let task = Task {
      for await _ in clock.timer(interval: .milliseconds(500)) {
        ticks.append(test.now.offset)
      }
    }
    await waitUntil { test.pendingWorkCount == 1 }
    await test.advance(by: .seconds(1))
    #expect(ticks.values == [.milliseconds(500), .seconds(1)])
    task.cancel()
    await task.value
  }

  @Test func aTimerWithoutAPositiveIntervalIsReportedAndEnds() async {
    let clock = TestClock()
    await expectIssues("must be greater than zero") {
      var count = 0
      for await _ in clock.timer(interval: .zero) { count += 1 }
      #expect(count == 0)
    }
  }
}
