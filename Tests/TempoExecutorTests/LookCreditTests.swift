import Testing

@testable import TempoExecutor

/// The time a wait for an unseen task counts towards its limit: the time on the wall while its
/// looks run on time, and at most twice a look's delay when it ran late, behind other work.
@Suite struct LookCreditTests {
  @Test func looksOnTimeCountTheTimeOnTheWall() {
    var credit = LookCredit(startingAt: 1_000)
    credit.look(at: 1_000 + 20_000, dueAfter: 20_000)
    credit.look(at: 1_000 + 20_000 + 45_000, dueAfter: 40_000)
    #expect(credit.nanoseconds == 65_000)
  }

  @Test func aLateLookCountsTwiceItsDelayAtMost() {
    var credit = LookCredit(startingAt: 0)
    // Due after 5 ms, ran 10 s later: every thread was busy, and so the task waited for.
    credit.look(at: 10_000_000_000, dueAfter: 5_000_000)
    #expect(credit.nanoseconds == 10_000_000)
    // The next one, on time again, counts in full from the late one.
    credit.look(at: 10_005_000_000, dueAfter: 5_000_000)
    #expect(credit.nanoseconds == 15_000_000)
  }

  /// A second of looks on time is a second, however long the threads were busy before.
  @Test func aLimitRunsOutOnlyOnceTheLooksRunOnTime() {
    var credit = LookCredit(startingAt: 0)
    var now: UInt64 = 0
    for _ in 0..<100 {
      now += 1_000_000_000  // each look a second late
      credit.look(at: now, dueAfter: 5_000_000)
    }
    #expect(credit.nanoseconds == 1_000_000_000)
    #expect(now == 100_000_000_000)
  }

  @Test func aClockThatReadsEarlierCountsNothing() {
    var credit = LookCredit(startingAt: 5_000)
    credit.look(at: 4_000, dueAfter: 1_000)
    #expect(credit.nanoseconds == 0)
  }
}
