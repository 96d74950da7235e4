import TempoCore
import TempoExecutor
import TempoSupport
public import TempoTimeline

/// A scheduler whose current time and execution can be controlled in a deterministic manner.
///
/// Swap a live scheduler for a test scheduler to test how the flow of time affects publishers
/// built with `debounce`, `throttle`, `delay`, `timeout`, `receive(on:)`, `subscribe(on:)`,
/// timers and the like. Nothing scheduled on it runs until the test moves its time forward:
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// var output: [Int] = []
/// let cancellable = Just(1)
///   .delay(for: 1, scheduler: scheduler)
///   .sink { output.append($0) }
///
/// scheduler.advance(by: .milliseconds(999))
/// XCTAssertEqual(output, [])
/// scheduler.advance(by: .milliseconds(1))
/// XCTAssertEqual(output, [1])
/// ```
///
/// ## The timeline rules
///
/// 1. `now` is set to an action's date before the action runs; work scheduled while advancing
///    that falls due by the target runs in the same advance.
/// 2. Actions due at the same date run in the order they were scheduled; a repeating action keeps
///    the place of its first scheduling.
/// 3. Time never runs backwards: work dated in the past runs at the current `now`, and advancing
///    to an earlier instant reports an issue and runs only what is due now.
/// 4. A repeating action with an interval of zero or less is reported and runs once. The repeats
///    of any other land on its grid: the k-th is due at exactly `start + k × interval`, so no
///    rounding builds up, however many there are.
/// 5. `run()` always returns: work that never runs out is
///    stopped after a bound, with an issue naming what is still pending.
/// 6. Any thread may schedule or cancel while another advances. Actions run outside the
///    scheduler's lock; an action that advances the scheduler runs the work due by its own
///    target right there, and the outer advance then carries on.
/// 7. ``pendingWorkCount``, ``nextDueTime`` and ``expectNoPendingWork(fileID:filePath:line:column:)``
///    tell a test what is left, with the same names on `TestClock` and `TestTimeline`.
///
/// Issues are reported with IssueReporting, so they fail XCTest and Swift Testing tests alike.
/// Issues raised from a `schedule` call (which cannot carry a source location) point at the
/// line that created the scheduler, when a function created it (`DispatchQueue.test(timeline:)`,
/// ``init(now:fileID:filePath:line:column:)``); `DispatchQueue.test` is a property, which cannot
/// know its caller, and its issues say so.
///
/// - Complexity: scheduling an action and running it are each O(log n) for n pending actions.
public final class TestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>:
  Scheduler, @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // Invariant: the only state is `timeline`, which is set once and guards itself with a lock;
  // `creation` and `start` are immutable.
  let timeline: Timeline<SchedulerTimeType, SchedulerTimeType.Stride>
  private let creation: SourceLocation
  /// The time the scheduler started at, from which its wall-clock date counts (when lone).
  let start: SchedulerTimeType
  /// Keeps a shared timeline's pending work alive while this scheduler is (nil when lone).
  private let owner: SharedTimeline.Owner?

  /// The minimum tolerance of the scheduler: always zero, since a test scheduler runs work at
  /// exactly its date.
  public let minimumTolerance: SchedulerTimeType.Stride = .zero

  /// The scheduler's current time.
  public var now: SchedulerTimeType { timeline.now }

  /// Creates a test scheduler that starts at `now`.
  ///
  /// ```swift
  /// let scheduler = TestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>(
  ///   now: .init(.init(uptimeNanoseconds: 1))
  /// )
  /// ```
  ///
  /// The factories ``DispatchQueue/test``, ``RunLoop/test``, ``OperationQueue/test`` and
  /// ``UIScheduler/test`` are shorter.
  public init(
    now: SchedulerTimeType,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.timeline = Self.loneTimeline(startingAt: now)
    self.creation = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    self.start = now
    self.owner = timeline.makeOwner()
    timeline.setCreation(creation)
  }

  /// Creates a test scheduler on a timeline made elsewhere (a shared one).
  init(
    timeline: Timeline<SchedulerTimeType, SchedulerTimeType.Stride>, creation: SourceLocation
  ) {
    self.timeline = timeline
    self.creation = creation
    self.start = timeline.now
    self.owner = timeline.makeOwner()
    timeline.setCreation(creation)
  }

  // MARK: - Advancing

  /// Moves time forward by `stride`, running the work due along the way in order.
  ///
  /// `advance()` (a stride of zero) runs the work due now, such as what `receive(on:)` queued,
  /// without moving time (kotlinx's `runCurrent`).
  ///
  /// - Complexity: O(k log n) for k actions run and n pending.
  public func advance(
    by stride: SchedulerTimeType.Stride = .zero,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    timeline.advance(
      by: stride, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Moves time forward to `instant`, running the work due along the way in order.
  ///
  /// An instant before `now` is reported as an issue; the scheduler then runs only the work due
  /// now and keeps its time.
  ///
  /// - Complexity: O(k log n) for k actions run and n pending.
  public func advance(
    to instant: SchedulerTimeType,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    timeline.advance(
      to: instant, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Moves time forward by `stride`, letting the async work that each action releases run
  /// before taking the next one.
  ///
  /// Use this form when the code under test awaits ``Scheduler/sleep(for:tolerance:options:)``
  /// or iterates ``Scheduler/timer(interval:tolerance:options:)``.
  ///
  /// The actions run on the caller's actor, as every async verb of a test scheduler runs them:
  /// in a `@MainActor` test, a main-actor model's `sink` runs on the main actor, as it does on
  /// the main queue in the app.
  public func advance(
    isolation: isolated (any Actor)? = #isolation,
    by stride: SchedulerTimeType.Stride = .zero,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      by: stride, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Moves time forward to `instant`, letting the async work that each action releases run
  /// before taking the next one.
  public func advance(
    isolation: isolated (any Actor)? = #isolation,
    to instant: SchedulerTimeType,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      to: instant, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Moves time to the date of the next scheduled action and runs what is due then, in order
  /// (and what that schedules for the same date); does nothing if nothing is scheduled.
  /// (Jest's `advanceTimersToNextTimer`, sinon's `next`.)
  ///
  /// ```swift
  /// model.query.send("tempo")                 // debounced by 300 ms
  /// scheduler.advanceToNextDueTime()          // now is 300 ms: the search ran
  /// ```
  ///
  /// - Complexity: O(k log n) for k actions run and n pending.
  public func advanceToNextDueTime(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    timeline.advance(
      toPending: .next, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// ``advanceToNextDueTime(fileID:filePath:line:column:)`` for async code: the work already
  /// started goes quiet first, then the work each action releases goes quiet before the next.
  public func advanceToNextDueTime(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      toPending: .next, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs the actions scheduled now, in order, moving time to the last of their dates; what
  /// they schedule after that date stays pending. (sinon's `runToLast`, which is what Jest's
  /// `runOnlyPendingTimers` does.)
  ///
  /// Unlike `run()`, it ends even when the work never runs out: a repeating timer fires at each of its dates up to the last date pending now, and
  /// stays scheduled.
  ///
  /// ```swift
  /// let timer = Publishers.Timer(every: .seconds(1), scheduler: scheduler).autoconnect()
  /// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) { print("hint") }
  /// scheduler.runPending()   // now is 5 s: the hint, and the ticks at 1 to 5 s
  /// ```
  ///
  /// To run what is due now without moving time (kotlinx's `runCurrent`), advance by zero:
  /// `scheduler.advance()`.
  ///
  /// - Complexity: O(n log n + k log n) for n pending and k actions run.
  public func runPending(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    timeline.advance(
      toPending: .last, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// ``runPending(fileID:filePath:line:column:)`` for async code: the work already started
  /// goes quiet first, then the work each action releases goes quiet before the next.
  public func runPending(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      toPending: .last, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs scheduled work until none is left, moving time to each action's date.
  ///
  /// Work that never runs out (a repeating timer nobody cancels) cannot be run to the end, so
  /// `run` gives up and reports an issue naming how much is pending and when it is due (as the
  /// time since the scheduler started). By default it performs what is pending when it starts,
  /// then at most 100,000 more actions, spending at most half a second of real time on those
  /// more (the async form lets the work of every action go quiet, which costs far more than a
  /// synchronous step). Pass `limit` to bound it by a number of actions alone, the same on
  /// every machine.
  ///
  /// - Complexity: O(k log n) for k actions run and n pending.
  public func run(
    limit: Int? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    timeline.run(
      limit: limit, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs scheduled work until none is left, letting the async work that each action releases
  /// run before taking the next one. Bounded like the synchronous `run(limit:)`.
  public func run(
    isolation: isolated (any Actor)? = #isolation,
    limit: Int? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.run(
      limit: limit, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  // MARK: - Moving by itself

  /// Whether time moves by itself: whenever work is pending here and every task of the test
  /// is suspended, time jumps to the next due time and what is due runs, one item at a time
  /// and in order, each item's work let go quiet before the next, exactly as an async `run()`
  /// would; then it waits for quiet again. Off by default.
  ///
  /// A test then awaits the code under test directly, and it returns at once, having seen
  /// exactly the virtual times it asked for:
  ///
  /// ```swift
  /// let mainQueue = DispatchQueue.test
  /// mainQueue.automaticallyAdvances = true
  /// model.query.send("tempo")
  /// let results = await model.$results.values.first { !$0.isEmpty }   // after 300 ms
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
  /// The actions run on the main actor, as the main queue's would. On a shared timeline it is
  /// the timeline's: every source's time moves together.
  public var automaticallyAdvances: Bool {
    get { timeline.automaticallyAdvances }
    set { timeline.setAutomaticallyAdvances(newValue, isolation: MainActor.shared) }
  }

  // MARK: - Inspecting

  /// How many actions are scheduled and not yet run (cancelled ones excluded).
  /// A repeating action counts once.
  ///
  /// - Complexity: O(1)
  public var pendingWorkCount: Int { timeline.pendingCount }

  /// The date of the next action that will run, or `nil` if nothing is pending.
  public var nextDueTime: SchedulerTimeType? { timeline.nextDate }

  /// The scheduled actions, one line each (the first 20) under a head line with their count
  /// and the scheduler's time, for a failure message.
  ///
  /// ```swift
  /// XCTAssertEqual(scheduler.pendingWorkCount, 0, scheduler.pendingWorkDescription)
  /// ```
  ///
  /// ```
  /// TestScheduler created at SearchTests.swift:9 has 1 pending (now is 0.1 seconds since the
  /// scheduler's start):
  /// - due at 0.4 seconds since the scheduler's start on TestScheduler created at SearchTests.swift:9
  /// ```
  ///
  /// On a shared timeline it lists this scheduler's actions, at times since the timeline
  /// began; `TestTimeline.pendingWorkDescription` lists every source's.
  ///
  /// - Complexity: O(n log n)
  public var pendingWorkDescription: String { timeline.pendingWorkDescription }

  /// Reports an issue if any work is still scheduled, naming how much and when it is due.
  ///
  /// ```swift
  /// model.cancelButtonTapped()
  /// scheduler.expectNoPendingWork()
  /// ```
  public func expectNoPendingWork(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    timeline.expectNothingPending(
      noun: "action",
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  // MARK: - Scheduler

  /// Schedules `action` to run at the current time, on the next advance.
  public func schedule(options _: SchedulerOptions?, _ action: @escaping () -> Void) {
    timeline.schedule(after: now, at: creation, action)
  }

  /// Schedules `action` to run at `date`, or at the current time if `date` is in the past.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance _: SchedulerTimeType.Stride,
    options _: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    timeline.schedule(after: date, at: creation, action)
  }

  /// Schedules `action` to run at `date` and every `interval` after that until cancelled.
  ///
  /// An interval of zero or less is reported as an issue, and the action then runs once.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance _: SchedulerTimeType.Stride,
    options _: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    ScheduledOnTimeline(
      handle: timeline.schedule(after: date, every: interval, at: creation, action))
  }
}

/// A test scheduler with the same time and options types as `Scheduler`.
///
/// ```swift
/// let scheduler: TestSchedulerOf<DispatchQueue> = DispatchQueue.test
/// ```
public typealias TestSchedulerOf<Scheduler> = TestScheduler<
  Scheduler.SchedulerTimeType, Scheduler.SchedulerOptions
> where Scheduler: _CombineScheduler

extension TestScheduler where SchedulerTimeType: _TempoEpochTime {
  /// Creates a test scheduler on a shared timeline (see `TestTimeline`), starting at its time
  /// type's epoch plus the time since the timeline began.
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// let scheduler = TestSchedulerOf<DispatchQueue>(timeline: time)
  /// ```
  public convenience init(
    timeline: TestTimeline,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      timeline: Timeline(
        sharing: timeline.shared,
        name: "TestScheduler",
        advancedBy: { $0.advanced(by: $1) },
        toShared: { $0._tempoElapsed },
        fromShared: { SchedulerTimeType._tempoInstant(elapsed: $0) }
      ),
      creation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}
