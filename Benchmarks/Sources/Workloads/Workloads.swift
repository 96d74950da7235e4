// The benchmark workloads, generic over the scheduler or clock under test. Each takes the
// operations it needs as closures, so Tempo and its peers run the same code.

public import Benchmark
import Foundation
public import OpenCombineShim

/// Sizes to measure, and how long a benchmark may take before it stops sampling.
public enum Sizes {
  /// Tempo's sizes: up to a million pending actions.
  public static let tempo = [1_000, 10_000, 100_000, 1_000_000]
  /// The peers' sizes. combine-schedulers re-sorts its queue before every action (12 s for
  /// 10,000 actions here) and swift-clocks yields 20 tasks per step, so larger sizes do not
  /// finish in reasonable time; they are listed as such in the results, not hidden.
  public static let peers = [1_000, 10_000]
}

/// The configuration every benchmark uses: a few samples, bounded in time.
///
/// The checked-in allocation thresholds allow a hundredth of an allocation per action (plus two):
/// a run's count varies by a few with how the arrays it fills happen to grow, while one more
/// allocation per action is `size` more.
///
/// One warm-up run at every size: the tool runs each benchmark in a process of its own, and the
/// first test executor of a process makes what the process keeps (the runtime's hooks, the
/// threads' slots, the hang watch's tables), about 1,100 allocations that one of the three
/// samples of a large size would otherwise count.
public func configuration(size: Int) -> Benchmark.Configuration {
  .init(
    metrics: [.wallClock, .mallocCountTotal, .throughput],
    timeUnits: .microseconds,
    warmupIterations: 1,
    scalingFactor: .one,
    maxDuration: .seconds(size >= 100_000 ? 30 : 5),
    maxIterations: size >= 10_000 ? 3 : 20,
    thresholds: [.mallocCountTotal: .init(absolute: [.p90: size / 100 + 2])]
  )
}

/// A benchmark's name: implementation, workload and size, with no spaces, since the benchmark
/// tool writes threshold files with spaces replaced but reads them back without.
public func benchmarkName(_ implementation: String, _ workload: String, _ size: Int) -> String {
  "\(implementation)_\(workload)_n=\(size)"
}

/// Pseudo-random offsets in `0..<size` milliseconds, the same on every run.
public func offsets(_ size: Int) -> [Int] {
  var state: UInt64 = 0x1234_5678
  return (0..<size).map { _ in
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Int((state >> 33) % UInt64(size))
  }
}

/// The scheduler operations a workload needs.
public struct SchedulerUnderTest<S: Scheduler>
where S.SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  public let make: () -> S
  public let advance: (S, S.SchedulerTimeType.Stride) -> Void
  public let run: (S) -> Void
  public let timer: (S, S.SchedulerTimeType.Stride) -> AnyPublisher<S.SchedulerTimeType, Never>

  public init(
    make: @escaping () -> S,
    advance: @escaping (S, S.SchedulerTimeType.Stride) -> Void,
    run: @escaping (S) -> Void,
    timer: @escaping (S, S.SchedulerTimeType.Stride) -> AnyPublisher<S.SchedulerTimeType, Never>
  ) {
    self.make = make
    self.advance = advance
    self.run = run
    self.timer = timer
  }
}

/// Registers the scheduler workloads for `name` at each of `sizes`.
public func registerSchedulerBenchmarks<S: Scheduler>(
  _ name: String, sizes: [Int], _ test: SchedulerUnderTest<S>
) {
  for (workload, body) in schedulerWorkloads(test) {
    for size in sizes {
      Benchmark(benchmarkName(name, workload, size), configuration: configuration(size: size)) {
        benchmark in
        for _ in benchmark.scaledIterations {
          let ran = body(size)
          precondition(ran > 0, "\(workload) did nothing")
          blackHole(ran)
        }
      }
    }
  }
}

