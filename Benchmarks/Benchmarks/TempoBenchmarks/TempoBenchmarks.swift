import Benchmark
import Foundation
import TempoClocks
import TempoTestSupport
import TempoUnderTest
import Workloads

let benchmarks: @Sendable () -> Void = {
  registerSchedulerBenchmarks("Tempo", sizes: Sizes.tempo, tempoScheduler)
  // The same workloads on the floor behind Combine's Scheduler API (see `SchedulerFloor`).
  registerSchedulerBenchmarks("SchedulerFloor", sizes: Sizes.tempo, schedulerFloor)

  /// Tempo's test clock for the clock workloads, each iteration run inside `scope`.
  func tempoClock(
    scope: @escaping @Sendable (@Sendable () async -> Void) async -> Void = { await $0() }
  ) -> ClockUnderTest<TestClock<Duration>> {
    ClockUnderTest(
      make: { TestClock() },
      advance: { await $0.advance(by: $1) },
      settle: { clock, count in
        while clock.pendingWorkCount < count { await Task.yield() }
      },
      scope: scope
    )
  }

  // The clock workloads as a test without a wrapper writes them: the clock, created in the
  // benchmark's task, opens a test executor for it.
  registerClockBenchmarks("Tempo", sizes: Sizes.peers, tempoClock())

  // The same clock workloads inside an explicit `withTestExecutor` scope.
  registerClockBenchmarks(
    "TempoExecutor", sizes: Sizes.peers,
    tempoClock { body in await withTestExecutor { await body() } })

  // What a test pays to open and close a test executor: explicitly, and by creating a clock in
  // a task (which opens one for the task and closes it when the clock goes).
  let perOpening = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo,
    maxDuration: .seconds(3), maxIterations: 100)
  Benchmark("TempoExecutor_scope-open-close", configuration: perOpening) {
    benchmark in
    for _ in benchmark.scaledIterations {
      await withTestExecutor {}
    }
  }
  Benchmark("Tempo_clock-open-close", configuration: perOpening) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(TestClock())
    }
  }

  // The floor: what any heap-based timeline must do at least (see `floorWorkload`).
  for size in Sizes.tempo {
    Benchmark(
      benchmarkName("Floor", "one-shots-advance", size), configuration: configuration(size: size)
    ) {
      benchmark in
      for _ in benchmark.scaledIterations {
        blackHole(floorWorkload(size))
      }
    }
  }
}
