import Foundation
import TempoClocks
import TempoExecutor
import TempoTestHelpers
import TempoTestSupport
import Testing

/// On a runtime without the main-executor hooks (before Swift 6.1), or in an arm64e process on a
/// runtime whose hook signing Tempo cannot verify, `withTestExecutor` runs its test on the
/// fallback and warns once per process, saying which. CI simulates each in a process of its own
/// (`TEMPO_SIMULATE_MISSING_HOOK=swift_task_getMainExecutor_hook`, or
/// `TEMPO_SIMULATE_UNVERIFIED_HOOK_SIGNING=1`, this suite alone); elsewhere it is skipped.
let simulatesMissingHooks =
  ProcessInfo.processInfo.environment["TEMPO_SIMULATE_MISSING_HOOK"] != nil
let simulatesUnverifiedSigning =
  ProcessInfo.processInfo.environment["TEMPO_SIMULATE_UNVERIFIED_HOOK_SIGNING"] != nil

@Suite(.enabled(if: simulatesMissingHooks || simulatesUnverifiedSigning))
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
          // The fallback does not wait for the task to reach its sleep: an advance that came
          // first would move time past it (seen once in CI, on a busy machine).
          await waitUntil { clock.pendingWorkCount == 1 }
          await clock.advance(by: .seconds(1))
          // The fallback cannot promise more: what it waited for has run, or is about to.
          await waitUntil { woke.values == ["woke"] }
          #expect(TestExecutor.current == nil)
        }
      }
    }
    #expect(issues.count == 1)
    let reason = simulatesUnverifiedSigning ? "arm64e" : "Swift 6.1"
    #expect(issues.first?.contains(reason) == true)
    #expect(!TestExecutor.hooksAreInstalled)
  }
}
