// Async features driven by a test clock: the scenarios of the deterministic-advancing stress
// run. This file is shared, through a symbolic link, by the root package's tests (Tempo only, a
// few hundred repetitions) and by `Benchmarks/Sources/AsyncStress` (Tempo and swift-clocks side
// by side, thousands of repetitions under load). It uses nothing but the standard library, so
// that any test clock can drive it.

/// A test clock as a scenario sees it: something to sleep on and a way to advance it.
public struct ScenarioClock: Sendable {
  public let clock: any Clock<Duration>
  public let advanceBy: @Sendable (Duration) async -> Void
  /// The time the clock has advanced since the scenario began.
  public let elapsed: @Sendable () -> Duration

  public init(
    clock: any Clock<Duration>,
    advanceBy: @escaping @Sendable (Duration) async -> Void,
    elapsed: @escaping @Sendable () -> Duration
  ) {
    self.clock = clock
    self.advanceBy = advanceBy
    self.elapsed = elapsed
  }

  public func advance(by duration: Duration) async { await advanceBy(duration) }

  public func sleep(for duration: Duration) async throws {
    try await clock.sleep(for: duration)
  }
}

/// One feature and its test. `body` runs on the main actor, as a test of a `@MainActor` model
/// would, and answers the expectations that failed (none when it passes).
public struct AsyncScenario: Sendable {
  public let name: String
  /// Why a test executor cannot make this scenario deterministic, if it cannot.
  public let limitation: String?
  public let body: @MainActor @Sendable (ScenarioClock) async -> [String]

  init(
    name: String,
    limitation: String? = nil,
    body: @escaping @MainActor @Sendable (ScenarioClock) async -> [String]
  ) {
    self.name = name
    self.limitation = limitation
    self.body = body
  }
}

extension AsyncScenario {
  /// Runs the scenario on `clock`, advanced by `advance`; answers the expectations that
  /// failed.
  @MainActor
  public func run<C: Clock>(
    on clock: C, advance: @escaping @Sendable (C, Duration) async -> Void
  ) async -> [String] where C.Duration == Duration {
    let start = clock.now
    return await body(
      ScenarioClock(
        clock: clock,
        advanceBy: { await advance(clock, $0) },
        elapsed: { start.duration(to: clock.now) }
      ))
  }
}

/// Collects the expectations of one scenario run that failed.
@MainActor
final class Expectations {
  var failures: [String] = []

  func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { failures.append(message()) }
  }
}

/// Counts ticks of a task that one of its methods starts.
actor Counter {
  var count = 0

  func startTicking(on clock: ScenarioClock) -> Task<Void, Never> {
    Task {
      do { try await clock.sleep(for: .seconds(1)) } catch { return }
      self.increment()
    }
  }

  func increment() { count += 1 }
}

/// A service that fails a number of times before it answers.
actor FlakyService {
  private var failuresLeft: Int
  var calls = 0

  init(failures: Int) { failuresLeft = failures }

  func call() -> String? {
    calls += 1
    guard failuresLeft == 0 else {
      failuresLeft -= 1
      return nil
    }
    return "ok"
  }
}

/// State shared across tasks and isolation domains.
actor Box<Value: Sendable> {
  var value: Value
  init(_ value: Value) { self.value = value }
  func set(_ newValue: Value) { value = newValue }
  func update(_ change: @Sendable (inout Value) -> Void) { change(&value) }
}

@MainActor
final class WelcomeModel {
  var message: String?
  var count = 0
  var timerTask: Task<Void, Never>?
  let clock: ScenarioClock
  let hasSeenViewBefore: Bool

  init(clock: ScenarioClock, hasSeenViewBefore: Bool) {
    self.clock = clock
    self.hasSeenViewBefore = hasSeenViewBefore
  }

  func task() async {
    do {
      try await clock.sleep(for: .seconds(hasSeenViewBefore ? 1 : 5))
      message = "Welcome!"
    } catch {}
  }

  func startTimerButtonTapped() {
    timerTask = Task {
      while !Task.isCancelled {
        do { try await clock.sleep(for: .seconds(1)) } catch { return }
        count += 1
      }
    }
  }

