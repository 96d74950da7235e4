package import TempoCore
import TempoExecutor
@_spi(TempoInternals) import TempoSupport

extension TestClock where Duration == Swift.Duration {
  /// Puts the sleeps of the system clocks on this clock, for the rest of the test: code that
  /// never took a clock — `Task.sleep(for:)`, `Task.sleep(nanoseconds:)`,
  /// `Task.sleep(until:clock:)`, `ContinuousClock().sleep(for:)`, `SuspendingClock().sleep(for:)`
  /// — then waits for this clock's time, like a sleeper on it, and an advance wakes it at its
  /// deadline.
  ///
  /// ```swift
  /// @MainActor final class WelcomeModel {
  ///   var message: String?
  ///   func onAppear() async {
  ///     try? await Task.sleep(for: .seconds(5))   // no clock to inject
  ///     message = "Welcome!"
  ///   }
  /// }
  ///
  /// @MainActor @Test(.testExecutor) func welcome() async {
  ///   let clock = TestClock()
  ///   await clock.controlSystemSleeps()
  ///   let model = WelcomeModel()
  ///   let task = Task { await model.onAppear() }
  ///   await clock.advance(by: .seconds(4))
  ///   #expect(model.message == nil)
  ///   await clock.advance(by: .seconds(1))
  ///   #expect(model.message == "Welcome!")
  ///   await task.value
  /// }
  /// ```
  ///
  /// It covers the sleeps of the test's tasks (those its test executor runs): the task that
  /// calls it, the tasks the test starts, their child tasks. A sleep's length is its deadline
  /// less the system clock's time when the code read it, which has moved on by the time the
  /// sleep reaches Tempo. Tempo takes the roundest length that fits the time the code has
  /// run since, so `.seconds(5)`, `.milliseconds(250)` and `.microseconds(1_500)` are exact
  /// (see the article "Virtual time for code that never took a clock"). A sleep of zero or
  /// less, or until a deadline passed, ends at once, as it would on the system clock. `ContinuousClock` and `SuspendingClock`
  /// sleeps both go on this clock, and their tolerance is ignored.
  ///
  /// What stays real: sleeps of other tests and of tasks no test executor runs (a
  /// `Task.detached` started outside the test, another thread); a sleep inside a default
  /// actor's method, or right after a call into one, before the task next suspends (the
  /// runtime runs it there with no task executor; the next advance reports such a sleep), unless
  /// the code is awaited inside ``controlSystemSleeps(isolation:fileID:filePath:line:column:_:)``;
  /// `ContinuousClock.now`, `SuspendingClock.now`,
  /// `Date()` and `DispatchQueue.asyncAfter` (use this clock's `now` and `date`, and
  /// `DispatchQueue.test`). A sleep pending when the test ends is listed with the clock's
  /// pending work, and cancelled: it throws `CancellationError` rather than waking in a later
  /// test.
  ///
  /// It needs the runtime's scheduling hooks for executors (Swift 6.3 on Linux; on Apple
  /// platforms, not yet), and a test executor; where either is missing, it says so once, as a
  /// warning, and sleeps stay real.
  public func controlSystemSleeps(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await takeSystemSleeps(at: location)
  }

  /// Puts the system sleeps of the test on this clock, and answers whether it could (else it
  /// has said why at `location`, as a warning).
  @discardableResult
  private func takeSystemSleeps(at location: SourceLocation) async -> Bool {
    guard #available(TempoTestExecutor 1.0, *), SystemSleep.areAvailable,
      let executor = timeline.scope.quiescence(at: location, forAutoAdvance: false)
        as? TestExecutor
    else {
      location.report(
        """
        System sleeps stay real here: this build or system does not hand the sleeps of \
        Task.sleep and the system clocks to Tempo (that needs Swift 6.3 on Linux, and a test \
        executor; Apple platforms are not supported yet). Inject the clock instead.
        """,
        asWarning: true)
      return false
    }
    executor.controlSystemSleeps(on: self)
    // The caller's own jobs from here run on the executor, so that its sleeps reach it too.
    await executor.rejoin()
    return true
  }
}

extension TestClock where Duration == Swift.Duration {
  /// Puts the sleeps of the system clocks on this clock for the rest of the test, as
  /// ``controlSystemSleeps(fileID:filePath:line:column:)`` does, and inside `body` those made in
  /// a default actor's methods too.
  ///
  /// ```swift
  /// actor Poller {
  ///   var polls = 0
  ///   func poll() async {
  ///     while !Task.isCancelled {
  ///       try? await Task.sleep(for: .seconds(10))   // an actor's sleep, no clock to inject
  ///       polls += 1
  ///     }
  ///   }
  /// }
  ///
  /// @Test(.testExecutor) func polls() async {
  ///   let clock = TestClock()
  ///   let poller = Poller()
  ///   await clock.controlSystemSleeps {
  ///     async let polling: Void = poller.poll()
  ///     await clock.advance(by: .seconds(10))
  ///     #expect(await poller.polls == 1)
  ///     await clock.advance(by: .seconds(10))
  ///     #expect(await poller.polls == 2)
  ///     // cancelled as `polling` goes out of scope
  ///   }
  /// }
  /// ```
  ///
  /// The runtime sends a sleep made in a default actor's method to the executor the task
  /// prefers, and a test's tasks prefer none: with no preference, that sleep goes to the
  /// system's timers, and the next advance reports it. Inside `body`, the calling task and its
  /// child tasks (`async let`, task groups) prefer Tempo's task executor, so that such a sleep
  /// waits for this clock's time. A task started with `Task { }` inside `body` inherits no
  /// preference: its actors' sleeps stay real, and are reported.
  ///
  /// Only inside `body`, because a task with a preference costs more at every switch between
  /// executors (the runtime reads the preference under a lock each time): a whole test would
  /// pay for it.
  public func controlSystemSleeps<Result>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: () async throws -> Result
  ) async rethrows -> Result {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard #available(TempoTestExecutor 1.0, *), await takeSystemSleeps(at: location) else {
      return try await body()
    }
    return try await TestExecutor.withPreference(isolation: isolation, body)
  }
}

extension TestClock: SystemSleepClock where Duration == Swift.Duration {
  package func scheduleSystemSleep(
    after delay: Duration, clock: String, _ wake: @escaping @Sendable () -> Void
  ) -> TimelineHandle {
    timeline.schedule(
      after: now.advanced(by: delay), labeled: "a system sleep (\(clock))", at: creation, wake)
  }
}
