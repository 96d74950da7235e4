import IssueReporting
import TempoExecutor
@_spi(TempoInternals) import TempoSupport

/// What the end of a test does with work the test leaves behind: sleepers still pending on its
/// test clocks, actions still scheduled on its test schedulers and timelines, and tasks it
/// started that have not finished.
///
/// ```swift
/// @Suite(.testExecutor(leftoverWork: .fail))
/// struct TimerTests { … }
///
/// await withTestExecutor(leftoverWork: .ignore) { … }   // this one test may leave work
/// ```
///
/// Left alone, such work would never run, or run during a later test, where a failure it
/// causes is blamed on the wrong test. So, whatever this says, the end of a test ends it: each
/// sleep still pending throws `CancellationError` into its task, which is cancelled and waited
/// for, and actions still scheduled never run. This says whether that end is reported. The
/// default is ``warn``: the check runs at the end of every `withTestExecutor` scope and
/// `.testExecutor` test (and of every XCTest test, see ``inXCTests``), and says what is left as
/// a warning, which does not fail the test; ``fail`` makes it a failure. The article "Work left
/// at the end of a test" says why.
public enum LeftoverWork: Sendable {
  /// Report leftover work as an issue that fails the test.
  case fail
  /// Report leftover work as a warning: Swift Testing records a warning, XCTest writes it to
  /// the test log; neither fails the test. The default.
  case warn
  /// Do not report. The test's sleeps still end with it.
  case ignore
}

/// Starts a task that may still be running when the test ends, as kotlinx-coroutines-test's
/// `backgroundScope` does: it is not leftover work; the end of the test (the end of the
/// `withTestExecutor` scope or `.testExecutor` test, or ``expectNoLeftoverWork(fileID:filePath:line:column:)``)
/// cancels it and waits for it to end, before the test's executor closes, so that none of its
/// work runs during a later test.
///
/// ```swift
/// @Test(.testExecutor) func liveUpdates() async {
///   let clock = TestClock()
///   let model = FeedModel(clock: clock)
///   backgroundTask { await model.pollForever() }   // ends with the test
///   await clock.advance(by: .seconds(30))
///   #expect(model.items.count == 1)
/// }
/// ```
///
/// A background task that does not end when it is cancelled (it waits on something that
/// ignores cancellation) is reported, not waited for. Outside a `withTestExecutor` scope or a
/// `.testExecutor` test there is no end of the test to wait at: the task is started as a plain
/// task, and an issue says so.
extension LeftoverWork {
  /// What the end of each XCTest test does with the work it leaves behind, when no
  /// `withTestExecutor` scope ends it: `.warn` by default. Process-wide; set it once, say in a
  /// test class's `override class func setUp()`.
  ///
  /// ```swift
  /// final class TimerTests: XCTestCase {
  ///   override class func setUp() {
  ///     LeftoverWork.inXCTests = .fail
  ///   }
  /// }
  /// ```
  ///
  /// Tempo sees the end of every XCTest test in a test target that links TempoTestSupport,
  /// with no code added: see the article "Work left at the end of a test".
  public static var inXCTests: LeftoverWork {
    get { xcTestPolicy.withLock { $0 } }
    set { xcTestPolicy.withLock { $0 = newValue } }
  }
}

/// ``LeftoverWork/inXCTests``.
private let xcTestPolicy = LockedBox(LeftoverWork.warn)

@available(TempoTestExecutor 1.0, *)
@discardableResult
public func backgroundTask(
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ operation: @escaping @Sendable () async -> Void
) -> Task<Void, Never> {
  let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let executor = TestExecutor.openScope else {
    location.report(
      """
      backgroundTask was called outside withTestExecutor and .testExecutor, where the end of \
      the test cannot be seen: it was started as a plain task, which nothing cancels or waits \
      for. Run the test in withTestExecutor { } or with the .testExecutor trait.
      """)
    return Task(operation: operation)
  }
  let work = BackgroundWork(at: location)
  // Not counted among the test's tasks (the census token is not passed on).
  let task = TaskCensus.$token.withValue(nil) {
    Task {
      await operation()
      work.end()
    }
  }
  work.hold(task)
  executor.leftovers.add(work)
  return task
}

/// Fails the test if it leaves work behind, now: what the end of a `withTestExecutor` scope
/// checks, as one line anywhere in a test.
///
/// It cancels the test's ``backgroundTask(fileID:filePath:line:column:_:)``s and waits for
/// them, lets the work already started go quiet, then reports an issue listing every sleeper
/// and action still pending on the test clocks, test schedulers and test timelines of the
/// test, each with its due time and the source it waits on.
///
/// ```swift
/// func testStopTimer() async {
///   let model = TimerModel(clock: clock)
///   await model.startButtonTapped()
///   await clock.advance(by: .seconds(3))
///   await model.stopButtonTapped()
///   await expectNoLeftoverWork()   // the timer's task has ended
/// }
/// ```
///
/// It sees the sources of the test's executor: the `withTestExecutor` scope's, or the one a
/// test clock or scheduler opened for the test (for one made outside any task, such as an
/// XCTest property, from its first async advance on). A task waiting on something other than
/// time is only seen at the end of a scope.
@available(TempoTestExecutor 1.0, *)
public func expectNoLeftoverWork(
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) async {
  let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let executor = TestExecutor.ofCurrentTest else { return }
  if let report = await executor.leftoverWork(
    tasksAreRunning: { false }, endingSleeps: false, at: location)
  {
    location.report(report)
  }
}
