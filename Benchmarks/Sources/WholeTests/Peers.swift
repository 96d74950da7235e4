// The peers' implementations: swift-clocks' `TestClock` and combine-schedulers'
// `DispatchQueue.test`, plain and inside swift-concurrency-extras' `withMainSerialExecutor` (their
// documented fix for flaky async tests).

import Clocks
import CombineSchedulers
import ConcurrencyExtras
import Foundation

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
    let scheduler = DispatchQueue.test
    return await test.run(on: scheduler) { scheduler.advance(by: $0) }
  },
  SchedulerImplementation(name: "combine-schedulers, async") { test in
    let scheduler = DispatchQueue.test
    return await test.run(on: scheduler) { await scheduler.advance(by: $0) }
  },
  SchedulerImplementation(name: "combine-schedulers, async, withMainSerialExecutor") { test in
    var failures: [String] = []
    await withMainSerialExecutor {
      let scheduler = DispatchQueue.test
      failures = await test.run(on: scheduler) { await scheduler.advance(by: $0) }
    }
    return failures
  },
]
