// The whole tests that run on a clock: the async scenarios of Tests/TempoScenarios, and the
// features written here, generic over the clock because they hand it to code that is generic
// over its type (swift-async-algorithms' operators) or reach it through swift-dependencies.

import AsyncAlgorithms
import AsyncScenarios
import Dependencies

/// A whole test iteration on a clock: builds its model on `clock`, advances it with `advance`,
/// and answers the expectations that failed (none when it passes).
protocol ClockTest: Sendable {
  var name: String { get }

  @MainActor
  func run<C: Clock>(
    on clock: C, advance: @escaping @Sendable (C, Duration) async -> Void
  ) async -> [String] where C.Duration == Duration
}

extension AsyncScenario: ClockTest {}

/// The scenarios of Tests/TempoScenarios, then the ones of this file.
///
/// A `@MainActor` model that sleeps 5 s on an `any Clock<Duration>` and then sets a message is
/// AsyncScenarios' welcome-first-timer (its `WelcomeModel`); a timer loop counting ticks with a
/// sleep loop is its timer.
let clockTests: [any ClockTest] =
  AsyncScenario.all + [
    AlgorithmsDebounce(), AlgorithmsThrottle(), AlgorithmsChunked(), AlgorithmsTimer(),
    DependenciesWelcome(),
  ]

/// Collects the expectations of one run that failed.
@MainActor
final class Check {
  private(set) var failures: [String] = []

  func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { failures.append(message()) }
  }
}

// MARK: - swift-async-algorithms

/// A search model fed by `debounce(for:clock:)`.
@MainActor
final class DebouncedSearchModel {
  var results: [String] = []
  var searches = 0
  let queries: AsyncStream<String>
  let input: AsyncStream<String>.Continuation

  init() { (queries, input) = AsyncStream.makeStream() }

  func task<C: Clock>(clock: C) async where C.Duration == Duration {
    for await query in queries.debounce(for: .milliseconds(300), clock: clock) {
      searches += 1
      results = [query.uppercased()]
    }
  }
}

/// Typing three letters 100 ms apart searches once, 300 ms after the last.
struct AlgorithmsDebounce: ClockTest {
  let name = "algorithms-debounce"

  @MainActor
  func run<C: Clock>(
    on clock: C, advance: @escaping @Sendable (C, Duration) async -> Void
  ) async -> [String] where C.Duration == Duration {
    let check = Check()
    let model = DebouncedSearchModel()
    let task = Task { await model.task(clock: clock) }
    model.input.yield("a")
    await advance(clock, .milliseconds(100))
    model.input.yield("ab")
    await advance(clock, .milliseconds(100))
    model.input.yield("abc")
    await advance(clock, .milliseconds(299))
    check.expect(model.searches == 0, "searched \(model.searches) times before the pause")
    await advance(clock, .milliseconds(1))
    check.expect(model.results == ["ABC"], "results \(model.results)")
    check.expect(model.searches == 1, "searched \(model.searches) times")
    model.input.finish()
    task.cancel()
    return check.failures
  }
}

/// A model that keeps the values that `_throttle(for:clock:)` lets through.
@MainActor
final class ThrottledModel {
  var received: [Int] = []
  let values: AsyncStream<Int>
  let input: AsyncStream<Int>.Continuation

  init() { (values, input) = AsyncStream.makeStream() }

  func task<C: Clock>(clock: C) async where C.Duration == Duration {
    for await value in values._throttle(for: .seconds(1), clock: clock) {
      received.append(value)
    }
  }
}

/// Values at 0, 0.3, 0.6 and 1 s through a throttle of 1 s (latest): the first and the last.
struct AlgorithmsThrottle: ClockTest {
  let name = "algorithms-throttle"

  @MainActor
  func run<C: Clock>(
    on clock: C, advance: @escaping @Sendable (C, Duration) async -> Void
  ) async -> [String] where C.Duration == Duration {
    let check = Check()
    let model = ThrottledModel()
    let task = Task { await model.task(clock: clock) }
    model.input.yield(1)
    await advance(clock, .zero)
    check.expect(model.received == [1], "received \(model.received) at 0 s")
    await advance(clock, .milliseconds(300))
    model.input.yield(2)
    await advance(clock, .milliseconds(300))
    model.input.yield(3)
    await advance(clock, .milliseconds(400))
    model.input.yield(4)
    await advance(clock, .zero)
    check.expect(model.received == [1, 4], "received \(model.received) at 1 s")
    model.input.finish()
    task.cancel()
    return check.failures
  }
}

