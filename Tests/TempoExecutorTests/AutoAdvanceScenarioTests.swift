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
/// Only the scope is exact so far. Without a wrapper, time sometimes jumps while work of the
/// test can still run (`timeJumpsEarlyWithoutAWrapper`); with the clock made outside any task,
/// whenever a child task sleeps first (`aChildThatSleepsFirstHidesTheTestsWork`). Both are
/// known issues below: when their reproductions pass, drop the `withKnownIssue`s.
@Suite(.timeLimit(.minutes(1))) struct AutoAdvanceScenarioTests {
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
    withKnownIssue("time jumps early without a wrapper", isIntermittent: true) {
      #expect(failures == [], "\(name)")
    }
  }

  /// The clock is made, and set to advance by itself, outside any task: it finds the test's
  /// executor from the first task that sleeps on it. No issue is reported.
  @Test(arguments: names)
  func scenarioPassesEveryTimeWithTheClockMadeOutsideATask(_ name: String) async {
    if Self.skips(name) { return }
    var failures: [String] = []
    let issues = await countingIssues {
      for _ in 0..<AsyncScenarioTests.repetitions {
        let clock = await clockMadeOutsideATask(automaticallyAdvances: true)
        failures += await Self.scenario(name).runAdvancingByItself(on: clock)
      }
    }
    withKnownIssue("a child task that sleeps first hides the test's work", isIntermittent: true) {
      #expect(failures == [], "\(name)")
    }
    #expect(issues == [], "\(name)")
  }

  /// The reproduction of the first known issue. Without a wrapper, a task started on the main
  /// actor makes the clock and awaits two `async let` sleepers of 1 s and 2 s: now and then the
  /// second wakes at 3 s, time having jumped to 1 s before it slept. (About 4 in 100 as
  /// `@MainActor @Test` cases, debug build; 1 in 1,000 nonisolated; never in a scope, nor by
  /// hand.) Intermittent: a run may see none.
  @Test func timeJumpsEarlyWithoutAWrapper() async {
    var woke: [[Duration]] = []
    for _ in 0..<500 {
      woke.append(
        await Task { @MainActor in
          let clock = autoAdvancingClock()
          async let first = wakeTime(after: .seconds(1), on: clock)
          async let second = wakeTime(after: .seconds(2), on: clock)
          return await [first, second]
        }.value)
    }
    withKnownIssue("time jumps early without a wrapper", isIntermittent: true) {
      #expect(woke.filter { $0 != [.seconds(1), .seconds(2)] } == [])
    }
  }

  /// The reproduction of the second. On an auto-advancing clock made outside any task, the
  /// executor time waits on is opened for the first task that sleeps on the clock, and adopts
  /// that task's descendants only. Here that task is a child of the test's task, so the other
  /// child, still yielding, is not seen: time jumps to the first child's sleeper, at 1,000 s,
  /// and the other child wakes at 1,001 s, not at 1 s. (By hand, or when the test's own task
  /// sleeps first, it wakes at 1 s.) Every time so far.
  @Test func aChildThatSleepsFirstHidesTheTestsWork() async {
    var woke: [Duration] = []
    for _ in 0..<20 {
      let clock = await clockMadeOutsideATask(automaticallyAdvances: true)
      let far = Task { try? await clock.sleep(for: .seconds(1_000)) }
      let task = Task {
        for _ in 0..<200 { await Task.yield() }
        return await wakeTime(after: .seconds(1), on: clock)
      }
      woke.append(await task.value)
      far.cancel()
      await far.value
    }
    withKnownIssue("a child task that sleeps first hides the test's work") {
      #expect(woke == Array(repeating: .seconds(1), count: 20))
    }
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
