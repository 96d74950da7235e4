import Dispatch
import Synchronization
import TempoCore
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// Real time that a test moves by hand: what it runs after a delay runs, on its queue and
/// before `advance(byMilliseconds:)` returns, once that much of it has passed.
final class ManualTime: WallTime, @unchecked Sendable {
  // Invariant: `lock` guards `scheduled`, and `now` changes only under it; `now` is atomic, so
  // that it is read with no lock (the hang watch reads it under its own). The work due is run
  // after unlocking.
  private let lock = Lock()
  private let now = Atomic<UInt64>(1_000_000_000)
  private var scheduled: [(due: UInt64, queue: DispatchQueue, work: @Sendable () -> Void)] = []

  var nanoseconds: UInt64 { now.load(ordering: .acquiring) }

  func after(
    nanoseconds: UInt64, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void
  ) {
    lock.withLock { scheduled.append((self.nanoseconds + nanoseconds, queue, work)) }
  }

  /// Moves time on by `milliseconds` without running anything: the thread that would have run
  /// it was held up. What came due runs, late, at the next ``advance(byMilliseconds:)``.
  func holdUp(byMilliseconds milliseconds: UInt64) {
    lock.withLock { _ = now.add(milliseconds * 1_000_000, ordering: .releasing) }
  }

  /// Moves time on by `milliseconds`, running in due order what comes due on the way (and what
  /// that schedules, if it comes due too), each at its own time.
  func advance(byMilliseconds milliseconds: UInt64) {
    let target = nanoseconds + milliseconds * 1_000_000
    while true {
      let next = lock.withLock { () -> (DispatchQueue, @Sendable () -> Void)? in
        guard let index = scheduled.indices.min(by: { scheduled[$0].due < scheduled[$1].due }),
          scheduled[index].due <= target
        else {
          now.store(max(nanoseconds, target), ordering: .releasing)
          return nil
        }
        let item = scheduled.remove(at: index)
        now.store(max(nanoseconds, item.due), ordering: .releasing)
        return (item.queue, item.work)
      }
      guard let (queue, work) = next else { return }
      queue.sync(execute: work)
    }
  }
}

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
