@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoCore

/// A timeline that shares its time is driven by the same path as a lone one.
@Suite struct SharedDriveTests {
  let location = TempoSupport.SourceLocation(
    fileID: #fileID, filePath: #filePath, line: #line, column: #column)

  /// Without a test executor (on a runtime without the hooks), an async advance waits for the sleepers it woke to run again
  /// before it takes the next step. A member of a shared timeline must wait just as a lone
  /// clock does: here the woken "sleeper" only runs again once a settle has seen it waiting,
  /// so it never runs if the drive does not wait for it.
  @Test func anAsyncAdvanceOfASharedMemberWaitsForTheSleepersItWoke() async {
    let group = SharedTimeline()
    let timeline = Timeline<Duration, Duration>(
      sharing: group, name: "TestClock", advancedBy: { $0 + $1 },
      toShared: { $0 }, fromShared: { $0 })
    let wakeUps = timeline.wakeUps
    let stop = Flag()
    let acknowledged = Flag()
    let sleeper = Task {
      while wakeUps.waits == 0, !stop.isSet { await Task.yield() }
      if !stop.isSet {
        wakeUps.acknowledge()
        acknowledged.set()
      }
    }
    timeline.schedule(after: .seconds(1), at: location) { wakeUps.willWake() }
    await Settling.$usesProbesOnly.withValue(true) {
      await timeline.advance(by: .seconds(2), at: location)
    }
    #expect(acknowledged.isSet, "the advance returned without waiting for the woken sleeper")
    #expect(!wakeUps.areOutstanding)
    stop.set()
    await sleeper.value
  }
}

/// A flag any thread may set.
final class Flag: @unchecked Sendable {
  // Invariant: `lock` guards `value`.
  private let lock = Lock()
  private var value = false
  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }
}
