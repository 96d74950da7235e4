@_spi(TempoInternals) import TempoCore
import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// The watch of a time source's pending work (the hangs of a test blocked on a scheduler's
/// work) ends when the source goes away, not at the watch's next look a quarter of a second
/// later: it lets go of its test's task then, and leaves the test room for another.
///
/// A test whose executor is deferred (these tests: a source made in the test's task, used
/// synchronously) asks for the watch when it schedules, and the watch is made at the next look
/// (`followRequested()` here): a test that has ended by then costs it nothing more.
@Suite struct PendingWorkWatchTests {
  /// A timeline whose actions are more than wake-ups, as a scheduler's are: the kind of source
  /// whose pending work is watched.
  private static func makeSource() -> Timeline<Int, Int> {
    Timeline<Int, Int>(now: 0, name: "TestScheduler") { $0 + $1 }
  }

  private static func scheduleWork(on source: Timeline<Int, Int>) {
    source.schedule(after: 5, at: TempoSupport.SourceLocation.unknown) {}
  }

  /// The task that would report a hang under Swift Testing is made in the test, but does not
  /// run until the watch ends: its first job waits, and runs, to its end, where an ending with
  /// no report is delivered, with no system thread woken for it.
  @Test func theReportersTaskRunsOnlyOnceItsEndingIsDelivered() {
    let reporter = WorkHangReporter()
    #expect(reporter.isHoldingItsTask)
    reporter.deliver(nil)
    #expect(!reporter.isHoldingItsTask)
  }

  @Test func aSourceThatGoesAwayIsNoLongerFollowed() throws {
    let test = try #require(TestExecutor.currentTaskPointer)
    let watch = HangWatch.shared
    var source: Timeline<Int, Int>? = Self.makeSource()
    let address = ObjectIdentifier(try #require(source))
    // Work scheduled from the test's task asks for the watch of the source for this test,
    // which the next look makes.
    Self.scheduleWork(on: try #require(source))
    watch.followRequested()
    #expect(watch.follows(sourceAt: address))
    #expect(watch.sourcesFollowed(forTest: test) == 1)

    source = nil
    #expect(!watch.follows(sourceAt: address))
    #expect(watch.sourcesFollowed(forTest: test) == 0)

    // Another source is followed in its place.
    let next = Self.makeSource()
    Self.scheduleWork(on: next)
    watch.followRequested()
    #expect(watch.follows(sourceAt: ObjectIdentifier(next)))
    #expect(watch.sourcesFollowed(forTest: test) == 1)
  }

  /// A test that makes many sources in turn, each going away before the next: the watch
  /// follows the ones it keeps, and the others take none of the test's room (at most
  /// `HangWatch.sourcesPerTest`), however many came and went since the watch last looked.
  @Test func sourcesThatCameAndWentTakeNoRoomOfTheTests() throws {
    let test = try #require(TestExecutor.currentTaskPointer)
    let kept = (0..<8).map { _ in Self.makeSource() }
    for source in kept { Self.scheduleWork(on: source) }
    HangWatch.shared.followRequested()
    for _ in 0..<(2 * HangWatch.sourcesPerTest) {
      Self.scheduleWork(on: Self.makeSource())
      HangWatch.shared.followRequested()
    }
    #expect(HangWatch.shared.sourcesFollowed(forTest: test) == kept.count)
    let last = Self.makeSource()
    Self.scheduleWork(on: last)
    HangWatch.shared.followRequested()
    #expect(HangWatch.shared.follows(sourceAt: ObjectIdentifier(last)))
    #expect(HangWatch.shared.sourcesFollowed(forTest: test) == kept.count + 1)
  }

  /// A source that goes away before the next look was never followed: its test's task was
  /// never kept for it.
  @Test func aWatchAskedForIsDroppedWithItsSource() throws {
    let test = try #require(TestExecutor.currentTaskPointer)
    var source: Timeline<Int, Int>? = Self.makeSource()
    let address = ObjectIdentifier(try #require(source))
    Self.scheduleWork(on: try #require(source))
    source = nil
    HangWatch.shared.followRequested()
    #expect(!HangWatch.shared.follows(sourceAt: address))
    #expect(HangWatch.shared.sourcesFollowed(forTest: test) == 0)
  }

  /// Once the test's deferred executor has opened (here, for a task it starts), a scheduling
  /// still only asks: the watch is made at the next look, and reads that executor.
  @Test func aTestWhoseExecutorOpenedIsFollowedFromTheNextLook() async throws {
    let source = Self.makeSource()
    await Task {}.value
    #expect(TestExecutor.ofCurrentTest != nil, "the task the test started opened no executor")
    Self.scheduleWork(on: source)
    HangWatch.shared.followRequested()
    #expect(HangWatch.shared.follows(sourceAt: ObjectIdentifier(source)))
  }
}