  func stopTimerButtonTapped() {
    timerTask?.cancel()
    timerTask = nil
  }
}

@MainActor
final class SearchModel {
  var results: [String] = []
  var searches = 0
  /// The search waiting out the pause (read by the auto-advance form, which awaits it).
  private(set) var pending: Task<Void, Never>?
  let clock: ScenarioClock

  init(clock: ScenarioClock) { self.clock = clock }

  func queryChanged(_ query: String) {
    pending?.cancel()
    pending = Task {
      do { try await clock.sleep(for: .milliseconds(300)) } catch { return }
      searches += 1
      results = [query.uppercased()]
    }
  }
}

actor Ticker {
  var ticks = 0
  /// The ticking (read by the auto-advance form, which awaits it).
  private(set) var loop: Task<Void, Never>?

  func start(_ clock: ScenarioClock, stopAfter limit: Int) {
    loop = Task {
      while ticks < limit {
        do { try await clock.sleep(for: .seconds(1)) } catch { return }
        ticks += 1
      }
    }
  }
}

actor Pong {
  var log: [String] = []
  func pong(_ value: Int) -> Int {
    log.append("pong \(value)")
    return value + 1
  }
}

actor Ping {
  var log: [String] = []
  func ping(_ pong: Pong, _ value: Int) async -> Int {
    log.append("ping \(value)")
    return await pong.pong(value)
  }
}

/// A callback API, answered later by a task that sleeps on the clock.
final class CallbackService: Sendable {
  let clock: ScenarioClock
  init(clock: ScenarioClock) { self.clock = clock }

  func fetch(_ completion: @escaping @Sendable (Int) -> Void) {
    Task {
      try? await clock.sleep(for: .seconds(2))
      completion(42)
    }
  }

  func fetch() async -> Int {
    await withCheckedContinuation { continuation in
      fetch { continuation.resume(returning: $0) }
    }
  }
}

