@_spi(TempoInternals) import TempoCore
import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// The watch of a time source's pending work (the hangs of a test blocked on a scheduler's
/// work) ends when the source goes away, not at the watch's next look a quarter of a second
/// later: it lets go of its test's task then, and leaves the test room for another.
@Suite struct PendingWorkWatchTests {
  /// A timeline whose actions are more than wake-ups, as a scheduler's are: the kind of source
  /// whose pending work is watched.
  private static func makeSource() -> Timeline<Int, Int> {
    Timeline<Int, Int>(now: 0, name: "TestScheduler") { $0 + $1 }
  }

  private static func scheduleWork(on source: Timeline<Int, Int>) {
    source.schedule(after: 5, at: TempoSupport.SourceLocation.unknown) {}
  }

  @Test func aSourceThatGoesAwayIsNoLongerFollowed() throws {
    let test = try #require(TestExecutor.currentTaskPointer)
    let watch = HangWatch.shared
    var source: Timeline<Int, Int>? = Self.makeSource()
    let address = ObjectIdentifier(try #require(source))
    // Work scheduled from the test's task starts the watch of the source for this test.
    Self.scheduleWork(on: try #require(source))
    #expect(watch.follows(sourceAt: address))
    #expect(watch.sourcesFollowed(forTest: test) == 1)

    source = nil
    #expect(!watch.follows(sourceAt: address))
    #expect(watch.sourcesFollowed(forTest: test) == 0)

    // Another source is followed in its place.
    let next = Self.makeSource()
    Self.scheduleWork(on: next)
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
    for _ in 0..<(2 * HangWatch.sourcesPerTest) {
      Self.scheduleWork(on: Self.makeSource())
    }
    #expect(HangWatch.shared.sourcesFollowed(forTest: test) == kept.count)
    let last = Self.makeSource()
    Self.scheduleWork(on: last)
    #expect(HangWatch.shared.follows(sourceAt: ObjectIdentifier(last)))
    #expect(HangWatch.shared.sourcesFollowed(forTest: test) == kept.count + 1)
  }
}
