// The scenarios of AsyncScenarios.swift in their auto-advance form: on a clock whose time moves
// by itself, each awaits the code under test directly, with no advance, and checks the exact
// virtual times it saw. Shared, like AsyncScenarios.swift, by the root package's tests and by
// `Benchmarks/Sources/AsyncStress` (`--auto-advance`); standard library only.
//
// Every scenario of AsyncScenarios.swift has a form here, under the same name. Where the
// original looks at the code between two advances ("no message yet at 4 s"), nothing stands
// still here: a sleeper of the test's own, due between the code's, looks at that time instead.
// Where work that is still running could let time jump too early, a sleeper due far later
// (`farSleeper`) is pending, so that such a jump moves time past everything and shows in the
// times checked; the others leave nothing pending between their sleeps now and then, so that
// auto-advance stops and starts again. Not here: work that never ends (a timer nobody stops),
// which auto-advance stops after half a second of real time, a bound that a run under load
// reaches at a different item each time.

extension AsyncScenario {
  /// Runs an auto-advance scenario on `clock`, whose time must move by itself: these scenarios
  /// never advance by hand.
  @MainActor
  public func runAdvancingByItself<C: Clock>(
    on clock: C
  ) async -> [String] where C.Duration == Duration {
    await run(on: clock) { _, _ in
      preconditionFailure("an auto-advance scenario advanced its clock by hand")
    }
  }
}

extension Expectations {
  /// Expects the clock to read `expected` (since the scenario began).
  func expect(_ clock: ScenarioClock, at expected: Duration, _ what: String) {
    let now = clock.elapsed()
    expect(now == expected, "\(what) at \(now), not \(expected)")
  }

  /// The test's own wait on the clock. Nothing cancels the test, so a throw is a failure.
  func wait(_ duration: Duration, on clock: ScenarioClock) async {
    do { try await clock.sleep(for: duration) } catch {
      failures.append("the test's sleep for \(duration) threw \(error)")
    }
  }
}

/// An event and the virtual time it happened at, as one comparable entry.
func stamp(_ event: some CustomStringConvertible, _ time: Duration) -> String {
  "\(event) at \(time)"
}

/// Sleeps on `clock` for `duration`; answers the virtual time it woke at (nil if cancelled).
func wakeTime(after duration: Duration, on clock: ScenarioClock) async -> Duration? {
  do { try await clock.sleep(for: duration) } catch { return nil }
  return clock.elapsed()
}

/// A sleeper due long after the scenario's work. Time jumps to it only if it jumps while that
/// work can still run, and then every time the scenario checks is wrong. Cancel it at the end.
func farSleeper(_ clock: ScenarioClock) -> Task<Void, Never> {
  Task { try? await clock.sleep(for: .seconds(1_000)) }
}

/// Races work that takes `work` against a timeout of `timeout`, in a task group; answers the
/// winner, once the loser has been cancelled.
func race(work: Duration, timeout: Duration, on clock: ScenarioClock) async -> String {
  await withTaskGroup(of: String.self) { group in
    group.addTask {
      do { try await clock.sleep(for: work) } catch { return "cancelled" }
      return "work"
    }
    group.addTask {
      do { try await clock.sleep(for: timeout) } catch { return "cancelled" }
      return "timed out"
    }
    let first = await group.next() ?? "none"
    group.cancelAll()
    return first
  }
}

