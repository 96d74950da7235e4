public import Foundation
package import TempoCore
import TempoExecutor
import TempoSupport

/// One virtual time shared by several test clocks and test schedulers: a single `advance`
/// runs the due work of all of them, in one order.
///
/// Real features mix time sources — a debounce on the main queue, a delay on a run loop, a sleep
/// on a clock. Give each its stand-in from the same timeline, and the test advances them
/// together and sees exactly how their work interleaves:
///
/// ```swift
/// import TempoClocks
/// import TempoSchedulers
///
/// let time = TestTimeline()
/// let mainQueue = DispatchQueue.test(timeline: time)
/// let runLoop = RunLoop.test(timeline: time)
/// let clock = TestClock(timeline: time)
///
/// let model = SearchModel(mainQueue: mainQueue, runLoop: runLoop, clock: clock)
/// model.queryChanged("tempo")
/// await time.advance(by: .seconds(1))   // or advance any one of them: the same thing
/// ```
///
/// The timeline rules hold across sources: work runs in date order and, at the same date, in
/// the order it was scheduled, whichever source it was scheduled on; while any of it runs, each
/// source's `now` is the shared time in its own type (a clock's instant offset, a dispatch
/// time's uptime, a run loop's date — each counted from its own start); advancing any source
/// advances all of them; `run()` always returns. The timeline keeps a source alive while it has
/// pending work, so work scheduled on a source that the test no longer holds still runs.
///
/// It answers what is left with the same names as its sources: ``pendingWorkCount``,
/// ``nextDueTime`` and ``expectNoPendingWork(fileID:filePath:line:column:)``.
///
/// - Complexity: running an action is O(m + log n) for m sources and n pending actions.
public final class TestTimeline: Sendable {
  // Invariant: the only state is `shared`, which guards itself with a lock, and `owner`, which
  // is immutable.
  package let shared = SharedTimeline(scope: ImplicitScope())
  private let owner: SharedTimeline.Owner

