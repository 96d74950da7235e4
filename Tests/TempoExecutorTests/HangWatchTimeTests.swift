import Dispatch
import Synchronization
import TempoCore
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// The hang watch's real-time guesses (``Guesses``), driven by a clock the test moves: a sleep
/// that holds its test up is reported four looks, a quarter of a second apart, after the look
/// that first sees it, and a gap in the looks starts the count again. No real time passes.
@Suite struct HangWatchTimeTests {
  /// A hang watch timed by a clock the test moves (with the guesses' own period and looks),
  /// following a sleep of the test's own task on a timeline nothing advances: answers the clock
  /// and how the sleep ended, once it has.
  private func watchedBlockedSleep() -> (ManualTime, LockedBox<(any Error)?>) {
    let time = ManualTime()
    let watch = HangWatch(
      looksToFire: Guesses.hangLooksToFire, periodMilliseconds: Guesses.hangLookPeriodMilliseconds,
      time: time)
    let ended = LockedBox<(any Error)?>(nil)
    let timeline = Timeline<Int, Int>(now: 0, name: "TestClock") { $0 + $1 }
    let sleeper = timeline.makeSleeper()
    _ = sleeper.install { error in ended.withLock { $0 = error } }
    let handle = timeline.scheduleWake(of: sleeper, after: 5, at: .unknown)
    sleeper.hold(handle)
    _ = sleeper.beginWatch(by: watch)
    watch.watch(
      sleeper, handle: handle, role: .testTask(nil), clock: .unknown, onScheduler: false)
    // The sleeper lives as long as its wake-up, which the timeline holds.
    withExtendedLifetime(timeline) {}
    return (time, ended)
  }

  @Test func aSleepThatHoldsItsTestUpIsEndedFourLooksAfterItIsFirstSeen() {
    let (time, ended) = watchedBlockedSleep()
    // The first look, at 250 ms, records the sleep; four more with nothing moving report it.
    time.advance(byMilliseconds: 1_249)
    #expect(ended.withLock { $0 } == nil, "reported before the fourth look after the first")
    time.advance(byMilliseconds: 1)
    #expect(ended.withLock { $0 } is EndedBlockedOnTime)
  }

  @Test func aGapInTheLooksStartsTheCountAgain() {
    let (time, ended) = watchedBlockedSleep()
    time.advance(byMilliseconds: 500)  // two looks, at 250 and 500 ms
    // The watch itself is held up: its next look comes a second late, at 1.5 s, more than
    // three periods after the one before, and counts again from there.
    time.holdUp(byMilliseconds: 1_000)
    time.advance(byMilliseconds: 0)
    time.advance(byMilliseconds: 500)  // 1.75 s and 2 s: five looks, but across the gap
    #expect(ended.withLock { $0 } == nil, "a look after a gap counted the looks before it")
    time.advance(byMilliseconds: 500)  // the fourth look after the one at the gap
    #expect(ended.withLock { $0 } is EndedBlockedOnTime)
  }
}
