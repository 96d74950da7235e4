import Dispatch
import TempoClocks
@_spi(TempoInternals) import TempoSupport
import Testing

@testable import TempoExecutor

/// The opener watch's real-time guesses (``Guesses``), driven by a clock the test moves by hand:
/// the job a task was running when its clock opened the executor is the test's work while it
/// runs, for a second of looks at most. No real time passes.
@Suite struct OpenerTimeTests {
  /// A task that makes a clock off the main queue and then runs on in the same job (blocked
  /// here, until the test lets it go) holds an advance of its test for a second of looks, and
  /// no more: the first look at or past one second takes its job to have suspended, and the
  /// advance goes on. The looks come 20 µs apart and double to 1 ms, so the first look past
  /// one second is 0.26 ms past it.
  @Test func anOpenerStillRunningIsWaitedForASecondOfLooks() async {
    let time = ManualTime()
    let letGo = DispatchSemaphore(value: 0)
    let opened = LockedBox<TestExecutor?>(nil)
    let advanced = LockedBox(false)
    var schedules = time.somethingScheduled.makeAsyncIterator()
    let opener = Task.detached {
      await TestExecutor.$handedTime.withValue(time) {
        let clock = TestClock()
        let executor = TestExecutor.ofCurrentTest
        opened.withLock { $0 = executor }
        let waiter = Task {
          await clock.advance(by: .seconds(1))
          advanced.withLock { $0 = true }
        }
        // The opener's job runs on until the test lets it go.
        letGo.wait()
        await waiter.value
      }
    }
    // The advance waits for quiet: the first look at the opener is scheduled.
    _ = await schedules.next()
    let executor = opened.withLock { $0 }
    #expect(executor?.heldOpener != nil, "the clock opened no executor for its running task")
    let openerWatched = {
      guard let executor else { return false }
      return executor.lock.withLock { executor.state.opener } != nil
    }
    time.advance(byMilliseconds: 999)
    #expect(openerWatched(), "the running opener was given up before a second of looks")
    #expect(!advanced.withLock { $0 })
    time.advance(byMilliseconds: 2)
    #expect(!openerWatched(), "the running opener was still waited for after a second of looks")
    // Had it been waited for longer, the advance would still wait for it: a failing test ends.
    time.advance(byMilliseconds: 10_000)
    letGo.signal()
    await opener.value
    #expect(advanced.withLock { $0 })
  }
}