/// Every scheduler workload by name: each runs at a size and answers how much work ran.
public func schedulerWorkloads<S: Scheduler>(
  _ test: SchedulerUnderTest<S>
) -> KeyValuePairs<String, (Int) -> Int> {
  /// N repeating timers at random offsets, each due once within the advance; `cancelling`
  /// decides which are cancelled before it.
  func timers(_ size: Int, cancelling: (Int) -> Bool) -> Int {
    let scheduler = test.make()
    var ran = 0
    let timers = offsets(size).map { offset in
      scheduler.schedule(
        after: scheduler.now.advanced(by: .milliseconds(offset)),
        interval: .milliseconds(size)
      ) { ran += 1 }
    }
    for (index, timer) in timers.enumerated() where cancelling(index) { timer.cancel() }
    test.advance(scheduler, .milliseconds(size - 1))
    timers.forEach { $0.cancel() }
    return ran
  }

  /// `startingATask`: a task is started right after the scheduler is made, and never awaited.
  func pipeline(
    startingATask: Bool = false,
    _ transform: @escaping (AnyPublisher<Int, Never>, S) -> AnyPublisher<Int, Never>
  ) -> (Int) -> Int {
    { size in
      let scheduler = test.make()
      let started = startingATask ? Task<Void, Never> {} : nil
      let subject = PassthroughSubject<Int, Never>()
      var received = 0
      let cancellable = transform(subject.eraseToAnyPublisher(), scheduler).sink { _ in
        received += 1
      }
      for value in 0..<size {
        subject.send(value)
        test.advance(scheduler, .milliseconds(2))
      }
      cancellable.cancel()
      withExtendedLifetime(started) {}
      return received
    }
  }

  return [
    "one-shots-advance": { size in
      let scheduler = test.make()
      var ran = 0
      for offset in offsets(size) {
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(offset))) { ran += 1 }
      }
      test.advance(scheduler, .milliseconds(size))
      return ran
    },
    "one-shots-run": { size in
      let scheduler = test.make()
      var ran = 0
      for offset in offsets(size) {
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(offset))) { ran += 1 }
      }
      test.run(scheduler)
      return ran
    },
    "one-timer": { size in
      let scheduler = test.make()
      var ran = 0
      let timer = scheduler.schedule(
        after: scheduler.now.advanced(by: .milliseconds(1)), interval: .milliseconds(1)
      ) { ran += 1 }
      test.advance(scheduler, .milliseconds(size))
      timer.cancel()
      return ran
    },
    "n-timers": { timers($0) { _ in false } },
    "n-timers-half-cancelled": { timers($0) { $0 % 2 == 0 } },
    "debounce": pipeline {
      $0.debounce(for: .milliseconds(1), scheduler: $1).eraseToAnyPublisher()
    },
    "delay": pipeline { $0.delay(for: .milliseconds(1), scheduler: $1).eraseToAnyPublisher() },
    // A delay pipeline beside a task the workload starts and never awaits, as swift-dependencies
    // starts one for each model it stores: run in a task of its own, with a test scheduler made
    // there, the task started is the test's work.
    "delay-beside-a-task": pipeline(startingATask: true) {
      $0.delay(for: .milliseconds(1), scheduler: $1).eraseToAnyPublisher()
    },
    "receive-on": pipeline { $0.receive(on: $1).eraseToAnyPublisher() },
    "delay-receive-on": pipeline {
      $0.delay(for: .milliseconds(1), scheduler: $1).receive(on: $1).eraseToAnyPublisher()
    },
    "timer-publisher": { size in
      let scheduler = test.make()
      var ticks = 0
      let cancellable = test.timer(scheduler, .milliseconds(1)).sink { _ in ticks += 1 }
      test.advance(scheduler, .milliseconds(size))
      cancellable.cancel()
      return ticks
    },
  ]
}