extension AsyncScenario {
  /// The scenarios, the welcome and timer tests first.
  public static let all: [AsyncScenario] = [
    AsyncScenario(name: "welcome-first-timer") { clock in
      let check = Expectations()
      let model = WelcomeModel(clock: clock, hasSeenViewBefore: false)
      let task = Task { await model.task() }
      await clock.advance(by: .seconds(4))
      check.expect(model.message == nil, "message before 5 s")
      await clock.advance(by: .seconds(1))
      check.expect(model.message == "Welcome!", "no message at 5 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "welcome-repeat-visitor") { clock in
      let check = Expectations()
      let model = WelcomeModel(clock: clock, hasSeenViewBefore: true)
      let task = Task { await model.task() }
      await clock.advance(by: .seconds(1))
      check.expect(model.message == "Welcome!", "no message at 1 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "timer") { clock in
      let check = Expectations()
      let model = WelcomeModel(clock: clock, hasSeenViewBefore: false)
      model.startTimerButtonTapped()
      await clock.advance(by: .seconds(1))
      check.expect(model.count == 1, "count \(model.count) at 1 s")
      await clock.advance(by: .seconds(1))
      check.expect(model.count == 2, "count \(model.count) at 2 s")
      await clock.advance(by: .seconds(8))
      check.expect(model.count == 10, "count \(model.count) at 10 s")
      model.stopTimerButtonTapped()
      await clock.advance(by: .seconds(5))
      check.expect(model.count == 10, "count \(model.count) after stopping")
      return check.failures
    },
    AsyncScenario(name: "search-debounce") { clock in
      let check = Expectations()
      let model = SearchModel(clock: clock)
      model.queryChanged("a")
      await clock.advance(by: .milliseconds(100))
      model.queryChanged("ab")
      await clock.advance(by: .milliseconds(100))
      model.queryChanged("abc")
      await clock.advance(by: .milliseconds(299))
      check.expect(model.searches == 0, "searched \(model.searches) times before the pause")
      await clock.advance(by: .milliseconds(1))
      check.expect(model.results == ["ABC"], "results \(model.results)")
      check.expect(model.searches == 1, "searched \(model.searches) times")
      return check.failures
    },
    AsyncScenario(name: "actor-counter") { clock in
      let check = Expectations()
      let counter = Box(0)
      let task = Task {
        for _ in 0..<3 {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          await counter.update { $0 += 1 }
        }
      }
      await clock.advance(by: .seconds(1))
      let first = await counter.value
      check.expect(first == 1, "counter \(first) at 1 s")
      await clock.advance(by: .seconds(2))
      let last = await counter.value
      check.expect(last == 3, "counter \(last) at 3 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "actor-ping-pong") { clock in
      let check = Expectations()
      let ping = Ping()
      let pong = Pong()
      let result = Box(0)
      let task = Task {
        var value = 0
        for _ in 0..<3 {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          value = await ping.ping(pong, value)
          await result.set(value)
        }
      }
      await clock.advance(by: .seconds(2))
      let middle = await result.value
      check.expect(middle == 2, "value \(middle) at 2 s")
      await clock.advance(by: .seconds(1))
      let pongs = await pong.log
      check.expect(pongs == ["pong 0", "pong 1", "pong 2"], "pongs \(pongs)")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "detached-task") { clock in
      let check = Expectations()
      let box = Box<Int?>(nil)
      let task = Task.detached {
        do { try await clock.sleep(for: .seconds(2)) } catch { return }
        await box.set(42)
      }
      await clock.advance(by: .seconds(1))
      let early = await box.value
      check.expect(early == nil, "value \(String(describing: early)) at 1 s")
      await clock.advance(by: .seconds(1))
      let late = await box.value
      check.expect(late == 42, "value \(String(describing: late)) at 2 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "task-group") { clock in
      let check = Expectations()
      let finished = Box<[Int]>([])
      let task = Task {
        await withTaskGroup(of: Void.self) { group in
          for seconds in 1...3 {
            group.addTask {
              do { try await clock.sleep(for: .seconds(seconds)) } catch { return }
              await finished.update { $0.append(seconds) }
            }
          }
        }
      }
      await clock.advance(by: .seconds(2))
      let two = await finished.value
      check.expect(two == [1, 2], "finished \(two) at 2 s")
      await clock.advance(by: .seconds(1))
      let three = await finished.value
      check.expect(three == [1, 2, 3], "finished \(three) at 3 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "async-stream-on-main") { clock in
      let check = Expectations()
      let (stream, continuation) = AsyncStream<Int>.makeStream()
      var received: [Int] = []
      let consumer = Task { @MainActor in
        for await value in stream { received.append(value) }
      }
      let producer = Task {
        for value in 1...3 {
          do { try await clock.sleep(for: .seconds(1)) } catch { break }
          continuation.yield(value)
        }
        continuation.finish()
      }
      await clock.advance(by: .seconds(1))
      check.expect(received == [1], "received \(received) at 1 s")
      await clock.advance(by: .seconds(2))
      check.expect(received == [1, 2, 3], "received \(received) at 3 s")
      producer.cancel()
      await consumer.value
      return check.failures
    },
    AsyncScenario(name: "async-let") { clock in
      let check = Expectations()
      let result = Box<Int?>(nil)
      let task = Task {
        async let first: Int? = {
          try? await clock.sleep(for: .seconds(1)); return 1
        }()
        async let second: Int? = {
          try? await clock.sleep(for: .seconds(2)); return 2
        }()
        let sum = (await first ?? 0) + (await second ?? 0)
        await result.set(sum)
      }
      await clock.advance(by: .seconds(1))
      let early = await result.value
      check.expect(early == nil, "sum \(String(describing: early)) at 1 s")
      await clock.advance(by: .seconds(1))
      let late = await result.value
      check.expect(late == 3, "sum \(String(describing: late)) at 2 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "timeout-race") { clock in
      let check = Expectations()
      let outcome = Box<String?>(nil)
      let task = Task {
        let winner = await withTaskGroup(of: String.self) { group in
          group.addTask {
            do { try await clock.sleep(for: .seconds(5)) } catch { return "cancelled" }
            return "work"
          }
          group.addTask {
            do { try await clock.sleep(for: .seconds(2)) } catch { return "cancelled" }
            return "timed out"
          }
          let first = await group.next() ?? "none"
          group.cancelAll()
          return first
        }
        await outcome.set(winner)
      }
      await clock.advance(by: .seconds(2))
      let value = await outcome.value
      check.expect(value == "timed out", "outcome \(String(describing: value)) at 2 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "retry-with-backoff") { clock in
      let check = Expectations()
      let attempts = Box<[Duration]>([])
      let task = Task {
        var delay = Duration.seconds(1)
        for _ in 0..<4 {
          let elapsed = clock.elapsed()
          await attempts.update { $0.append(elapsed) }
          if await attempts.value.count == 4 { return }
          do { try await clock.sleep(for: delay) } catch { return }
          delay *= 2
        }
      }
      await clock.advance(by: .seconds(3))
      let three = await attempts.value
      check.expect(three == [.zero, .seconds(1), .seconds(3)], "attempts \(three) by 3 s")
      await clock.advance(by: .seconds(4))
      let four = await attempts.value
      check.expect(four.last == .seconds(7) && four.count == 4, "attempts \(four) by 7 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "polling") { clock in
      let check = Expectations()
      let flag = Box(false)
      let polls = Box(0)
      let setter = Task {
        do { try await clock.sleep(for: .milliseconds(3_500)) } catch { return }
        await flag.set(true)
      }
      let poller = Task {
        while true {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          await polls.update { $0 += 1 }
          if await flag.value { return }
        }
      }
      await clock.advance(by: .seconds(5))
      let count = await polls.value
      check.expect(count == 4, "polled \(count) times by 5 s")
      setter.cancel()
      poller.cancel()
      return check.failures
    },
    AsyncScenario(name: "cancellation") { clock in
      let check = Expectations()
      var outcome = "running"
      let task = Task { @MainActor in
        do {
          try await clock.sleep(for: .seconds(10))
          outcome = "finished"
        } catch {
          outcome = "cancelled"
        }
      }
      await clock.advance(by: .seconds(5))
      check.expect(outcome == "running", "\(outcome) at 5 s")
      task.cancel()
      await clock.advance(by: .zero)
      check.expect(outcome == "cancelled", "\(outcome) after cancelling")
      return check.failures
    },
    AsyncScenario(name: "nested-main-tasks") { clock in
      let check = Expectations()
      var flag = false
      let outer = Task { @MainActor in
        Task { @MainActor in
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          flag = true
        }
      }
      await clock.advance(by: .seconds(1))
      check.expect(flag, "inner task not done at 1 s")
      await outer.value.cancel()
      return check.failures
    },
    AsyncScenario(name: "main-actor-round-trips") { clock in
      let check = Expectations()
      var log: [Int] = []
      let recorded = Box(0)
      let task = Task { @MainActor in
        for step in 0..<5 {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          await recorded.update { $0 += 1 }
          log.append(step)
        }
      }
      await clock.advance(by: .seconds(3))
      check.expect(log == [0, 1, 2], "log \(log) at 3 s")
      await clock.advance(by: .seconds(2))
      let count = await recorded.value
      check.expect(log == [0, 1, 2, 3, 4] && count == 5, "log \(log), \(count) recorded at 5 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "many-sleepers") { clock in
      let check = Expectations()
      var woken: [Int] = []
      var tasks: [Task<Void, Never>] = []
      for id in (1...20).reversed() {
        tasks.append(
          Task { @MainActor in
            do { try await clock.sleep(for: .seconds(id)) } catch { return }
            woken.append(id)
          })
      }
      for second in 1...20 {
        await clock.advance(by: .seconds(1))
        if woken != Array(1...second) {
          check.expect(false, "woken \(woken) at \(second) s")
          break
        }
      }
      for task in tasks { task.cancel() }
      return check.failures
    },
    AsyncScenario(name: "actor-isolated-timer") { clock in
      let check = Expectations()
      let ticker = Ticker()
      await ticker.start(clock, stopAfter: 3)
      await clock.advance(by: .seconds(2))
      let two = await ticker.ticks
      check.expect(two == 2, "ticks \(two) at 2 s")
      await clock.advance(by: .seconds(3))
      let five = await ticker.ticks
      check.expect(five == 3, "ticks \(five) at 5 s")
      return check.failures
    },
    AsyncScenario(name: "yield-heavy-task") { clock in
      let check = Expectations()
      let done = Box(false)
      let task = Task {
        for _ in 0..<50 { await Task.yield() }
        do { try await clock.sleep(for: .seconds(1)) } catch { return }
        for _ in 0..<50 { await Task.yield() }
        await done.set(true)
      }
      await clock.advance(by: .seconds(1))
      let value = await done.value
      check.expect(value, "not done at 1 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "async-debounce") { clock in
      let check = Expectations()
      let (inputs, send) = AsyncStream<String>.makeStream()
      var emitted: [String] = []
      let debouncer = Task { @MainActor in
        var pending: Task<Void, Never>?
        for await input in inputs {
          pending?.cancel()
          pending = Task { @MainActor in
            do { try await clock.sleep(for: .milliseconds(500)) } catch { return }
            emitted.append(input)
          }
        }
        pending?.cancel()
      }
      send.yield("h")
      await clock.advance(by: .milliseconds(200))
      send.yield("he")
      await clock.advance(by: .milliseconds(200))
      send.yield("hey")
      await clock.advance(by: .milliseconds(499))
      check.expect(emitted.isEmpty, "emitted \(emitted) early")
      await clock.advance(by: .milliseconds(1))
      check.expect(emitted == ["hey"], "emitted \(emitted)")
      send.finish()
      await debouncer.value
      return check.failures
    },
    AsyncScenario(name: "callback-bridge") { clock in
      let check = Expectations()
      let service = CallbackService(clock: clock)
      var value: Int?
      let task = Task { @MainActor in value = await service.fetch() }
      await clock.advance(by: .seconds(1))
      check.expect(value == nil, "value \(String(describing: value)) at 1 s")
      await clock.advance(by: .seconds(1))
      check.expect(value == 42, "value \(String(describing: value)) at 2 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "task-from-actor-method") { clock in
      // An actor method starts a task that sleeps; the test ends on a call into the actor, so
      // the next run begins right after a hop off that actor.
      let check = Expectations()
      let counter = Counter()
      let task = await counter.startTicking(on: clock)
      await clock.advance(by: .seconds(1))
      let count = await counter.count
      check.expect(count == 1, "count \(count) at 1 s")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "retry-calling-actor") { clock in
      let check = Expectations()
      let service = FlakyService(failures: 3)
      let result = Box<String?>(nil)
      let task = Task {
        var delay = Duration.milliseconds(100)
        while true {
          if let value = await service.call() {
            await result.set(value)
            return
          }
          do { try await clock.sleep(for: delay) } catch { return }
          delay *= 2
        }
      }
      await clock.advance(by: .milliseconds(699))
      let early = await result.value
      check.expect(early == nil, "\(String(describing: early)) at 699 ms")
      await clock.advance(by: .milliseconds(1))
      let value = await result.value
      let calls = await service.calls
      check.expect(value == "ok" && calls == 4, "\(String(describing: value)) after \(calls) calls")
      task.cancel()
      return check.failures
    },
    AsyncScenario(name: "group-cancellation") { clock in
      let check = Expectations()
      let cancelled = Box(0)
      let parent = Task {
        await withTaskGroup(of: Void.self) { group in
          for _ in 0..<3 {
            group.addTask {
              do { try await clock.sleep(for: .seconds(10)) } catch {
                await cancelled.update { $0 += 1 }
              }
            }
          }
        }
      }
      await clock.advance(by: .seconds(2))
      parent.cancel()
      await parent.value
      let count = await cancelled.value
      check.expect(count == 3, "\(count) children cancelled")
      return check.failures
    },
  ]
}
