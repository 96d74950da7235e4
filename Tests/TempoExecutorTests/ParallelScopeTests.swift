import Foundation
import TempoClocks
import TempoScenarios
import TempoTestSupport
import Testing

/// Twenty tests that each run inside a test executor scope, as a suite marked `.testExecutor`
/// does. Swift Testing runs them in parallel; each must stay exact while the others run.
/// `TEMPO_PARALLEL_REPETITIONS` raises the work per test, to time the whole target.
@Suite(.testExecutor) struct ParallelScopeTests {
  static let repetitions =
    Int(ProcessInfo.processInfo.environment["TEMPO_PARALLEL_REPETITIONS"] ?? "5") ?? 5

  @Test(arguments: 0..<20)
  func aScopedTestIsExactWhileOthersRun(_ index: Int) async {
    let scenario = AsyncScenario.all[index % AsyncScenario.all.count]
    var failures: [String] = []
    for _ in 0..<Self.repetitions {
      failures += await runOnTestClock(scenario)
    }
    #expect(failures == [], "\(scenario.name)")
  }
}
