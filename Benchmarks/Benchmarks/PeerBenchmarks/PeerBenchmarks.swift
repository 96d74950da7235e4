import Benchmark
import Clocks
import CombineSchedulers
import Foundation
import OpenCombineShim
import Workloads

typealias Scheduler = TestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>

let benchmarks: @Sendable () -> Void = {
  registerSchedulerBenchmarks(
    "combine-schedulers", sizes: Sizes.peers,
    SchedulerUnderTest<Scheduler>(
      make: { Scheduler(now: .init(.init(uptimeNanoseconds: 1))) },
      advance: { $0.advance(by: $1) },
      run: { $0.run() },
      timer: { Publishers.Timer(every: $1, scheduler: $0).autoconnect().eraseToAnyPublisher() }
    ))

  registerClockBenchmarks(
    "swift-clocks", sizes: Sizes.peers,
    ClockUnderTest<TestClock<Duration>>(
      make: { TestClock() },
      advance: { await $0.advance(by: $1) },
      // swift-clocks cannot say how many tasks sleep on it; its own advance yields first.
      settle: { clock, _ in await clock.advance() }
    ))
}
