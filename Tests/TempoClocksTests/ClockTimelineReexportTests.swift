import TempoClocks
import Testing

/// `import TempoClocks` alone gives `TestTimeline`: the front re-exports TempoTimeline. (This
/// file imports nothing else on purpose.)
@Suite struct ClockTimelineReexportTests {
  @Test func aFileThatImportsOnlyTempoClocksMakesAndDrivesATestTimeline() {
    let time = TestTimeline()
    let clock = TestClock(timeline: time)
    time.advance(by: .seconds(2))
    #expect(clock.now.offset == .seconds(2))
    #expect(time.now == .seconds(2))
  }

  /// A name qualified with the front still finds it.
  @Test func theFrontQualifiesTheName() {
    let time: TempoClocks.TestTimeline = TestTimeline()
    #expect(time.pendingWorkCount == 0)
  }
}