/// Whole tests, as a user writes one, for `InstructionCounts` alone (their size is ignored, so
/// the package benchmarks, which scale a workload, leave them out).
public func wholeTestWorkloads<S: Scheduler>(
  _ test: SchedulerUnderTest<S>
) -> KeyValuePairs<String, (Int) -> Int> {
  [
    // WholeTests' `combine-search-debounce` without its model and its main actor: three
    // queries typed 100 ms apart, through `debounce` and `receive(on:)`, searched once, 300 ms
    // after the last.
    "search-as-you-type": { _ in
      let scheduler = test.make()
      let query = PassthroughSubject<String, Never>()
      var searches = 0
      let cancellable = query.debounce(for: .milliseconds(300), scheduler: scheduler)
        .receive(on: scheduler)
        .sink { _ in searches += 1 }
      query.send("a")
      test.advance(scheduler, .milliseconds(100))
      query.send("ab")
      test.advance(scheduler, .milliseconds(100))
      query.send("abc")
      test.advance(scheduler, .milliseconds(299))
      precondition(searches == 0, "searched before the pause")
      test.advance(scheduler, .milliseconds(1))
      cancellable.cancel()
      return searches
    }
  ]
}

/// The clock operations a workload needs.
public struct ClockUnderTest<C: Clock>: Sendable where C.Duration == Duration {
  public let make: @Sendable () -> C
  public let advance: @Sendable (C, Duration) async -> Void
  /// Waits until `count` tasks are asleep on the clock, as well as the clock can tell.
  public let settle: @Sendable (C, Int) async -> Void
  /// Runs one iteration of a workload, inside whatever scope the clock needs.
  public let scope: @Sendable (@Sendable () async -> Void) async -> Void

  public init(
    make: @escaping @Sendable () -> C,
    advance: @escaping @Sendable (C, Duration) async -> Void,
    settle: @escaping @Sendable (C, Int) async -> Void,
    scope: @escaping @Sendable (@Sendable () async -> Void) async -> Void = { await $0() }
  ) {
    self.make = make
    self.advance = advance
    self.settle = settle
    self.scope = scope
  }
}

/// Registers the clock workloads for `name` at each of `sizes`.
public func registerClockBenchmarks<C: Clock>(
  _ name: String, sizes: [Int], _ test: ClockUnderTest<C>
) where C.Duration == Duration {
  for size in sizes {
    Benchmark(benchmarkName(name, "n-sleepers", size), configuration: configuration(size: size)) {
      benchmark in
      let measurement = Measurement(benchmark)
      for _ in benchmark.scaledIterations {
        await test.scope {
          let clock = test.make()
          let start = clock.now
          let tasks = (0..<size).map { index in
            Task {
              try await clock.sleep(
                until: start.advanced(by: .milliseconds(index + 1)), tolerance: nil)
            }
          }
          await test.settle(clock, size)
          measurement.start()
          await test.advance(clock, .milliseconds(size))
          measurement.stop()
          // A clock that lets tasks run by yielding may not have resumed every sleeper; end
          // them rather than wait forever.
          for task in tasks {
            task.cancel()
            _ = await task.result
          }
        }
      }
    }
    Benchmark(
      benchmarkName(name, "one-sleeper-n-times", size), configuration: configuration(size: size)
    ) {
      benchmark in
      for _ in benchmark.scaledIterations {
        await test.scope {
          let clock = test.make()
          let task = Task {
            for _ in 0..<size { try await clock.sleep(for: .milliseconds(1)) }
          }
          await test.settle(clock, 1)
          await test.advance(clock, .milliseconds(size))
          task.cancel()
          _ = await task.result
        }
      }
    }
  }
}

/// Starts and stops a benchmark's measurement from inside a clock's scope, which takes a
/// sendable closure.
struct Measurement: @unchecked Sendable {
  // Invariant: only used from the one task that runs the benchmark's iterations.
  let benchmark: Benchmark
  init(_ benchmark: Benchmark) { self.benchmark = benchmark }
  func start() { benchmark.startMeasurement() }
  func stop() { benchmark.stopMeasurement() }
}
