import TempoCore
import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoClocks
@testable import TempoSchedulers

/// The exact text of every misuse issue in the article "Misuse and the issues it reports", and
/// the line it points at: the user's.
@Suite struct MisuseMessageTests {
  static let start = "0.0 seconds since the scheduler's start"

  @Test func advancingByANegativeStride() {
    let scheduler = DispatchQueue.test
    let line = #line + 1
    let issues = reported { scheduler.advance(by: -1) }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to advance by -1.0 seconds, but a stride must be zero or "
            + "more: time cannot run backwards. It ran the work due now and stayed at "
            + "\(Self.start).", line: line)
      ])
  }

  @Test func advancingByNaN() {
    let scheduler = RunLoop.test
    let line = #line + 1
    let issues = reported { scheduler.advance(by: .init(.nan)) }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to advance by nan seconds, but a stride must be zero or "
            + "more: time cannot run backwards. It ran the work due now and stayed at "
            + "\(Self.start).", line: line)
      ])
  }

  @Test func advancingToAnEarlierInstant() {
    let scheduler = RunLoop.test
    scheduler.advance(by: 2)
    let line = #line + 1
    let issues = reported { scheduler.advance(to: scheduler.now.advanced(by: -1.5)) }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to advance to 0.5 seconds since the scheduler's start, which "
            + "is before its current time 2.0 seconds since the scheduler's start. Time cannot "
            + "run backwards: it ran the work due now and stayed at 2.0 seconds since the "
            + "scheduler's start.", line: line)
      ])
  }

  /// `Publishers.Timer` schedules through Combine's `schedule(after:interval:…)`, which takes
  /// no source location (nor can the timer's initializer: with combine-schedulers in sight, an
  /// initializer with more parameters would lose to theirs), so the issue points at the line
  /// that created the scheduler.
  @Test func aRepeatingIntervalOfZeroOnATimerPointsAtTheSchedulersCreation() {
    let scheduler = DispatchQueue.test(timeline: TestTimeline())
    let line = #line - 1
    let timer = Publishers.Timer(every: 0, scheduler: scheduler)
    let issues = reported { _ = timer.connect() }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to repeat work every 0.0 seconds. A repeating interval must "
            + "be greater than zero, so the work runs once and does not repeat.", line: line)
      ])
  }

  @Test func aRepeatingIntervalOfZeroPointsAtTheSchedulersCreation() {
    let scheduler = DispatchQueue.test(timeline: TestTimeline())
    let line = #line - 1
    let issues = reported { _ = scheduler.schedule(after: scheduler.now, interval: 0) {} }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to repeat work every 0.0 seconds. A repeating interval must "
            + "be greater than zero, so the work runs once and does not repeat.", line: line)
      ])
  }

  /// `DispatchQueue.test` is a property: the issue cannot point at the line that read it, and
  /// says what to write instead.
  @Test func aRepeatingIntervalOfZeroOnTheTestPropertySaysHowToPointAtALine() {
    let scheduler = DispatchQueue.test
    let issues = reported { _ = scheduler.schedule(after: scheduler.now, interval: 0) {} }
    #expect(issues.map(\.file) == ["Factories.swift"])
    #expect(
      issues.map(\.message) == [
        "TestScheduler was asked to repeat work every 0.0 seconds. A repeating interval must "
          + "be greater than zero, so the work runs once and does not repeat. "
          + "(`DispatchQueue.test` is a property, which cannot know the line that read it: "
          + "create the scheduler with `DispatchQueue.test(timeline: TestTimeline())` to have "
          + "this issue point at that line.)"
      ])
  }

  @Test func anIntervalTooSmallToMoveTheDate() {
    let scheduler = TestSchedulerOf<RunLoop>(now: .init(Date(timeIntervalSince1970: 1e9)))
    let timer = scheduler.schedule(after: scheduler.now, interval: .init(1e-300)) {}
    let line = #line + 1
    let issues = reported { scheduler.advance(by: 1) }
    #expect(
      issues == [
        Reported(
          "TestScheduler could not repeat work every 1e-300 seconds after 1000000000.0 seconds "
            + "since the scheduler's start: the interval is too small to move the date, so the "
            + "work stopped repeating.", line: line)
      ])
    timer.cancel()
  }

  @Test func advancingPastWhatTheTimeTypeCanRepresent() {
    let scheduler = RunLoop.test
    let line = #line + 1
    let issues = reported { scheduler.advance(by: .init(.infinity)) }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to advance by inf seconds from \(Self.start), but its time "
            + "type cannot represent a later instant (it saturates, overflows or becomes "
            + "infinite there). It ran the work due now and stayed at \(Self.start).", line: line)
      ])
  }

  @Test func workDatedAtNaN() {
    let scheduler = RunLoop.test(timeline: TestTimeline())
    let line = #line - 1
    let issues = reported {
      scheduler.schedule(after: .init(Date(timeIntervalSinceReferenceDate: .nan))) {}
    }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to schedule work at a date that is not a valid date (not "
            + "equal to itself, like one made from NaN or infinity). It was scheduled at the "
            + "current time instead.", line: line)
      ])
  }

  @Test func workAtASaturatedDispatchTime() {
    let scheduler = DispatchQueue.test(timeline: TestTimeline())
    let line = #line - 1
    let issues = reported {
      scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(.max))) {}
    }
    #expect(
      issues == [
        Reported(
          "TestScheduler was asked to schedule work at 9223372036.854776 seconds since the "
            + "scheduler's start, which its time type cannot order against the current time (it "
            + "compares as both earlier and later, as saturated Dispatch times do). The work "
            + "will never run.", line: line)
      ])
  }

  @Test func runWithEndlessWork() {
    let scheduler = DispatchQueue.test
    let timer = scheduler.schedule(after: scheduler.now, interval: 1) {}
    let line = #line + 1
    let issues = reported { scheduler.run(limit: 10) }
    #expect(
      issues == [
        Reported(
          "TestScheduler stopped running after 10 actions: 1 still pending, due at 10.0 seconds "
            + "since the scheduler's start (now is 9.0 seconds since the scheduler's start). "
            + "Work that keeps rescheduling itself, like a repeating timer or a task that sleeps "
            + "in a loop, never runs out; cancel it first, or advance to a specific time "
            + "instead.", line: line)
      ])
    timer.cancel()
  }

  @Test func workLeftPending() {
    let scheduler = DispatchQueue.test
    scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(1_500))) {}
    let line = #line + 1
    let issues = reported { scheduler.expectNoPendingWork() }
    #expect(
      issues == [
        Reported(
          "TestScheduler has 1 pending action, due at 1.5 seconds since the scheduler's start "
            + "(now is \(Self.start)).", line: line)
      ])
  }

  @Test func usingAnUnimplementedScheduler() {
    let scheduler = AnySchedulerOf<DispatchQueue>.unimplemented("mainQueue")
    let line = #line - 1
    let issues = reported {
      scheduler.schedule(after: scheduler.now.advanced(by: 2)) {}
    }
    let tail =
      " This scheduler stands in for code that should not use a scheduler; give the feature a "
      + "test or immediate scheduler if it is meant to."
    #expect(
      issues == [
        Reported(
          "Unimplemented scheduler: mainQueue - A scheduler's current time was read." + tail,
          line: line),
        Reported(
          "Unimplemented scheduler: mainQueue - A scheduler's minimum tolerance was read." + tail,
          line: line),
        Reported(
          "Unimplemented scheduler: mainQueue - An action was scheduled after 2.0 seconds since "
            + "the scheduler's start." + tail, line: line),
      ])
  }

  @Test func usingAnUnimplementedSchedulerFromAProperty() {
    let scheduler = AnySchedulerOf<DispatchQueue>.unimplemented
    let issues = reported { _ = scheduler.now }
    #expect(issues.map(\.file) == ["UnimplementedScheduler.swift"])
    #expect(
      issues.map(\.message) == [
        "Unimplemented scheduler - A scheduler's current time was read. This scheduler stands "
          + "in for code that should not use a scheduler; give the feature a test or immediate "
          + "scheduler if it is meant to. (It was created by a factory that cannot know the line "
          + "that called it; `AnySchedulerOf<…>.unimplemented(\"name\")` or "
          + "`UnimplementedScheduler(\"name\", now:)` points its issues at the line that creates "
          + "it.)"
      ])
  }

  @Test func advancingAClockBackwards() async {
    let clock = TestClock()
    let line = #line + 1
    let issues = await reported { await clock.advance(by: .seconds(-1)) }
    #expect(
      issues == [
        Reported(
          "TestClock was asked to advance by -1.0 seconds, but a stride must be zero or more: "
            + "time cannot run backwards. It ran the work due now and stayed at 0.0 seconds.",
          line: line)
      ])
  }

  @Test func advancingAClockToAnEarlierInstant() async {
    let clock = TestClock()
    let line = #line + 1
    let issues = await reported { await clock.advance(to: .init(offset: .seconds(-1))) }
    #expect(
      issues == [
        Reported(
          "TestClock was asked to advance to -1.0 seconds, which is before its current time "
            + "0.0 seconds. Time cannot run backwards: it ran the work due now and stayed at "
            + "0.0 seconds.", line: line)
      ])
  }

  @Test func runningAClockWithATimerNobodyStops() async {
    let clock = TestClock()
    let timer = Task { for await _ in clock.timer(interval: .seconds(1)) {} }
    await waitUntil { clock.pendingWorkCount == 1 }
    let line = #line + 1
    let issues = await reported { await clock.run(limit: 3) }
    #expect(
      issues == [
        Reported(
          "TestClock stopped running after 3 actions: 1 still pending, due at 4.0 seconds (now "
            + "is 3.0 seconds). Work that keeps rescheduling itself, like a repeating timer or a "
            + "task that sleeps in a loop, never runs out; cancel it first, or advance to a "
            + "specific time instead.",
          line: line)
      ])
    timer.cancel()
    await timer.value
  }

  @Test func aClockTimerWithoutAPositiveInterval() async {
    let clock = TestClock()
    let line = #line + 1
    let issues = await reported { for await _ in clock.timer(interval: .zero) {} }
    #expect(
      issues == [
        Reported(
          "A clock timer was asked to tick every 0.0 seconds. The interval must be greater than "
            + "zero, so the timer ends at once.", line: line)
      ])
  }

  @Test func usingAnUnimplementedClock() {
    let clock: UnimplementedClock<Duration> = .unimplemented("feature.clock")
    let line = #line - 1
    let issues = reported { _ = clock.now }
    #expect(
      issues == [
        Reported(
          "Unimplemented: feature.clock.now - this clock stands in for code that should not use "
            + "a clock; give the feature a test or immediate clock if it is meant to.", line: line)
      ])
  }

  @Test func theHintForAMissingTestSupportNamesTempoTestSupport() {
    #expect(testSupportHint == "")  // this test target links it
    #expect(TestSupportLink.hint.contains("`TempoTestSupport`"))
  }
}

/// An issue as the user sees it: its text and the file and line it points at.
struct Reported: Equatable, CustomStringConvertible {
  var message: String
  var file: String
  var line: Int

  init(_ message: String, file: String = "MisuseMessageTests.swift", line: Int) {
    self.message = message
    self.file = file
    self.line = line
  }

  var description: String { "\(file):\(line): \(message)" }
}

/// The issues `body` reports, in order.
func reported(_ body: () -> Void) -> [Reported] {
  let issues = Log<Reported>()
  withKnownIssue(isIntermittent: true) {
    body()
  } matching: { issue in
    issues.append(Reported(issue))
    return true
  }
  return issues.values
}

/// The issues async `body` reports, in order.
func reported(_ body: () async -> Void) async -> [Reported] {
  let issues = Log<Reported>()
  await withKnownIssue(isIntermittent: true) {
    await body()
  } matching: { issue in
    issues.append(Reported(issue))
    return true
  }
  return issues.values
}

extension Reported {
  init(_ issue: Issue) {
    self.init(
      issue.comments.map(\.rawValue).joined(separator: "\n"),
      file: issue.sourceLocation?.fileName ?? "?", line: issue.sourceLocation?.line ?? 0)
  }
}
