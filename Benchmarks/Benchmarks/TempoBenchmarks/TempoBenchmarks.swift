import Benchmark
import Foundation
import HeapModule
import TempoClocks
import TempoSchedulers
import TempoTestSupport
import Workloads

typealias Scheduler = TestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>

let benchmarks: @Sendable () -> Void = {
  registerSchedulerBenchmarks(
    "Tempo", sizes: Sizes.tempo,
    SchedulerUnderTest<Scheduler>(
      make: { Scheduler(now: .init(.init(uptimeNanoseconds: 1))) },
      advance: { $0.advance(by: $1) },
      run: { $0.run() },
      timer: { Publishers.Timer(every: $1, scheduler: $0).autoconnect().eraseToAnyPublisher() }
    ))

  registerClockBenchmarks(
    "Tempo", sizes: Sizes.peers,
    ClockUnderTest<TestClock<Duration>>(
      make: { TestClock() },
      advance: { await $0.advance(by: $1) },
      settle: { clock, count in
        while clock.pendingSleeperCount < count { await Task.yield() }
      }
    ))

  // The same clock workloads inside a test executor: each step waits for quiet by
  // construction instead of probing.
  registerClockBenchmarks(
    "TempoExecutor", sizes: Sizes.peers,
    ClockUnderTest<TestClock<Duration>>(
      make: { TestClock() },
      advance: { await $0.advance(by: $1) },
      settle: { clock, count in
        while clock.pendingSleeperCount < count { await Task.yield() }
      },
      scope: { body in await withTestExecutor { await body() } }
    ))

  // The floor: what any heap-based timeline must do at least. Push n (date, sequence, closure)
  // entries through a binary heap, pop them in order and call each closure.
  for size in Sizes.tempo {
    Benchmark(
      benchmarkName("Floor", "one-shots-advance", size), configuration: configuration(size: size)
    ) {
      benchmark in
      for _ in benchmark.scaledIterations {
        var heap = Heap<FloorEntry>()
        var ran = 0
        for (sequence, offset) in offsets(size).enumerated() {
          heap.insert(FloorEntry(date: offset, sequence: sequence) { ran += 1 })
        }
        while let entry = heap.popMin() { entry.action() }
        blackHole(ran)
      }
    }
  }
}

struct FloorEntry: Comparable {
  let date: Int
  let sequence: Int
  let action: () -> Void

  static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.date, lhs.sequence) < (rhs.date, rhs.sequence)
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.date, lhs.sequence) == (rhs.date, rhs.sequence)
  }
}
