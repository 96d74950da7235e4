import TempoTestHelpers
import Testing

@testable import TempoClocks

/// Many sleepers, cancelled from other tasks while the clock advances: each ends exactly once,
/// never before its deadline, and nothing is left pending. CI also runs this under
/// ThreadSanitizer.
@Suite struct ClockStressTests {
  @Test func concurrentSleepingCancellingAndAdvancing() async {
    let clock = TestClock()
    let count = 400
    let sleepers = (0..<count).map { index in
      Task { () -> Result<Duration, CancellationError> in
        let deadline = TestClock<Duration>.Instant(offset: .milliseconds(10 * (index % 37 + 1)))
        do {
          try await clock.sleep(until: deadline)
          let now = clock.now
          return now < deadline ? .success(.seconds(-1)) : .success(now.offset)
        } catch {
          return .failure(CancellationError())
        }
      }
    }
    await waitUntil { clock.pendingWorkCount == count }
    let canceller = Task.detached {
      for (index, sleeper) in sleepers.enumerated() where index % 3 == 0 {
        sleeper.cancel()
        await Task.yield()
      }
    }
    for _ in 0..<40 { await clock.advance(by: .milliseconds(10)) }
    await canceller.value
    await clock.run()
    var resumed = 0
    var cancelled = 0
    for (index, sleeper) in sleepers.enumerated() {
      switch await sleeper.value {
      case .success(let offset):
        #expect(offset >= .zero, "sleeper \(index) resumed before its deadline")
        resumed += 1
      case .failure:
        #expect(index % 3 == 0, "sleeper \(index) was never cancelled but threw")
        cancelled += 1
      }
    }
    #expect(resumed + cancelled == count)
    #expect(resumed >= count - count / 3 - 1)
    #expect(clock.pendingWorkCount == 0)
  }
}
