import TempoTestHelpers
import Testing

@testable import TempoCore

/// A timeline orders keyed dates by their keys alone, so a key must order exactly as its date
/// does and convert back to it. Checked on the edges of each type and on random values.
@Suite struct TimelineKeyTests {
  @Test func doublesKeepTheirOrderAndComeBack() {
    var random = SplitMix(state: 7)
    var values: [Double] = [
      0, -0.0, 1, -1, .infinity, -.infinity, .greatestFiniteMagnitude,
      -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
      .leastNormalMagnitude, 1e-300, -1e-300, 0.1, 0.2, 0.30000000000000004,
      Double(Int64.max), -978_307_200,
    ]
    for _ in 0..<2_000 {
      values.append(Double(bitPattern: random.next()))
    }
    expectKeys(values.filter { !$0.isNaN }, key: { TimelineKey($0) }, back: { $0.double })
  }

  @Test func negativeZeroAndZeroShareOneKey() {
    #expect(TimelineKey(-0.0) == TimelineKey(0.0))
  }

  @Test func durationsKeepTheirOrderAndComeBack() {
    var random = SplitMix(state: 11)
    var values: [Duration] = [
      .zero, .nanoseconds(1), .nanoseconds(-1), .milliseconds(-500), .milliseconds(-1500),
      .milliseconds(500), .milliseconds(1500), .seconds(Int64.max), .seconds(Int64.min),
      Duration(secondsComponent: 0, attosecondsComponent: 1),
      Duration(secondsComponent: 0, attosecondsComponent: -1),
      Duration(secondsComponent: -1, attosecondsComponent: -999_999_999_999_999_999),
      Duration(secondsComponent: 1, attosecondsComponent: 999_999_999_999_999_999),
    ]
    for _ in 0..<2_000 {
      let seconds = Int64(bitPattern: random.next()) >> Int64(random.next() % 64)
      let attoseconds = Int64(random.next() % 1_000_000_000_000_000_000)
      values.append(
        Duration(
          secondsComponent: seconds, attosecondsComponent: seconds < 0 ? -attoseconds : attoseconds)
      )
    }
    expectKeys(values, key: \.timelineKey, back: Duration.init(timelineKey:))
  }

  @Test func integersKeepTheirOrderAndComeBack() {
    var random = SplitMix(state: 13)
    var values = [0, 1, -1, Int.max, Int.min]
    for _ in 0..<2_000 { values.append(Int(truncatingIfNeeded: random.next())) }
    expectKeys(values, key: \.timelineKey, back: Int.init(timelineKey:))
    let unsigned: [UInt64] = [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
    expectKeys(unsigned, key: { TimelineKey($0) }, back: { $0.uint64 })
  }

  @Test func aKeyedDateTypeGetsKeyedWork() {
    #expect(makePendingWork(for: Int.self) is KeyedPendingWork<Int>)
    #expect(makePendingWork(for: String.self) is OrderedPendingWork<String>)
  }
}
