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

let tempoSchedulers = [
  SchedulerImplementation(name: "Tempo, sync") { test in
    let scheduler = DispatchQueue.test
    return await test.run(on: scheduler) { scheduler.advance(by: $0) }
  },
  // The async `advance` runs the actions on the caller's actor, the main actor here. OpenCombine's
  // stride is not `Sendable`: it is made anew in the closure, as a test's literal is.
  SchedulerImplementation(name: "Tempo, async") { test in
    let scheduler = DispatchQueue.test
    return await test.run(on: scheduler) { await scheduler.advance(by: .nanoseconds($0.magnitude)) }
  },
  SchedulerImplementation(name: "Tempo, async, withTestExecutor") { test in
    await withTestExecutor {
      let scheduler = DispatchQueue.test
      return await test.run(on: scheduler) {
        await scheduler.advance(by: .nanoseconds($0.magnitude))
      }
    }
  },
]
