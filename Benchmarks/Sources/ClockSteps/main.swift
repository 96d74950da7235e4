// Times async steps of Tempo's test clock for profiling:
//   ClockSteps <one|many|one-system> <n> [repeats]
// `one`: one task sleeps n times on the clock, 1 ms each, and one advance moves through them.
// `one-system`: the same task sleeps with `Task.sleep(for:)`, on the clock after
// `controlSystemSleeps()` (issue #38: within 1.5× of `one`).
// `many`: n tasks sleep once each, due 1 ms apart.
import Foundation
import TempoClocks
import TempoTestSupport

let arguments = CommandLine.arguments
let mode = arguments[1]
let n = Int(arguments[2])!
let repeats = arguments.count > 3 ? Int(arguments[3])! : 5

nonisolated func measure() async {
  await withTestExecutor {
    let clock = TestClock()
    let tasks: [Task<Void, any Error>]
    switch mode {
    case "one":
      tasks = [Task { for _ in 0..<n { try await clock.sleep(for: .milliseconds(1)) } }]
      while clock.pendingWorkCount < 1 { await Task.yield() }
    case "one-system":
      await clock.controlSystemSleeps()
      tasks = [Task { for _ in 0..<n { try await Task.sleep(for: .milliseconds(1)) } }]
      while clock.pendingWorkCount < 1 { await Task.yield() }
    default:
      let start = clock.now
      tasks = (0..<n).map { i in
        Task { try await clock.sleep(until: start.advanced(by: .milliseconds(i + 1))) }
      }
      while clock.pendingWorkCount < n { await Task.yield() }
    }
    let t0 = Date()
    await clock.advance(by: .milliseconds(n))
    let dt = Date().timeIntervalSince(t0)
    print(mode, n, String(format: "%.2f µs/step", dt / Double(n) * 1e6))
    for t in tasks { t.cancel() }
  }
}

for _ in 0..<repeats { await measure() }
