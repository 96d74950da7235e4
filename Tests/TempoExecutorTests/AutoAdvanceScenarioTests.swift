import Foundation
import TempoClocks
import TempoScenarios
import TempoTestHelpers
import TempoTestSupport
import Testing

/// The auto-advance form of the stress run's scenarios (`AsyncStress --auto-advance`), each
/// repeated a few times: on a clock whose time moves by itself, each awaits the code under test
/// and checks the virtual times it saw. A scenario that waits forever (time that does not move)
/// fails at the time limit instead of holding the run.
///
/// Each runs in a `withTestExecutor` scope, with the clock made in the test's task and no
/// wrapper, and with the clock made outside any task (an XCTest property) and no wrapper.
///
/// The limit is three minutes: the 24 cases of a test run at once, and beside the whole
/// parallel suite with every core kept busy each took 47 to 71 seconds (under a minute
/// alone with two busy loops).
@Suite(.timeLimit(.minutes(3))) struct AutoAdvanceScenarioTests {
  static let names = AsyncScenario.autoAdvancing.map(\.name)

  static func scenario(_ name: String) -> AsyncScenario {
    AsyncScenario.autoAdvancing.first { $0.name == name }!
  }

  /// Whether `TEMPO_SCENARIO` names another scenario, for a longer local check of one.
  static func skips(_ name: String) -> Bool {
    ProcessInfo.processInfo.environment["TEMPO_SCENARIO"].map { $0 != name } ?? false
  }

  @Test(arguments: names)
  func scenarioPassesEveryTimeInAScope(_ name: String) async {
    if Self.skips(name) { return }
    var failures: [String] = []
    for _ in 0..<AsyncScenarioTests.repetitions {
      failures += await withTestExecutor {
        await Self.scenario(name).runAdvancingByItself(on: autoAdvancingClock())
      }
    }
    #expect(failures == [], "\(name)")
  }

  /// The clock, created in the test's task, opens the executor itself.
  @Test(arguments: names)
  func scenarioPassesEveryTimeWithoutAWrapper(_ name: String) async {
    if Self.skips(name) { return }
    var failures: [String] = []
    for _ in 0..<AsyncScenarioTests.repetitions {
      failures += await Self.scenario(name).runAdvancingByItself(on: autoAdvancingClock())
    }
    #expect(failures == [], "\(name)")
  }

  /// The clock is made, and set to advance by itself, outside any task, and the test's task is
  /// started by no task, as XCTest runs a test method of a test case holding the clock: it
  /// finds the test's executor from the first task that sleeps on it. No issue is reported.
  @Test(arguments: names)
  func scenarioPassesEveryTimeWithTheClockMadeOutsideATask(_ name: String) async {
    if Self.skips(name) { return }
    var failures: [String] = []
    let issues = await countingIssues {
      for _ in 0..<AsyncScenarioTests.repetitions {
        failures += await runAsAnXCTestMethod(automaticallyAdvances: true) { clock in
          await Self.scenario(name).runAdvancingByItself(on: clock)
        }
      }
    }
    #expect(failures == [], "\(name)")
    #expect(issues == [], "\(name)")
  }

  /// Without a wrapper, a task makes the clock and awaits two `async let` sleepers of 1 s and
  /// 2 s. The job that made the clock came to no executor: until it suspends, the second child
  /// may not have started, so time must not jump to the first child's 1 s. (It did in about
  /// 4 runs in 100 on the main actor, 1 in 1,000 nonisolated, before the executor read the
  /// opening task's status.) 200 runs; 100 under a sanitizer. (500 came within seconds of a
  /// minute under a sanitizer, and over it in 4 of 60 runs beside the whole parallel suite
  /// with every core kept busy, where the main queue all `@MainActor` tests share is the
  /// bottleneck.)
  @Test(arguments: [true, false])
  func asyncLetChildrenAllSleepBeforeTimeMovesWithoutAWrapper(onMainActor: Bool) async {
    var woke: [[Duration]] = []
    let sanitized = ProcessInfo.processInfo.environment.keys.contains {
      $0 == "TSAN_OPTIONS" || $0 == "ASAN_OPTIONS"
    }
    for _ in 0..<(sanitized ? 100 : 200) {
      let sleepTwice: @Sendable () async -> [Duration] = {
        let clock = autoAdvancingClock()
        async let first = wakeTime(after: .seconds(1), on: clock)
        async let second = wakeTime(after: .seconds(2), on: clock)
        return await [first, second]
      }
      if onMainActor {
        woke.append(await Task { @MainActor in await sleepTwice() }.value)
      } else {
        woke.append(await Task(operation: sleepTwice).value)
      }
    }
    #expect(woke.filter { $0 != [.seconds(1), .seconds(2)] } == [])
  }

  /// On an auto-advancing clock made outside any task, the first task to sleep is one the
  /// test's task started. The executor time waits on is the test task's, adopting every task it
  /// started: the other task, still yielding, is seen, and wakes at 1 s, not at 1,001 s after
  /// a jump to the first one's 1,000 s.
  @Test func aTaskThatSleepsFirstDoesNotHideTheTestsWork() async {
    var woke: [Duration] = []
    for _ in 0..<20 {
      woke.append(
        await runAsAnXCTestMethod(automaticallyAdvances: true) { clock in
          let far = Task { try? await clock.sleep(for: .seconds(1_000)) }
          let task = Task {
            for _ in 0..<200 { await Task.yield() }
            return await wakeTime(after: .seconds(1), on: clock)
          }
          let woke = await task.value
          far.cancel()
          await far.value
          return woke
        })
    }
    #expect(woke == Array(repeating: .seconds(1), count: 20))
  }
}

/// A test clock, made in the current task, whose time moves by itself.
func autoAdvancingClock() -> TestClock<Duration> {
  let clock = TestClock()
  clock.automaticallyAdvances = true
  return clock
}

/// Sleeps on `clock` for `duration`; answers the time it woke at.
private func wakeTime(after duration: Duration, on clock: TestClock<Duration>) async -> Duration {
  try? await clock.sleep(for: duration)
  return clock.now.offset
}

/// A test's own task that waits for a state by yielding keeps time still: each yield is the
/// test's work.
///
/// Without a scope, the test runner starts the test's task on the runtime's generic executor,
/// where `Task.yield()` queues a continuation job that no hook sees, and the task's status then
/// reads as suspended. The clock's executor recognises a task parked in a yield by where it
/// resumes (`YieldResumePoint`), and waits for it. Beside the whole parallel suite with every
/// core kept busy, that continuation once waited 58 seconds on the runtime's queue, while the
/// waits' looks ran on the global dispatch queue, which had threads to spare: the waits ran out,
/// and time jumped in the first of the 50 rounds (2 runs of the suite in 30). Since the looks
/// go through the queue the continuation waits on (`TasksQueue`), it is strict.
@Suite struct YieldingTestTaskTests {
  @Test(arguments: [false, true])
  func aTestTaskThatYieldsKeepsAnAutoAdvancingClockStill(inScope: Bool) async {
    var moved: [Duration] = []
    for _ in 0..<50 {
      let body = { () async -> Duration in
        let clock = autoAdvancingClock()
        let far = Task { try? await clock.sleep(for: .seconds(1_000)) }
        for _ in 0..<200 { await Task.yield() }
        let now = clock.now.offset
        far.cancel()
        await far.value
        return now
      }
      moved.append(inScope ? await withTestExecutor { await body() } : await body())
    }
    #expect(moved.filter { $0 != .zero } == [])
  }
}
