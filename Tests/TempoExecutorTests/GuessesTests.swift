import Dispatch
@_spi(TempoInternals) import TempoSupport
import Testing

@testable import TempoExecutor

/// The guesses that decide by a count of real time, driven with plain numbers or a clock moved
/// by hand: no real time passes. (The hang watch's are in `HangWatchTimeTests`, the opener's
/// looks in `OpenerTimeTests`, the yield looks in `YieldLookTimeTests`, the backstop's in
/// `BackstopTimeTests`, `LookCredit`'s in `LookCreditTests`.)
@Suite struct GuessesTests {
  /// The opener is looked at for a second of looks while it runs, and for ten while it is
  /// parked in a yield, whose continuation will run.
  @Test(
    arguments: [
      (999_999_999, false, true), (1_000_000_000, false, false),
      (9_999_999_999, true, true), (10_000_000_000, true, false),
    ] as [(UInt64, Bool, Bool)])
  func theOpenerIsLookedAtForASecondOrTenIfParked(
    waited: UInt64, isParked: Bool, looksAgain: Bool
  ) {
    #expect(Guesses.looksAtOpenerAgain(afterWaiting: waited, isParked: isParked) == looksAgain)
  }

  /// One wait for tasks parked in unseen yields lasts a second; a settle's waits, five in all.
  @Test func aWaitForYieldsLastsASecondAndASettlesFive() {
    #expect(Guesses.looksForYieldsAgain(afterWaiting: 999_999_999))
    #expect(!Guesses.looksForYieldsAgain(afterWaiting: 1_000_000_000))
    #expect(Guesses.settleWaitsForYields(afterWaiting: 4_999_999_999))
    #expect(!Guesses.settleWaitsForYields(afterWaiting: 5_000_000_000))
  }

  /// The lineage holds a relayed job for a task parked in a yield with looks 20 µs apart,
  /// doubling, the last at 10,240 µs: 20,460 µs in all, and not a microsecond more.
  @Test func theLineageHoldsAParkedTasksJobForAbout20Milliseconds() {
    let time = ManualTime()
    let done = LockedBox(false)
    TaskLineage.hold(
      whileParked: { true }, every: Guesses.lineageFirstLookMicroseconds, on: time
    ) { done.withLock { $0 = true } }
    time.advance(byNanoseconds: 20_459_999)
    #expect(!done.withLock { $0 }, "the hold let go before its last look")
    time.advance(byNanoseconds: 1)
    #expect(done.withLock { $0 }, "the hold went on past its last look")
  }

  /// A task back from its yield ends the hold at the next look.
  @Test func theLineageLetsGoAtTheFirstLookThatFindsTheTaskBack() {
    let time = ManualTime()
    let parked = LockedBox(true)
    let done = LockedBox(false)
    TaskLineage.hold(
      whileParked: { parked.withLock { $0 } }, every: Guesses.lineageFirstLookMicroseconds,
      on: time
    ) { done.withLock { $0 = true } }
    time.advance(byNanoseconds: 60_000)  // the looks at 20 and 60 µs
    parked.withLock { $0 = false }
    time.advance(byNanoseconds: 79_999)
    #expect(!done.withLock { $0 })
    time.advance(byNanoseconds: 1)  // the look at 140 µs
    #expect(done.withLock { $0 })
  }

  /// A task not parked when its job has run is not held at all.
  @Test func aTaskNotParkedIsNotHeld() {
    let done = LockedBox(false)
    TaskLineage.hold(whileParked: { false }, every: 20, on: ManualTime()) {
      done.withLock { $0 = true }
    }
    #expect(done.withLock { $0 })
  }
}
