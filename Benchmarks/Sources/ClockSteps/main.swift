// Times async steps of Tempo's test clock for profiling:
//   ClockSteps <one|many|one-system|make-clock|empty-scope|clock-in-task|clock-in-scope> <n>
//     [repeats]
// `one`: one task sleeps n times on the clock, 1 ms each, and one advance moves through them.
// `one-system`: the same task sleeps with `Task.sleep(for:)`, on the clock after
// `controlSystemSleeps()` (issue #38: within 1.5× of `one`).
// `many`: n tasks sleep once each, due 1 ms apart.
// The fixed costs of a test, per test (n of each, in a row):
// `make-clock`: a `TestClock` made and dropped in a task, nothing advanced;
// `empty-scope`: an empty `withTestExecutor {}`;
// `clock-in-task`: a clock made in a task and advanced by 1 s with nothing pending (it opens and
// closes the task's own test executor);
// `clock-in-scope`: the same inside `withTestExecutor`.
// A main-actor task that yields n times in a row, per yield:
// `main-yields`: in a test with a clock (the task's test executor is open);
// `main-yields-runtime`: with no time control, on the runtime's own executors;
// `main-yields-serial`: in swift-concurrency-extras' `withMainSerialExecutor`.
import ConcurrencyExtras
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

/// Times `n` runs of `body` and prints µs per run.
nonisolated func measureFixed(_ body: () async -> Void) async {
  let t0 = Date()
  for _ in 0..<n { await body() }
  let dt = Date().timeIntervalSince(t0)
  print(mode, n, String(format: "%.2f µs/test", dt / Double(n) * 1e6))
}

nonisolated func measureFixedCost() async {
  switch mode {
  case "make-clock":
    await measureFixed { withExtendedLifetime(TestClock()) {} }
  case "empty-scope":
    await measureFixed { await withTestExecutor {} }
  case "clock-in-task":
    await measureFixed { await TestClock().advance(by: .seconds(1)) }
  case "clock-in-scope":
    await measureFixed { await withTestExecutor { await TestClock().advance(by: .seconds(1)) } }
  default:
    fatalError("unknown mode \(mode)")
  }
}

/// Times a main-actor task that yields `n` times, awaited from the main actor.
@MainActor func measureYields() async {
  let t0 = Date()
  await Task { @MainActor in for _ in 0..<n { await Task.yield() } }.value
  let dt = Date().timeIntervalSince(t0)
  print(mode, n, String(format: "%.2f µs/yield", dt / Double(n) * 1e6))
}

@MainActor func measureYieldsInTest() async {
  switch mode {
  case "main-yields":
    let clock = TestClock()
    await measureYields()
    withExtendedLifetime(clock) {}
  case "main-yields-serial":
    await withMainSerialExecutor { await measureYields() }
  default:
    await measureYields()
  }
}

for _ in 0..<repeats {
  switch mode {
  case "one", "one-system", "many": await measure()
  case "main-yields", "main-yields-runtime", "main-yields-serial":
    await Task { @MainActor in await measureYieldsInTest() }.value
  default: await measureFixedCost()
  }
}
