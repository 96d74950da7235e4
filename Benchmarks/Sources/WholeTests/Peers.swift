// The peers' implementations: swift-clocks' `TestClock` and combine-schedulers'
// `DispatchQueue.test`, plain and inside swift-concurrency-extras' `withMainSerialExecutor` (their
// documented fix for flaky async tests).

import Clocks
import CombineSchedulers
import ConcurrencyExtras
import Foundation
import OpenCombineShim

let peerClocks = [
  ClockImplementation(name: "swift-clocks") { test in
    await test.run(on: TestClock()) { await $0.advance(by: $1) }
  },
  ClockImplementation(name: "swift-clocks, withMainSerialExecutor") { test in
    var failures: [String] = []
    await withMainSerialExecutor {
      failures = await test.run(on: TestClock()) { await $0.advance(by: $1) }
    }
    return failures
  },
]

let peerSchedulers = [
  SchedulerImplementation(name: "combine-schedulers, sync") { test in
    await runOnCombineSchedulers(test) { $0.advance(by: $1) }
  },
  SchedulerImplementation(name: "combine-schedulers, sync, withMainSerialExecutor") { test in
    var failures: [String] = []
    await withMainSerialExecutor {
      failures = await runOnCombineSchedulers(test) { $0.advance(by: $1) }
    }
    return failures
  },
  SchedulerImplementation(name: "combine-schedulers, async") { test in
    await runOnCombineSchedulers(test) { await $0.advance(by: $1) }
  },
  SchedulerImplementation(name: "combine-schedulers, async, withMainSerialExecutor") { test in
    var failures: [String] = []
    await withMainSerialExecutor {
      failures = await runOnCombineSchedulers(test) { await $0.advance(by: $1) }
    }
    return failures
  },
]

/// Runs `test` on combine-schedulers' `DispatchQueue.test` (erased, if the test takes it so),
/// advanced by `advance`; or on its `DispatchQueue.immediate`.
@MainActor
func runOnCombineSchedulers(
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
