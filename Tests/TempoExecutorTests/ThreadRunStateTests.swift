import Dispatch
import Synchronization
import TempoRuntimeABI
import Testing

@testable import TempoExecutor

/// What the main-queue stall watch reads of the thread that drains the main queue: whether it
/// waits in the kernel (blocked) or could run (busy, or starved of a core). Linux's reading is
/// run here; Darwin's (`thread_info`) is written against Apple's headers and not run here.
@Suite struct ThreadRunStateTests {
  @Test func theCurrentThreadRuns() {
    #expect(tempo_thread_runs(tempo_current_thread()) == 1)
  }

  @Test func noThreadCannotBeRead() {
    #expect(tempo_thread_runs(0) == -1)
    #expect(tempo_thread_runs(UInt64(Int32.max)) == -1)
  }

  /// A thread that spins on a flag reads as able to run at every look; once it waits on a
  /// semaphore, it reads as waiting, until it is signalled.
  @Test func aSpinningThreadRunsAndABlockedOneWaits() {
    let thread = Atomic<UInt64>(0)
    let spins = Atomic<Bool>(true)
    let wake = DispatchSemaphore(value: 0)
    let ended = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      thread.store(tempo_current_thread(), ordering: .sequentiallyConsistent)
      while spins.load(ordering: .sequentiallyConsistent) {}
      wake.wait()
      ended.signal()
    }
    var id: UInt64 = 0
    while id == 0 { id = thread.load(ordering: .sequentiallyConsistent) }
    #expect((1...20).map { _ in tempo_thread_runs(id) } == Array(repeating: 1, count: 20))
    spins.store(false, ordering: .sequentiallyConsistent)
    // It reads as able to run until it has entered the wait, and waiting from then on.
    var reads = 0
    while tempo_thread_runs(id) != 0, reads < 10_000_000 { reads += 1 }
    #expect(tempo_thread_runs(id) == 0)
    wake.signal()
    ended.wait()
  }

  /// Each block of Tempo's on the main queue records the thread it started on: while one runs,
  /// that thread runs.
  @Test func theMainQueuesThreadRunsWhileABlockOfTempoRunsThere() async {
    let seen = Atomic<Int>(0)
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      MainQueueActivity.async {
        MainQueueActivity.blockStarted()
        seen.store(MainQueueActivity.drainerRuns ? 1 : 2, ordering: .relaxed)
        done.resume()
      }
    }
    #expect(seen.load(ordering: .relaxed) == 1)
  }
}
