import Dispatch
import TempoClocks
import TempoExecutor
import TempoTestHelpers
import TempoTestSupport
import Testing

// Where a test's work runs, and that it never keeps a shared thread from the tests beside it.
// A `@MainActor` test's work runs on the main queue, main-actor or not, one job after another
// on the one thread, so that no thread is woken between a main-actor job and the next job of
// the test (those wake-ups were most of a whole test's time). A test of no isolation keeps its
// work on the system's shared pool. Either way a pump runs a turn of jobs and then goes to the
// back of its queue, as the global executor's jobs do: a task of the test that yields in a loop
// until other work has run must not hold the thread that work needs.

/// Where a detached task's first job runs, for a test that waits for it (no advance drains it).
private func placeOfADetachedTask() async -> Bool {
  await Task.detached { isOnMainQueue() }.value
}

@Suite struct WhereWorkRunsTests {
  @MainActor @Test func theWorkOfAMainActorTestRunsOnTheMainQueue() async {
    let clock = TestClock()
    #expect(await placeOfADetachedTask())
    _ = clock
  }

  @MainActor @Test func theWorkOfAMainActorScopeRunsOnTheMainQueue() async {
    await withTestExecutor {
      #expect(await placeOfADetachedTask())
    }
  }

  @Test func theWorkOfATestOfNoIsolationStaysOffTheMainQueue() async {
    let clock = TestClock()
    #expect(await !placeOfADetachedTask())
    _ = clock
  }

  @Test func theWorkOfAScopeOfNoIsolationStaysOffTheMainQueue() async {
    await withTestExecutor {
      #expect(await !placeOfADetachedTask())
    }
  }

  /// More tests than the pool has threads each have a task that yields until a plain GCD block
  /// on the pool has run. Each pump runs its test's yields for a turn and lets the block in;
  /// kept, the threads would all spin, and the blocks would never run.
  @Test func pumpsOfYieldingTasksLeaveThePoolToOtherWork() async {
    let finished = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask {
          await withTestExecutor {
            await Task.detached { await yieldUntilABlockHasRun(on: .global()) }.value
          }
        }
      }
      return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
    }
    #expect(finished == 8)
  }

  /// A `@MainActor` test's task that yields until a plain GCD block on the main queue has run:
  /// the pump on the main queue lets the block in after its turn.
  @MainActor @Test func thePumpOnTheMainQueueLetsItsOtherBlocksRun() async {
    let clock = TestClock()
    #expect(await Task.detached { await yieldUntilABlockHasRun(on: .main) }.value)
    _ = clock
  }
}

/// Queues a block on `queue`, then yields until it has run; answers whether it ran within
/// 10,000 yields. A queue runs its blocks in order: ahead of this one are at most a turn of
/// each pump (16 jobs) and the blocks of the tests beside, so with turns it runs within a few
/// hundred yields; a pump that kept its thread ran millions first (16 s on two cores).
private func yieldUntilABlockHasRun(on queue: DispatchQueue) async -> Bool {
  let ran = Log<Void>()
  // After a first yield, so that the pump runs this task's jobs when the block is queued.
  await Task.yield()
  queue.async { ran.append(()) }
  for _ in 0..<10_000 where ran.values.isEmpty { await Task.yield() }
  return !ran.values.isEmpty
}
