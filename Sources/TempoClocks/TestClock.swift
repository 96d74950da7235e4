import TempoCore
import TempoExecutor
import TempoSupport

/// A clock whose time moves only when a test tells it to.
///
/// Give a feature a `TestClock` instead of a `ContinuousClock` and a test can prove exactly how
/// much time must pass before something happens, without waiting for it:
///
/// ```swift
/// @MainActor
/// final class FeatureModel {
///   var message: String?
///   let clock: any Clock<Duration>
///   init(clock: any Clock<Duration>) { self.clock = clock }
///
///   func task() async {
///     try? await clock.sleep(for: .seconds(5))
///     message = "Welcome!"
///   }
/// }
///
/// func testWelcome() async {
///   let clock = TestClock()
///   let model = FeatureModel(clock: clock)
///   Task { await model.task() }
///   await clock.advance(by: .seconds(4))
///   XCTAssertEqual(model.message, nil)
///   await clock.advance(by: .seconds(1))
///   XCTAssertEqual(model.message, "Welcome!")
/// }
/// ```
///
/// ## Semantics
///
/// The clock keeps its sleepers on the same virtual timeline as TempoSchedulers' `TestScheduler`,
/// so the same rules hold, and:
///
/// - A sleeper whose deadline has already been reached (`sleep(for: .zero)`, or `sleep(until:)`
///   an instant at or before `now`) returns at once, without waiting for an advance, just as a
///   live clock returns at once for such a deadline. (Swift Clocks suspends such a sleeper until
///   the next advance when the deadline equals `now`; Tempo treats every reached deadline alike.)
/// - Sleepers due at the same instant resume in the order they went to sleep.
/// - A cancelled sleeper throws `CancellationError` at once and leaves nothing pending; sleeping
///   in a task that is already cancelled throws at once.
/// - A sleeper still pending when its test ends (a `withTestExecutor` scope, a `.testExecutor`
///   test, an XCTest test) throws `CancellationError`, and its task is cancelled, inside that
///   test: nothing of it wakes into the next (TempoTestSupport's article "Work left at the end
///   of a test").
/// - `now` never runs backwards: advancing to an earlier instant reports an issue.
/// - `run()` always returns, within half a second of real time for work that never ends (a
///   task that sleeps in a loop until it is cancelled), and names the sleepers still pending
///   when it gives up (see ``run(isolation:limit:fileID:filePath:line:column:)``).
/// - ``pendingWorkCount``, ``nextDueTime`` and ``expectNoPendingWork(fileID:filePath:line:column:)``
///   tell a test what is left, with the same names on `TestScheduler` and ``TestTimeline``.
///
/// - Complexity: going to sleep and being resumed are each O(log n) for n pending sleepers.
public final class TestClock<Duration: DurationProtocol & Hashable>: Clock, Sendable {
  /// An instant of the clock: the duration since its origin.
  public typealias Instant = OffsetInstant<Duration>

  // Every stored property is a `let` of a `Sendable` type; the timeline and the wake-ups guard
  // their own state with a lock.
  let timeline: Timeline<Instant, Duration>
  let creation: SourceLocation
  /// The instant the clock started at, from which its wall-clock date counts (a lone clock).
  let origin: Instant
  /// Keeps a shared timeline's pending work alive while this clock is (nil for a lone clock).
  private let owner: SharedTimeline.Owner?

  /// The clock's resolution: zero, since a test clock wakes sleepers at exactly their deadline.
  public let minimumResolution: Duration = .zero

  /// The clock's current time.
  public var now: Instant { timeline.now }

