import Foundation
import TempoClocks
import TempoScenarios
import TempoTestSupport
import Testing

/// The async scenarios of the stress run (Benchmarks/Sources/AsyncStress), each repeated a few
/// times on a test executor: a regression in deterministic advancing fails here first.
@Suite struct AsyncScenarioTests {
  static let repetitions = 20

  @Test(arguments: AsyncScenario.all.filter { $0.limitation == nil }.map(\.name))
  func scenarioPassesEveryTime(_ name: String) async {
    let scenario = AsyncScenario.all.first { $0.name == name }!
    if let only = ProcessInfo.processInfo.environment["TEMPO_SCENARIO"], only != name { return }
    var failures: [String] = []
    for _ in 0..<Self.repetitions {
      failures += await runOnTestExecutor(scenario)
    }
    #expect(failures == [], "\(name)")
  }
}

/// Runs one scenario on a fresh test clock inside a test executor.
func runOnTestExecutor(_ scenario: AsyncScenario) async -> [String] {
  await withTestExecutor {
    let clock = TestClock()
    let start = clock.now
    let scenarioClock = ScenarioClock(
      clock: clock,
      advanceBy: { await clock.advance(by: $0) },
      elapsed: { start.duration(to: clock.now) }
    )
    return await scenario.body(scenarioClock)
  }
}
