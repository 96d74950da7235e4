import TempoSchedulers
import Testing

/// `import TempoSchedulers` alone gives `TestTimeline`: the front re-exports TempoTimeline. (This
/// file imports nothing else on purpose.)
@Suite struct SchedulerTimelineReexportTests {
  @Test func aFileThatImportsOnlyTempoSchedulersMakesAndDrivesATestTimeline() {
    let time = TestTimeline()
    let queue = DispatchQueue.test(timeline: time)
    queue.schedule(after: queue.now.advanced(by: .seconds(1))) {}
    #expect(time.pendingWorkCount == 1)
    time.advance(by: .seconds(1))
    #expect(time.pendingWorkCount == 0)
    #expect(time.now == .seconds(1))
  }

  /// A name qualified with the front still finds it.
  @Test func theFrontQualifiesTheName() {
    let time: TempoSchedulers.TestTimeline = TestTimeline()
    #expect(time.pendingWorkCount == 0)
  }
}