  /// Creates a test clock starting at `now`.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// ```
  public convenience init(
    now: Instant = .init(),
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      now: now, fileID: fileID, filePath: filePath, line: line, column: column,
      callerIsUnknown: nil)
  }

  /// ``init(now:fileID:filePath:line:column:)``, or, with `unknown`, for a caller whose line is
  /// not known.
  private init(
    now: Instant, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt,
    callerIsUnknown unknown: SourceLocation?
  ) {
    self.timeline = Timeline(
      now: now, name: "TestClock", describe: describingSince(now), actionsOnlyResumeSleepers: true,
      scope: ImplicitScope.init(lock:), advancedBy: { $0.advanced(by: $1) })
    self.creation =
      unknown
      ?? SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    self.origin = now
    self.owner = nil
    timeline.setCreation(creation)
  }

  /// Creates a test clock on a timeline made elsewhere (a shared one).
  init(timeline: Timeline<Instant, Duration>, creation: SourceLocation) {
    self.timeline = timeline
    self.creation = creation
    self.origin = timeline.now
    self.owner = timeline.makeOwner()
    timeline.setCreation(creation)
  }

  /// Suspends until the clock's time reaches `deadline`, or returns at once if it already has.
  ///
  /// Throws `CancellationError` at once if the task is (or becomes) cancelled, or if its test
  /// ends first; a cancelled sleeper leaves nothing pending.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    if Task.isCancelled { try await TestSleeps.sleepOfCancelledTask() }
    guard now < deadline else { return }
    let sleeper = timeline.makeSleeper()
    do {
      try await withTaskCancellationHandler {
        try await withUnsafeThrowingContinuation { continuation in
          TestSleeps.willWait()
          guard sleeper.install(continuation) else { return }
          let handle = timeline.scheduleWake(of: sleeper, after: deadline, at: creation)
          sleeper.hold(handle)
          TestSleeps.watchForHangs(sleeper, handle: handle, clock: creation)
        }
      } onCancel: {
        sleeper.cancel()
      }
    } catch let ended as EndedBlockedOnTime {
      // The test was blocked on this sleep: say so where the test is, then end it.
      ended.report?.deliver()
      throw CancellationError()
    } catch let ended as EndedWithItsTest {
      // The test ended with this sleep pending: the task is cancelled.
      ended.cancelCurrentTask()
      throw CancellationError()
    }
    // Woken by an advance (a cancelled sleep throws above): tell the advance this task runs.
    timeline.wakeUps.acknowledge()
  }

  /// Moves time forward by `duration`, resuming the sleepers due along the way in order and
  /// letting the work each one releases run before taking the next.
  ///
  /// `advance()`, by zero, moves no time: it lets the work already started go quiet, as
  /// kotlinx's `runCurrent` runs what is due now.
  public func advance(
    isolation: isolated (any Actor)? = #isolation,
    by duration: Duration = .zero,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      by: duration,
      isolation: timeline.actor(forActionsOf: isolation),
      at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Moves time forward to `deadline`, resuming the sleepers due along the way in order and
  /// letting the work each one releases run before taking the next.
  ///
  /// A deadline before `now` is reported as an issue; the clock then keeps its time.
  public func advance(
    isolation: isolated (any Actor)? = #isolation,
    to deadline: Instant,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      to: deadline,
      isolation: timeline.actor(forActionsOf: isolation),
      at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Moves time to the next deadline of a sleeper and resumes the sleepers due then, in order,
  /// letting the work each one releases go quiet before the next; does nothing if no task is
  /// sleeping. (Jest's `advanceTimersToNextTimer`, sinon's `next`.)
  ///
  /// The work already started goes quiet first, so a task started just before the call has
  /// gone to sleep by the time the next deadline is read:
  ///
  /// ```swift
  /// Task { await model.reconnect() }       // retries after 1 s, then 2 s, then 4 s
  /// await clock.advanceToNextDueTime()     // now is 1 s: the first retry ran
  /// await clock.advanceToNextDueTime()     // now is 3 s: the second
  /// ```
  public func advanceToNextDueTime(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      toPending: .next, isolation: timeline.actor(forActionsOf: isolation),
      at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Resumes the sleepers pending now, in order, moving time to the last of their deadlines;
  /// what they go on to do after that deadline stays pending. (sinon's `runToLast`, which is
  /// what Jest's `runOnlyPendingTimers` does.)
  ///
  /// Unlike ``run(isolation:limit:fileID:filePath:line:column:)``, it ends even when the work never runs
  /// out: a task that sleeps in a loop runs its iterations due by that deadline, then stays
  /// asleep.
  ///
  /// ```swift
  /// Task { await model.startTimer() }   // ticks every second until stopped
  /// Task { await model.showHint() }     // sleeps 5 s
  /// await clock.runPending()            // now is 5 s: five ticks and the hint; the timer
  ///                                     // sleeps on, until 6 s
  /// ```
  ///
  /// To run what is due now without moving time (kotlinx's `runCurrent`), advance by zero:
  /// `await clock.advance()`.
  public func runPending(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.advance(
      toPending: .last, isolation: timeline.actor(forActionsOf: isolation),
      at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Resumes every sleeper, in order, until none is left, moving time to each deadline.
  ///
  /// Work that never stops sleeping (a timer nobody cancels, a task that sleeps in a loop until
  /// it is cancelled) cannot be run to the end, so `run` gives up and reports an issue that
  /// names the sleepers still pending and when they are due (as the time since the clock
  /// started). By default it resumes the sleepers pending when it starts, then at most 100,000
  /// more, and spends at most half a second of real time on those more: each wake-up lets the
  /// woken task run until it suspends again, which costs far more than a synchronous step, so
  /// a count alone could take minutes. Pass `limit` to bound it by a number of wake-ups alone,
  /// the same on every machine.
  ///
  /// ```swift
  /// model.stopTimerButtonTapped()
  /// await clock.run()
  /// XCTAssertEqual(model.count, 10)   // the stopped timer never ticks again
  /// ```
  public func run(
    isolation: isolated (any Actor)? = #isolation,
    limit: Int? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await timeline.run(
      limit: limit,
      isolation: timeline.actor(forActionsOf: isolation),
      at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs every sleeper until none is left: swift-clocks' spelling of `run`, kept so that code
  /// written for it compiles. The `timeout` is not used: Tempo's `run` has its own bounds (see
  /// ``run(isolation:limit:fileID:filePath:line:column:)``), which start counting real time only
  /// once the sleepers pending at the start have run, so a slow machine cannot cut short work
  /// that ends.
  @available(*, deprecated, message: "run has its own bounds; use run() or run(limit:)")
  public func run(
    timeout _: Swift.Duration,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await run(limit: nil, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Throws ``SuspensionError`` if any task is sleeping on this clock, once the work already
  /// started has had its chance to run.
  ///
  /// ```swift
  /// model.stopTimerButtonTapped()
  /// try await clock.checkSuspension()   // the timer is no longer sleeping
  /// ```
  public func checkSuspension(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async throws {
    await Settling.settle(
      scope: timeline.scope,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
    await Settling.rejoin(scope: timeline.scope)
    guard timeline.pendingCount == 0 else { throw SuspensionError() }
  }

  /// Whether time moves by itself: whenever work is pending here and every task of the test
  /// is suspended, time jumps to the next due time and what is due runs, one item at a time
  /// and in order, each item's work let go quiet before the next, exactly as an async `run()`
  /// would; then it waits for quiet again. Off by default.
  ///
  /// A test then awaits the code under test directly, and it returns at once, having seen
  /// exactly the virtual times it asked for:
  ///
  /// ```swift
  /// let clock = TestClock()
  /// clock.automaticallyAdvances = true
  /// let data = try await fetchWithRetry(clock: clock)   // retried after 1 s, 2 s and 4 s
  /// #expect(clock.now.offset == .seconds(7))
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
  /// On a shared timeline it is the timeline's: every source's time moves together.
  public var automaticallyAdvances: Bool {
    get { timeline.automaticallyAdvances }
    set { timeline.setAutomaticallyAdvances(newValue, isolation: nil) }
  }

  /// How many tasks are sleeping on this clock.
  ///
  /// On a shared timeline, only this clock's sleepers count; ``TestTimeline/pendingWorkCount``
  /// counts every source's.
  ///
  /// - Complexity: O(1)
  public var pendingWorkCount: Int { timeline.pendingCount }

  /// The instant the next sleeper wakes at, or `nil` if none is sleeping.
  public var nextDueTime: Instant? { timeline.nextDate }

  /// The sleepers of this clock, one line each (the first 20) under a head line with their
  /// count and the clock's time, for a failure message.
  ///
  /// ```swift
  /// #expect(clock.pendingWorkCount == 0, "\(clock.pendingWorkDescription)")
  /// ```
  ///
  /// ```
  /// TestClock created at FeatureTests.swift:12 has 1 pending (now is 3.0 seconds):
  /// - due at 5.0 seconds on TestClock created at FeatureTests.swift:12
  /// ```
  ///
  /// (`TestClock()` cannot know the line it was made on, and is named without it.)
  ///
  /// On a shared timeline it lists this clock's sleepers, at times since the timeline began;
  /// ``TestTimeline/pendingWorkDescription`` lists every source's.
  ///
  /// - Complexity: O(n log n)
  public var pendingWorkDescription: String { timeline.pendingWorkDescription }

  /// Reports an issue if any task is sleeping on this clock, naming when each wakes.
  ///
  /// ```swift
  /// model.stopTimerButtonTapped()
  /// clock.expectNoPendingWork()
  /// ```
  public func expectNoPendingWork(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    timeline.expectNothingPending(
      noun: "sleeper",
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

}

/// The error ``TestClock/checkSuspension(fileID:filePath:line:column:)`` throws when tasks are sleeping on the clock.
///
/// ```swift
/// await #expect(throws: SuspensionError.self) { try await clock.checkSuspension() }
/// ```
public struct SuspensionError: Error {
  /// Creates the error.
  public init() {}
}

extension TestClock where Duration == Swift.Duration {
  /// Creates a test clock of `Swift.Duration`, starting at its origin.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// ```
  ///
  /// It takes no arguments, so that beside swift-clocks (which swift-dependencies re-exports)
  /// `TestClock()` is ambiguous — a compile error naming both modules — rather than silently
  /// swift-clocks' clock. So it cannot know its caller's line: issues and listings of pending
  /// work name it without a place. `TestClock<Duration>(now: .init())` knows it.
  public convenience init() {
    let location = SourceLocation.unknownCaller(
      "TestClock()", instead: "TestClock<Duration>(now: .init())")
    self.init(
      now: .init(), fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column, callerIsUnknown: location)
  }
}

extension Clock where Self == TestClock<Swift.Duration> {
  /// A new test clock.
  ///
  /// ```swift
  /// let model = FeatureModel(clock: .test)
  /// ```
  public static var test: Self { TestClock() }
}

/// Writes an instant of a test clock as the time since `start`: in seconds for a clock of
/// `Swift.Duration`, as its own duration type describes itself otherwise.
private func describingSince<Duration>(
  _ start: OffsetInstant<Duration>
) -> (OffsetInstant<Duration>) -> String {
  { instant in
    let elapsed = start.duration(to: instant)
    if let elapsed = elapsed as? Swift.Duration { return describeSeconds(elapsed) }
    return "\(elapsed)"
  }
}
