import Dispatch
import TempoClocks
import TempoCore
import TempoExecutor
import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

// Where a test's work runs. A `@MainActor` test's work runs on the main queue, main-actor or
// not, with its advances, one job after another on the one thread: no thread is woken between
// a main-actor job and the next job of the test (the wake-ups were most of a whole test's time).
// A test of no isolation keeps its work off the main queue, which the tests running beside it
// share. Either way, an action that blocks until a job of the test has run still finishes: the
// backstop runs the queue on a system thread.

/// Whether the caller runs on the main queue (the main actor's executor).
private func isOnMainQueue() -> Bool {
  DispatchQueue.getSpecific(key: mainQueueKey) != nil
}

private let mainQueueKey: DispatchSpecificKey<Void> = {
  let key = DispatchSpecificKey<Void>()
  DispatchQueue.main.setSpecific(key: key, value: ())
  return key
}()

/// Where the jobs of a task of no isolation ran, before and after its sleep, and where the
/// advance that woke it went on.
private struct Places: Equatable {
  var taskBeforeSleep: Bool
  var taskAfterSleep: Bool
}

/// Starts a detached task that notes where it runs before and after sleeping a second on
/// `clock`, advances the clock by a second, and answers what the task noted.
private func placesOfADetachedSleeper(on clock: TestClock<Duration>) async -> Places {
  let places = Log<Bool>()
  let sleeper = Task.detached {
    places.append(isOnMainQueue())
    try? await clock.sleep(for: .seconds(1))
    places.append(isOnMainQueue())
  }
  await clock.advance(by: .seconds(1))
  await sleeper.value
  return Places(taskBeforeSleep: places.values[0], taskAfterSleep: places.values[1])
}

@Suite struct WhereWorkRunsTests {
  @MainActor @Test func theWorkOfAMainActorTestRunsOnTheMainQueue() async {
    _ = mainQueueKey
    let places = await placesOfADetachedSleeper(on: TestClock())
    #expect(places == Places(taskBeforeSleep: true, taskAfterSleep: true))
  }

  @MainActor @Test func theWorkOfAMainActorScopeRunsOnTheMainQueue() async {
    _ = mainQueueKey
    await withTestExecutor {
      let places = await placesOfADetachedSleeper(on: TestClock())
      #expect(places == Places(taskBeforeSleep: true, taskAfterSleep: true))
    }
  }

  @Test func theWorkOfATestOfNoIsolationStaysOffTheMainQueue() async {
    _ = mainQueueKey
    let places = await placesOfADetachedSleeper(on: TestClock())
    #expect(places == Places(taskBeforeSleep: false, taskAfterSleep: false))
  }

  @Test func theWorkOfAScopeOfNoIsolationStaysOffTheMainQueue() async {
    _ = mainQueueKey
    await withTestExecutor {
      let places = await placesOfADetachedSleeper(on: TestClock())
      #expect(places == Places(taskBeforeSleep: false, taskAfterSleep: false))
    }
  }

  /// An advance of a `@MainActor` test called from code of no isolation goes on on the main
  /// queue once its work is quiet, as the test's work does.
  @MainActor @Test func anAdvanceFromCodeOfNoIsolationGoesOnOnTheMainQueue() async {
    _ = mainQueueKey
    let clock = TestClock()
    let woken = Log<Int>()
    let sleeper = Task.detached {
      try? await clock.sleep(for: .seconds(1))
      woken.append(1)
    }
    let afterAdvance = await advanceOffTheMainActor(clock)
    #expect(afterAdvance)
    #expect(woken.values == [1])
    sleeper.cancel()
  }

  /// A `@MainActor` test's advance holds the main thread while its action runs: an action that
  /// blocks until a job of the test has run gets that job run by the backstop, on a system
  /// thread, not on the main queue it holds.
  @MainActor @Test func anActionThatBlocksTheMainThreadOnAJobStillFinishes() async {
    await withTestExecutor {
      let ran = await runAnActionThatBlocksOnAJob()
      #expect(ran == ["task", "action"])
    }
  }

  /// Several drivers blocked in their actions at once are each rescued by the one backstop
  /// thread.
  @Test func actionsBlockedInParallelScopesAllFinish() async {
    let results = await withTaskGroup(of: [String].self) { group in
      for _ in 0..<4 {
        group.addTask { await withTestExecutor { await runAnActionThatBlocksOnAJob() } }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results == Array(repeating: ["task", "action"], count: 4))
  }
}

/// Advances `clock` by a second from code of no isolation; answers whether it went on on the
/// main queue afterwards.
private nonisolated func advanceOffTheMainActor(_ clock: TestClock<Duration>) async -> Bool {
  await clock.advance(by: .seconds(1))
  return isOnMainQueue()
}

/// Schedules on a timeline an action that starts a task and blocks until that task has run,
/// advances to it, and answers what ran, in order.
private func runAnActionThatBlocksOnAJob(
  isolation: isolated (any Actor)? = #isolation
) async -> [String] {
  let timeline = Timeline<Int, Int>(now: 0, name: "Timeline") { $0 + $1 }
  let location = TempoSupport.SourceLocation(
    fileID: #fileID, filePath: #filePath, line: #line, column: #column)
  let ran = Log<String>()
  timeline.schedule(after: 1, at: location) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
      ran.append("task")
      done.signal()
    }
    done.wait()
    ran.append("action")
  }
  await timeline.advance(by: 1, at: location)
  return ran.values
}
