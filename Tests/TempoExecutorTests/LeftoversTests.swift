@_spi(TempoInternals) import TempoCore
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// A test's list of the time sources it made: each listed once however often it is added, and
/// one that went away no longer listed.
@Suite struct LeftoversTests {
  private static func source(named name: String) -> Timeline<Int, Int> {
    let timeline = Timeline<Int, Int>(now: 0, name: name) { $0 + $1 }
    timeline.schedule(after: 5, at: TempoSupport.SourceLocation.unknown) {}
    return timeline
  }

  @Test func aSourceIsListedOnceAndOneThatWentAwayIsNot() {
    let leftovers = Leftovers(lock: Lock())
    let first = Self.source(named: "First")
    var second: Timeline<Int, Int>? = Self.source(named: "Second")
    leftovers.add(first)
    leftovers.add(second!)
    leftovers.add(first)
    #expect(leftovers.pending.count == 2)
    #expect(leftovers.pending.first?.contains("First") == true)

    second = nil
    let third = Self.source(named: "Third")
    leftovers.add(third)
    leftovers.add(third)
    let pending = leftovers.pending
    #expect(pending.count == 2)
    #expect(pending.first?.contains("First") == true)
    #expect(pending.last?.contains("Third") == true)
  }
}
