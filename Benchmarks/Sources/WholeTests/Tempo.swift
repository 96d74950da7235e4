// Tempo's implementations: its test clock and its `DispatchQueue.test`, without a wrapper and
// inside `withTestExecutor`.

import Foundation
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

/// The async `advance` is nonisolated: it runs the scheduler's actions off the main actor, where
/// a `@MainActor` model's `sink` traps (Swift checks the closure's isolation when it is called).
let offMainActor = [
  "combine-search-debounce":
    "traps: the async advance runs the actions off the main actor, and the model's @MainActor sink checks its isolation"
]

let tempoSchedulers = [
  SchedulerImplementation(name: "Tempo, sync") { test in
    let scheduler = DispatchQueue.test
    return await test.run(on: scheduler) { scheduler.advance(by: $0) }
  },
  // The async `advance` is nonisolated, and OpenCombine's stride is not `Sendable`: the stride is
  // made anew in the closure, as a test's literal is, so that it may be sent there.
  SchedulerImplementation(name: "Tempo, async", skipping: offMainActor) { test in
    let scheduler = DispatchQueue.test
    return await test.run(on: scheduler) { await scheduler.advance(by: .nanoseconds($0.magnitude)) }
  },
  SchedulerImplementation(name: "Tempo, async, withTestExecutor", skipping: offMainActor) { test in
    await withTestExecutor {
      let scheduler = DispatchQueue.test
      return await test.run(on: scheduler) {
        await scheduler.advance(by: .nanoseconds($0.magnitude))
      }
    }
  },
]