/// A model that keeps the batches of `chunked(by: .repeating(every:clock:))`.
@MainActor
final class BatchingModel {
  var batches: [[Int]] = []
  let values: AsyncStream<Int>
  let input: AsyncStream<Int>.Continuation

  init() { (values, input) = AsyncStream.makeStream() }

  func task<C: Clock>(clock: C) async where C.Duration == Duration {
    for await batch in values.chunked(by: .repeating(every: .seconds(1), clock: clock)) {
      batches.append(batch)
    }
  }
}

/// Two values in the first second, one in the second, none in the third: two batches.
struct AlgorithmsChunked: ClockTest {
  let name = "algorithms-chunked"

  @MainActor
  func run<C: Clock>(
    on clock: C, advance: @escaping @Sendable (C, Duration) async -> Void
  ) async -> [String] where C.Duration == Duration {
    let check = Check()
    let model = BatchingModel()
    let task = Task { await model.task(clock: clock) }
    model.input.yield(1)
    model.input.yield(2)
    await advance(clock, .seconds(1))
    check.expect(model.batches == [[1, 2]], "batches \(model.batches) at 1 s")
    model.input.yield(3)
    await advance(clock, .seconds(1))
    check.expect(model.batches == [[1, 2], [3]], "batches \(model.batches) at 2 s")
    await advance(clock, .seconds(1))
    check.expect(model.batches == [[1, 2], [3]], "batches \(model.batches) at 3 s")
    model.input.finish()
    task.cancel()
    return check.failures
  }
}

/// A model that counts the ticks of `AsyncTimerSequence.repeating(every:clock:)`.
@MainActor
final class TimerModel {
  var count = 0
  var timerTask: Task<Void, Never>?

  func startTimerButtonTapped<C: Clock>(clock: C) where C.Duration == Duration {
    timerTask = Task {
      for await _ in AsyncTimerSequence.repeating(every: .seconds(1), clock: clock) {
        count += 1
      }
    }
  }

  func stopTimerButtonTapped() {
    timerTask?.cancel()
    timerTask = nil
  }
}

/// AsyncScenarios' timer, with the async-algorithms timer in place of the sleep loop.
struct AlgorithmsTimer: ClockTest {
  let name = "algorithms-timer"

  @MainActor
  func run<C: Clock>(
    on clock: C, advance: @escaping @Sendable (C, Duration) async -> Void
  ) async -> [String] where C.Duration == Duration {
    let check = Check()
    let model = TimerModel()
    model.startTimerButtonTapped(clock: clock)
    await advance(clock, .seconds(1))
    check.expect(model.count == 1, "count \(model.count) at 1 s")
    await advance(clock, .seconds(1))
    check.expect(model.count == 2, "count \(model.count) at 2 s")
    await advance(clock, .seconds(8))
    check.expect(model.count == 10, "count \(model.count) at 10 s")
    model.stopTimerButtonTapped()
    await advance(clock, .seconds(5))
    check.expect(model.count == 10, "count \(model.count) after stopping")
    return check.failures
  }
}

// MARK: - swift-dependencies

/// The welcome model, its clock a dependency.
@MainActor
final class DependencyWelcomeModel {
  @Dependency(\.continuousClock) var clock
  var message: String?

  func task() async {
    do {
      try await clock.sleep(for: .seconds(5))
      message = "Welcome!"
    } catch {}
  }
}

/// The welcome test, the clock given through `withDependencies`.
struct DependenciesWelcome: ClockTest {
  let name = "dependencies-welcome"

  @MainActor
  func run<C: Clock>(
    on clock: C, advance: @escaping @Sendable (C, Duration) async -> Void
  ) async -> [String] where C.Duration == Duration {
    let check = Check()
    let model = withDependencies {
      $0.continuousClock = clock
    } operation: {
      DependencyWelcomeModel()
    }
    let task = Task { await model.task() }
    await advance(clock, .seconds(4))
    check.expect(model.message == nil, "message before 5 s")
    await advance(clock, .seconds(1))
    check.expect(model.message == "Welcome!", "no message at 5 s")
    task.cancel()
    return check.failures
  }
}
