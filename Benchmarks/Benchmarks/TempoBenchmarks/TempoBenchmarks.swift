import Benchmark
import Foundation
import TempoClocks
import TempoTestSupport
import TempoUnderTest
import Workloads

let benchmarks: @Sendable () -> Void = {
  registerSchedulerBenchmarks("Tempo", sizes: Sizes.tempo, tempoScheduler)

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

  registerClockBenchmarks("Tempo", sizes: Sizes.peers, tempoClock())

  // The same clock workloads inside a test executor: each step waits for quiet by
  // construction instead of probing.
  registerClockBenchmarks(
    "TempoExecutor", sizes: Sizes.peers,
    tempoClock { body in await withTestExecutor { await body() } })

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
