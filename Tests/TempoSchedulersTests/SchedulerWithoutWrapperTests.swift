import TempoClocks
import TempoSchedulers
import Testing

/// A test scheduler or timeline created in a test's task opens a test executor for it, as a
/// test clock does: an async advance waits for the tasks the test started, with no wrapper.
@Suite struct SchedulerWithoutWrapperTests {
  actor Counter {
    var value = 0
    func increment() { value += 1 }
  }

  @Test func anAsyncAdvanceWaitsForWhatTheTasksOfTheTestDo() async {
    for _ in 0..<50 {
      let scheduler = DispatchQueue.test
      let counter = Counter()
      let task = Task {
        await counter.increment()
        try? await scheduler.sleep(for: .seconds(1))
        await counter.increment()
      }
      await scheduler.advance(by: .seconds(1))
      #expect(await counter.value == 2)
      task.cancel()
    }
  }

  @Test func aTimelineAdvancesItsSourcesTasksAsExactly() async {
    for _ in 0..<50 {
      let time = TestTimeline()
      let mainQueue = DispatchQueue.test(timeline: time)
      let counter = Counter()
      let task = Task {
        await counter.increment()
        try? await mainQueue.sleep(for: .milliseconds(300))
        await counter.increment()
      }
      await time.advance(by: .milliseconds(300))
      #expect(await counter.value == 2)
      task.cancel()
    }
  }
}