extension AsyncScenario {
  /// The auto-advance scenarios, in the order of ``all``.
  public static let autoAdvancing: [AsyncScenario] = [
    AsyncScenario(name: "welcome-first-timer") { clock in
      let check = Expectations()
      let model = WelcomeModel(clock: clock, hasSeenViewBefore: false)
      let atFour = Task { @MainActor in
        await wakeTime(after: .seconds(4), on: clock).map { stamp(model.message ?? "nil", $0) }
      }
      await model.task()
      check.expect(model.message == "Welcome!", "no message after task()")
      check.expect(clock, at: .seconds(5), "task() returned")
      let early = await atFour.value
      check.expect(early == stamp("nil", .seconds(4)), "message \(String(describing: early))")
      return check.failures
    },
    AsyncScenario(name: "welcome-repeat-visitor") { clock in
      let check = Expectations()
      let model = WelcomeModel(clock: clock, hasSeenViewBefore: true)
      await model.task()
      check.expect(model.message == "Welcome!", "no message after task()")
      check.expect(clock, at: .seconds(1), "task() returned")
      return check.failures
    },
    AsyncScenario(name: "timer") { clock in
      let check = Expectations()
      let model = WelcomeModel(clock: clock, hasSeenViewBefore: false)
      model.startTimerButtonTapped()
      // Half-seconds: never at the same time as a tick.
      await check.wait(.milliseconds(10_500), on: clock)
      check.expect(model.count == 10, "count \(model.count) at \(clock.elapsed())")
      model.stopTimerButtonTapped()
      await check.wait(.seconds(5), on: clock)
      check.expect(model.count == 10, "count \(model.count) after stopping")
      check.expect(clock, at: .milliseconds(15_500), "5 s after stopping")
      return check.failures
    },
    AsyncScenario(name: "search-debounce") { clock in
      let check = Expectations()
      let model = SearchModel(clock: clock)
      model.queryChanged("a")
      await check.wait(.milliseconds(100), on: clock)
      model.queryChanged("ab")
      await check.wait(.milliseconds(100), on: clock)
      model.queryChanged("abc")
      await model.pending?.value
      check.expect(model.results == ["ABC"], "results \(model.results)")
      check.expect(model.searches == 1, "searched \(model.searches) times")
      check.expect(clock, at: .milliseconds(500), "the search ended")
      return check.failures
    },
    AsyncScenario(name: "actor-counter") { clock in
      let check = Expectations()
      let far = farSleeper(clock)
      let ticks = Box<[Duration]>([])
      let task = Task {
        for _ in 0..<3 {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          await ticks.update { $0.append(clock.elapsed()) }
        }
      }
      await task.value
      let times = await ticks.value
      check.expect(times == [.seconds(1), .seconds(2), .seconds(3)], "ticks at \(times)")
      check.expect(clock, at: .seconds(3), "the counting ended")
      far.cancel()
      await far.value
      return check.failures
    },
    AsyncScenario(name: "actor-ping-pong") { clock in
      let check = Expectations()
      let far = farSleeper(clock)
      let ping = Ping()
      let pong = Pong()
      let task = Task {
        var value = 0
        var times: [Duration] = []
        for _ in 0..<3 {
          do { try await clock.sleep(for: .seconds(1)) } catch { break }
          value = await ping.ping(pong, value)
          times.append(clock.elapsed())
        }
        return (value, times)
      }
      let (value, times) = await task.value
      let pings = await ping.log
      let pongs = await pong.log
      check.expect(value == 3, "value \(value)")
      check.expect(times == [.seconds(1), .seconds(2), .seconds(3)], "round trips at \(times)")
      check.expect(pings == ["ping 0", "ping 1", "ping 2"], "pings \(pings)")
      check.expect(pongs == ["pong 0", "pong 1", "pong 2"], "pongs \(pongs)")
      check.expect(clock, at: .seconds(3), "the rally ended")
      far.cancel()
      await far.value
      return check.failures
    },
    AsyncScenario(name: "detached-task") { clock in
      let check = Expectations()
      let far = farSleeper(clock)
      let task = Task.detached { await wakeTime(after: .seconds(2), on: clock) }
      let woke = await task.value
      check.expect(woke == .seconds(2), "woke at \(String(describing: woke))")
      check.expect(clock, at: .seconds(2), "the detached task ended")
      far.cancel()
      await far.value
      return check.failures
    },
    AsyncScenario(name: "task-group") { clock in
      let check = Expectations()
      let finished = Box<[String]>([])
      await withTaskGroup(of: Void.self) { group in
        for seconds in [3, 1, 2] {
          group.addTask {
            do { try await clock.sleep(for: .seconds(seconds)) } catch { return }
            await finished.update { $0.append(stamp(seconds, clock.elapsed())) }
          }
        }
      }
      let done = await finished.value
      check.expect(done == (1...3).map { stamp($0, .seconds($0)) }, "finished \(done)")
      check.expect(clock, at: .seconds(3), "the group ended")
      return check.failures
    },
    AsyncScenario(name: "async-stream-on-main") { clock in
      let check = Expectations()
      let (stream, continuation) = AsyncStream<Int>.makeStream()
      let producer = Task {
        for value in 1...3 {
          do { try await clock.sleep(for: .seconds(1)) } catch { break }
          continuation.yield(value)
        }
        continuation.finish()
      }
      var received: [String] = []
      for await value in stream { received.append(stamp(value, clock.elapsed())) }
      await producer.value
      check.expect(received == (1...3).map { stamp($0, .seconds($0)) }, "received \(received)")
      check.expect(clock, at: .seconds(3), "the stream finished")
      return check.failures
    },
    AsyncScenario(name: "async-let") { clock in
      let check = Expectations()
      async let first = wakeTime(after: .seconds(1), on: clock)
      async let second = wakeTime(after: .seconds(2), on: clock)
      let times = await [first, second]
      check.expect(times == [.seconds(1), .seconds(2)], "woke at \(times)")
      check.expect(clock, at: .seconds(2), "both ended")
      return check.failures
    },
    AsyncScenario(name: "timeout-race") { clock in
      let check = Expectations()
      let slow = await race(work: .seconds(5), timeout: .seconds(2), on: clock)
      check.expect(slow == "timed out", "slow work: \(slow)")
      check.expect(clock, at: .seconds(2), "the first race ended")
      // The cancelled 5 s sleeper is gone: the next race ends 1 s later, not at 5 s.
      let fast = await race(work: .seconds(1), timeout: .seconds(2), on: clock)
      check.expect(fast == "work", "fast work: \(fast)")
      check.expect(clock, at: .seconds(3), "the second race ended")
      return check.failures
    },
    AsyncScenario(name: "retry-with-backoff") { clock in
      let check = Expectations()
      var attempts: [Duration] = []
      var delay = Duration.seconds(1)
      while true {
        attempts.append(clock.elapsed())
        if attempts.count == 4 { break }
        await check.wait(delay, on: clock)
        delay *= 2
      }
      check.expect(attempts == [.zero, .seconds(1), .seconds(3), .seconds(7)], "\(attempts)")
      check.expect(clock, at: .seconds(7), "the retries ended")
      return check.failures
    },
    AsyncScenario(name: "polling") { clock in
      let check = Expectations()
      let flagged = Box<Duration?>(nil)
      let setter = Task {
        do { try await clock.sleep(for: .milliseconds(3_500)) } catch { return }
        // Read on the actor, after the hop: a poll due at 4 s must not have run meanwhile.
        await flagged.update { $0 = clock.elapsed() }
      }
      var polls: [Duration] = []
      while polls.count < 10 {
        await check.wait(.seconds(1), on: clock)
        polls.append(clock.elapsed())
        if await flagged.value != nil { break }
      }
      await setter.value
      let setAt = await flagged.value
      check.expect(setAt == .milliseconds(3_500), "flag set at \(String(describing: setAt))")
      check.expect(polls == (1...4).map { .seconds($0) }, "polled at \(polls)")
      check.expect(clock, at: .seconds(4), "the polling ended")
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
        return clock.elapsed()
      }
      await check.wait(.seconds(5), on: clock)
      check.expect(outcome == "running", "\(outcome) at 5 s")
      task.cancel()
      let ended = await task.value
      check.expect(outcome == "cancelled", "\(outcome) after cancelling")
      check.expect(ended == .seconds(5), "ended at \(ended)")
      check.expect(clock, at: .seconds(5), "the cancelled task ended")
      return check.failures
    },
    AsyncScenario(name: "nested-main-tasks") { clock in
      let check = Expectations()
      var woke: Duration?
      let outer = Task { @MainActor in
        Task { @MainActor in
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          woke = clock.elapsed()
        }
      }
      await outer.value.value
      check.expect(woke == .seconds(1), "inner task woke at \(String(describing: woke))")
      check.expect(clock, at: .seconds(1), "the inner task ended")
      return check.failures
    },
    AsyncScenario(name: "main-actor-round-trips") { clock in
      let check = Expectations()
      let far = farSleeper(clock)
      var log: [String] = []
      let recorded = Box(0)
      let task = Task { @MainActor in
        for step in 0..<5 {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          await recorded.update { $0 += 1 }
          log.append(stamp(step, clock.elapsed()))
        }
      }
      await task.value
      let count = await recorded.value
      check.expect(log == (0..<5).map { stamp($0, .seconds($0 + 1)) }, "log \(log)")
      check.expect(count == 5, "\(count) recorded")
      check.expect(clock, at: .seconds(5), "the round trips ended")
      far.cancel()
      await far.value
      return check.failures
    },
    AsyncScenario(name: "many-sleepers") { clock in
      let check = Expectations()
      var woken: [String] = []
      var tasks: [Task<Void, Never>] = []
      for id in (1...20).reversed() {
        tasks.append(
          Task { @MainActor in
            do { try await clock.sleep(for: .seconds(id)) } catch { return }
            woken.append(stamp(id, clock.elapsed()))
          })
      }
      for task in tasks { await task.value }
      check.expect(woken == (1...20).map { stamp($0, .seconds($0)) }, "woken \(woken)")
      check.expect(clock, at: .seconds(20), "the last sleeper ended")
      return check.failures
    },
    AsyncScenario(name: "actor-isolated-timer") { clock in
      let check = Expectations()
      let ticker = Ticker()
      await ticker.start(clock, stopAfter: 3)
      await ticker.loop?.value
      let ticks = await ticker.ticks
      check.expect(ticks == 3, "\(ticks) ticks")
      check.expect(clock, at: .seconds(3), "the ticker stopped")
      return check.failures
    },
    AsyncScenario(name: "yield-heavy-task") { clock in
      // Time must not jump while the task yields: it is running, not waiting on time.
      let check = Expectations()
      let far = farSleeper(clock)
      let task = Task {
        var marks: [Duration] = []
        for _ in 0..<50 { await Task.yield() }
        marks.append(clock.elapsed())
        do { try await clock.sleep(for: .seconds(1)) } catch { return marks }
        for _ in 0..<50 { await Task.yield() }
        marks.append(clock.elapsed())
        return marks
      }
      let marks = await task.value
      check.expect(marks == [.zero, .seconds(1)], "marks \(marks)")
      check.expect(clock, at: .seconds(1), "the task ended")
      far.cancel()
      await far.value
      return check.failures
    },
    AsyncScenario(name: "async-debounce") { clock in
      let check = Expectations()
      let (inputs, send) = AsyncStream<String>.makeStream()
      var emitted: [String] = []
      // Unlike the original, it lets the last pause end when the input finishes.
      let debouncer = Task { @MainActor in
        var pending: Task<Void, Never>?
        for await input in inputs {
          pending?.cancel()
          pending = Task { @MainActor in
            do { try await clock.sleep(for: .milliseconds(500)) } catch { return }
            emitted.append(stamp(input, clock.elapsed()))
          }
        }
        await pending?.value
      }
      send.yield("h")
      await check.wait(.milliseconds(200), on: clock)
      send.yield("he")
      await check.wait(.milliseconds(200), on: clock)
      send.yield("hey")
      send.finish()
      await debouncer.value
      check.expect(emitted == [stamp("hey", .milliseconds(900))], "emitted \(emitted)")
      check.expect(clock, at: .milliseconds(900), "the debouncer ended")
      return check.failures
    },
    AsyncScenario(name: "callback-bridge") { clock in
      let check = Expectations()
      let far = farSleeper(clock)
      let service = CallbackService(clock: clock)
      let value = await service.fetch()
      check.expect(value == 42, "value \(value)")
      check.expect(clock, at: .seconds(2), "the callback came")
      far.cancel()
      await far.value
      return check.failures
    },
    AsyncScenario(name: "task-from-actor-method") { clock in
      let check = Expectations()
      let counter = Counter()
      let task = await counter.startTicking(on: clock)
      await task.value
      let count = await counter.count
      check.expect(count == 1, "count \(count)")
      check.expect(clock, at: .seconds(1), "the tick ended")
      return check.failures
    },
    AsyncScenario(name: "retry-calling-actor") { clock in
      // Between two sleeps the test calls into the actor: time must wait for it, though the
      // far sleeper is pending.
      let check = Expectations()
      let far = farSleeper(clock)
      let service = FlakyService(failures: 3)
      var value: String?
      var tries: [Duration] = []
      var delay = Duration.milliseconds(100)
      while value == nil, tries.count < 10 {
        tries.append(clock.elapsed())
        value = await service.call()
        guard value == nil else { break }
        await check.wait(delay, on: clock)
        delay *= 2
      }
      let calls = await service.calls
      check.expect(value == "ok" && calls == 4, "\(String(describing: value)) after \(calls) calls")
      check.expect(tries == [0, 100, 300, 700].map { .milliseconds($0) }, "tried at \(tries)")
      check.expect(clock, at: .milliseconds(700), "the retries ended")
      far.cancel()
      await far.value
      return check.failures
    },
    AsyncScenario(name: "group-cancellation") { clock in
      let check = Expectations()
      let cancelled = Box<[Duration]>([])
      let parent = Task {
        await withTaskGroup(of: Void.self) { group in
          for _ in 0..<3 {
            group.addTask {
              do { try await clock.sleep(for: .seconds(10)) } catch {
                await cancelled.update { $0.append(clock.elapsed()) }
              }
            }
          }
        }
      }
      await check.wait(.seconds(2), on: clock)
      parent.cancel()
      await parent.value
      let times = await cancelled.value
      check.expect(times == Array(repeating: .seconds(2), count: 3), "cancelled at \(times)")
      check.expect(clock, at: .seconds(2), "the group ended")
      return check.failures
    },
  ]
}
