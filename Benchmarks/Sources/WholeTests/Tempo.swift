// Tempo's implementations: its test clock and its `DispatchQueue.test`, without a wrapper and
// inside `withTestExecutor`.

import Foundation
import OpenCombineShim
import TempoClocks
import TempoSchedulers
import TempoTestSupport

let tempoClocks = [
  ClockImplementation(name: "Tempo, no wrapper") { test in
    await test.run(on: TestClock()) { await $0.advance(by: $1) }
  },
  ClockImplementation(name: "Tempo, withTestExecutor") { test in
    await withTestExecutor {
      await test.run(on: TestClock()) { await $0.advance(by: $1) }
    }
  },
]

let tempoSchedulers = [
  SchedulerImplementation(name: "Tempo, sync") { test in
    await runOnTempo(test) { $0.advance(by: $1) }
  },
  SchedulerImplementation(name: "Tempo, sync, withTestExecutor") { test in
    await withTestExecutor {
      await runOnTempo(test) { $0.advance(by: $1) }
    }
  },
  // The async `advance` runs the actions on the caller's actor, the main actor here. OpenCombine's
  // stride is not `Sendable`: it is made anew in the closure, as a test's literal is.
  SchedulerImplementation(name: "Tempo, async") { test in
    await runOnTempo(test) { await $0.advance(by: .nanoseconds($1.magnitude)) }
  },
  SchedulerImplementation(name: "Tempo, async, withTestExecutor") { test in
    await withTestExecutor {
      await runOnTempo(test) { await $0.advance(by: .nanoseconds($1.magnitude)) }
    }
  },
]

/// Runs `test` on Tempo's `DispatchQueue.test` (erased, if the test takes it so), advanced by
/// `advance`; or on `DispatchQueue.immediate`.
@MainActor
func runOnTempo(
  _ test: any SchedulerTest,
  advance:
    @MainActor (TestSchedulerOf<DispatchQueue>, DispatchQueue.SchedulerTimeType.Stride)
    async -> Void
) async -> [String] {
  if test.isImmediate { return await test.run(on: DispatchQueue.immediate) { _ in } }
  let scheduler = DispatchQueue.test
  if test.erasesScheduler {
    return await test.run(on: scheduler.eraseToAnyScheduler()) { await advance(scheduler, $0) }
  }
  return await test.run(on: scheduler) { await advance(scheduler, $0) }
}
