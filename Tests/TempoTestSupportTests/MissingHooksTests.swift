import Foundation
import TempoClocks
import TempoExecutor
import TempoTestHelpers
import TempoTestSupport
import Testing

/// On a runtime without the main-executor hooks (before Swift 6.1), `withTestExecutor` runs its
/// test on the fallback and warns once per process. CI simulates such a runtime in a process of
/// its own (`TEMPO_SIMULATE_MISSING_HOOK=swift_task_getMainExecutor_hook`, this suite alone);
/// elsewhere the suite is skipped.
let simulatesMissingHooks =
  ProcessInfo.processInfo.environment["TEMPO_SIMULATE_MISSING_HOOK"] != nil

@Suite(.enabled(if: simulatesMissingHooks))
struct MissingHooksTests {
  @Test func scopesRunOnTheFallbackWithOneWarningPerProcess() async {
    #expect(!TestExecutor.isSupported)
    let issues = await countingIssues {
      for _ in 0..<3 {
        await withTestExecutor {
          let clock = TestClock()
          let woke = Log<String>()
          Task {
            try? await clock.sleep(for: .seconds(1))
            woke.append("woke")
          }
          await clock.advance(by: .seconds(1))
          // The fallback cannot promise more: what it waited for has run, or is about to.
          await waitUntil { woke.values == ["woke"] }
          #expect(TestExecutor.current == nil)
        }
      }
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("Swift 6.1") == true)
    #expect(!TestExecutor.hooksAreInstalled)
  }
}