  /// Creates a timeline at time zero.
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// ```
  public init(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    owner = SharedTimeline.Owner(shared)
    shared.setCreation(
      SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// The time since the timeline began.
  public var now: Duration { shared.now }

  /// The wall-clock date: the date the timeline began at (the 1970 epoch unless set with
  /// ``setDate(_:)``) plus the virtual time since. Every source made on the timeline reads the
  /// same date (`TestClock.date`, `TestScheduler.date`).
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// time.setDate(Date(timeIntervalSince1970: 1_800_000_000))
  /// await time.advance(by: .seconds(90))
  /// time.date   // 1_800_000_090 seconds after 1970
  /// ```
  public var date: Date { Date(tempoSince1970: shared.wallDate) }

  /// Sets the wall-clock date of the timeline and of all its sources, as a device whose clock is
  /// changed: no virtual time passes and nothing runs. Later advances move the date on from
  /// there. A date before the current one is allowed: wall clocks do go back.
  public func setDate(_ date: Date) {
    shared.setWallDate(date.tempoSince1970)
  }

  /// A function that answers ``date``, for code that takes the date as a closure, such as
  /// swift-dependencies' `DateGenerator`.
  ///
  /// ```swift
  /// let model = TokenModel(clock: TestClock(timeline: time), now: time.dateGenerator)
  /// ```
  public var dateGenerator: @Sendable () -> Date { { [self] in date } }

  /// Whether time moves by itself: whenever work is pending here and every task of the test
  /// is suspended, time jumps to the next due time and what is due runs, one item at a time
  /// and in order, each item's work let go quiet before the next, exactly as an async `run()`
  /// would; then it waits for quiet again. Off by default.
  ///
  /// A test then awaits the code under test directly, and it returns at once, having seen
  /// exactly the virtual times it asked for:
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// time.automaticallyAdvances = true
  /// let model = FeatureModel(mainQueue: DispatchQueue.test(timeline: time),
  ///                          clock: TestClock(timeline: time))
  /// await model.refresh()   // its debounce and its sleep, in one order
  /// ```
  ///
  /// It needs the test executor (see TempoTestSupport's article "Time that moves itself"):
  /// quiet means no task of the test can run. A task that waits on work Tempo cannot see — a
  /// real network call, a GCD block, another thread — looks suspended, so time may jump while
  /// that work is in flight: keep such work out of auto-advancing tests, or advance by hand.
  /// Work that never runs out (a timer nobody stops) is stopped within `run()`'s bound in
  /// actions, or ten times its bound in real time (5 s), and reported, and auto-advance turns
  /// off. Turned off, by the test or so, it takes no further step; a test that then awaits a
  /// sleep nobody advances is reported as blocked on time, and the sleep ends.
  ///
  /// The schedulers' actions run on the main actor, as the main queue's would.
  public var automaticallyAdvances: Bool {
    get { shared.automaticallyAdvances }
    set { shared.setAutomaticallyAdvances(newValue) }
  }

  /// How many actions and sleepers are waiting, on all sources.
  ///
  /// - Complexity: O(m)
  public var pendingWorkCount: Int { shared.pendingCount }

  /// When the next action or sleeper of any source is due, as time since the timeline began.
  public var nextDueTime: Duration? { shared.nextDate }

  /// The pending work of every source, one line per item (the first 20) in the order it will
  /// run, each naming its source, for a failure message.
  ///
  /// ```swift
  /// #expect(time.pendingWorkCount == 0, "\(time.pendingWorkDescription)")
  /// ```
  ///
  /// ```
  /// TestTimeline created at FeatureTests.swift:8 has 2 pending (now is 1.0 seconds):
  /// - due at 1.3 seconds on TestScheduler created at FeatureTests.swift:9
  /// - due at 5.0 seconds on TestClock created at FeatureTests.swift:10
  /// ```
  ///
  /// - Complexity: O(n log n)
  public var pendingWorkDescription: String { shared.pendingWorkDescription }

  /// Reports an issue if any source has work pending, naming how much and when it is due.
  ///
  /// ```swift
  /// model.cancelButtonTapped()
  /// time.expectNoPendingWork()
  /// ```
  public func expectNoPendingWork(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    shared.expectNothingPending(
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Moves time forward by `duration`, running everything due on every source in order.
  public func advance(
    by duration: Duration = .zero,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    shared.drive(through: shared.target(advancingBy: duration, at: location), at: location)
  }

  /// Moves time forward by `duration` for async code: after each action or sleeper, the work
  /// it released goes quiet before the next (deterministically inside a test executor).
  ///
  /// The schedulers' actions run on the caller's actor, as with every async verb of a
  /// timeline and its sources: in a `@MainActor` test, a main-actor model's `sink` runs on the
  /// main actor.
  public func advance(
    isolation: isolated (any Actor)? = #isolation,
    by duration: Duration = .zero,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await shared.drive(through: shared.target(advancingBy: duration, at: location), at: location)
  }

  /// Moves time forward to `instant` (a time since the timeline began), running everything due
  /// on every source in order. An instant before `now` is reported, and only the work due now
  /// runs.
  public func advance(
    to instant: Duration,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    shared.drive(through: shared.target(advancingTo: instant, at: location), at: location)
  }

  /// ``advance(to:fileID:filePath:line:column:)`` for async code: after each action or
  /// sleeper, the work it released goes quiet before the next.
  public func advance(
    isolation: isolated (any Actor)? = #isolation,
    to instant: Duration,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await shared.drive(through: shared.target(advancingTo: instant, at: location), at: location)
  }

  /// Moves time to the next date at which any source has work due, and runs what is due then
  /// on every source, in order; does nothing if nothing is pending. (Jest's
  /// `advanceTimersToNextTimer`.)
  ///
  /// ```swift
  /// time.advanceToNextDueTime()   // the earliest of every source's pending work
  /// ```
  public func advanceToNextDueTime(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    shared.drive(
      toPending: .next,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// ``advanceToNextDueTime(fileID:filePath:line:column:)`` for async code: the work already
  /// started goes quiet first, then the work each action or sleeper releases before the next.
  public func advanceToNextDueTime(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await shared.drive(
      toPending: .next,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs the work pending now on every source, in order, moving time to the last of its
  /// dates; what it schedules after that date stays pending. (sinon's `runToLast`, which is
  /// what Jest's `runOnlyPendingTimers` does.) It ends even when the work never runs out.
  ///
  /// ```swift
  /// time.runPending()   // a timer's ticks up to the last date pending now, and no further
  /// ```
  ///
  /// To run what is due now without moving time (kotlinx's `runCurrent`), advance by zero:
  /// `time.advance()`.
  public func runPending(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    shared.drive(
      toPending: .last,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// ``runPending(fileID:filePath:line:column:)`` for async code: the work already started
  /// goes quiet first, then the work each action or sleeper releases before the next.
  public func runPending(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await shared.drive(
      toPending: .last,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs everything pending on every source until nothing is left; reports what is left (as
  /// times since the timeline began) if it gives up.
  ///
  /// Work that never runs out (a repeating timer, a task that sleeps in a loop) cannot be run
  /// to the end. By default `run` performs what is pending when it starts, then at most 100,000
  /// more actions, spending at most half a second of real time on those more; pass `limit` to
  /// bound it by a number of actions alone, the same on every machine.
  public func run(
    limit: Int? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    shared.drive(through: nil, budget: RunBudget(limit: limit), at: location)
  }

  /// ``run(limit:fileID:filePath:line:column:)`` for async code.
  public func run(
    isolation: isolated (any Actor)? = #isolation,
    limit: Int? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await shared.drive(through: nil, budget: RunBudget(limit: limit), at: location)
  }
}
