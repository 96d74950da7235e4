// Scenarios whose test and tasks are all nonisolated (`--nonisolated`): the shape of a
// nonisolated XCTest method or Swift Testing test whose code under test runs on the generic
// executor and on actors of its own, never on the main actor. The shared scenarios
// (Tests/TempoScenarios) all run their body on the main actor, so they cannot show what only
// nonisolated tasks do; these few stay here, beside the stress run, until Tempo passes them.

import Foundation
import TempoClocks
import TempoTestSupport

/// State behind an actor of its own: a hop to it from a nonisolated task, and back.
actor Cell<Value: Sendable> {
  var value: Value
  init(_ value: Value) { self.value = value }
  func set(_ newValue: Value) { value = newValue }
  func update(_ change: @Sendable (inout Value) -> Void) { change(&value) }
}

/// A count behind a lock, for a task that must not hop to an actor.
final class LockedCount: @unchecked Sendable {
  // Invariant: `lock` guards `count`.
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}

/// The check of a scenario whose task sets `cell` once, after `first + second` of virtual time:
/// advances `clock` by `first` (the cell must still be nil) and then by `second` (it must hold
/// `expected`), then cancels `task` and waits for it. Answers the failures.
func nothingThen<Value: Equatable & Sendable>(
  _ expected: Value, in cell: Cell<Value?>, of task: Task<Void, Never>,
  advancing clock: TempoClocks.TestClock<Duration>, by first: Duration, then second: Duration
) async -> [String] {
  await clock.advance(by: first)
  let early = await cell.value
  await clock.advance(by: second)
  let late = await cell.value
  task.cancel()
  await task.value
  return early == nil && late == expected
    ? [] : ["\(String(describing: early)) | \(String(describing: late))"]
}

struct NonisolatedScenario: Sendable {
  let name: String
  let body: @Sendable (TempoClocks.TestClock<Duration>) async -> [String]
}

extension NonisolatedScenario {
  static let all: [NonisolatedScenario] = [
    NonisolatedScenario(name: "yields-after-actor-hop") { clock in
      // A task that hops to an actor, then yields before each sleep.
      let count = Cell(0)
      let started = Cell(false)
      let task = Task {
        await started.set(true)
        for _ in 0..<3 {
          for _ in 0..<20 { await Task.yield() }
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          await count.update { $0 += 1 }
        }
      }
      var seen: [Int] = []
      for _ in 0..<3 {
        await clock.advance(by: .seconds(1))
        seen.append(await count.value)
      }
      task.cancel()
      await task.value
      return seen == [1, 2, 3] ? [] : ["\(seen)"]
    },
    NonisolatedScenario(name: "main-actor-yields-after-actor-hop") { clock in
      // The first loop in a task on the main actor: it returns from the actor to the main actor.
      let count = Cell(0)
      let started = Cell(false)
      let task = Task { @MainActor in
        await started.set(true)
        for _ in 0..<3 {
          for _ in 0..<20 { await Task.yield() }
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          await count.update { $0 += 1 }
        }
      }
      var seen: [Int] = []
      for _ in 0..<3 {
        await clock.advance(by: .seconds(1))
        seen.append(await count.value)
      }
      task.cancel()
      await task.value
      return seen == [1, 2, 3] ? [] : ["\(seen)"]
    },
    NonisolatedScenario(name: "yields-without-actor") { clock in
      // The same loop with no actor: its count is behind a lock.
      let count = LockedCount()
      let task = Task {
        for _ in 0..<3 {
          for _ in 0..<20 { await Task.yield() }
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          count.increment()
        }
      }
      var seen: [Int] = []
      for _ in 0..<3 {
        await clock.advance(by: .seconds(1))
        seen.append(count.value)
      }
      task.cancel()
      await task.value
      return seen == [1, 2, 3] ? [] : ["\(seen)"]
    },
    NonisolatedScenario(name: "welcome-1s") { clock in
      let message = Cell<String?>(nil)
      let task = Task {
        do { try await clock.sleep(for: .seconds(1)) } catch { return }
        await message.set("Welcome!")
      }
      await clock.advance(by: .seconds(1))
      let value = await message.value
      task.cancel()
      await task.value
      return value == "Welcome!" ? [] : ["\(String(describing: value))"]
    },
    NonisolatedScenario(name: "checked-continuation") { clock in
      let got = Cell<Int?>(nil)
      let task = Task {
        let value = await withCheckedContinuation {
          (continuation: CheckedContinuation<Int, Never>) in
          Task {
            try? await clock.sleep(for: .seconds(2))
            continuation.resume(returning: 42)
          }
        }
        await got.set(value)
      }
      return await nothingThen(
        42, in: got, of: task, advancing: clock, by: .seconds(1), then: .seconds(1))
    },
    NonisolatedScenario(name: "retry-backoff") { clock in
      let attempts = Cell(0)
      let task = Task {
        var delay = Duration.seconds(1)
        for _ in 0..<4 {
          await attempts.update { $0 += 1 }
          do { try await clock.sleep(for: delay) } catch { return }
          delay *= 2
        }
      }
      var seen: [Int] = []
      for step in [1, 2, 4] {
        await clock.advance(by: .seconds(step))
        seen.append(await attempts.value)
      }
      task.cancel()
      await task.value
      return seen == [2, 3, 4] ? [] : [seen.map(String.init).joined(separator: " | ")]
    },
  ]

  /// Runs the scenario in a nonisolated task started by a plain thread, as XCTest starts a
  /// test method: on a clock made outside any task (`clockOutsideTask`: before the task starts,
  /// or, `whileWaiting`, by a plain thread while the task waits for it), else made in that
  /// task, in a `withTestExecutor` scope unless `noWrapper`.
  func run(clockOutsideTask: Bool, whileWaiting: Bool, noWrapper: Bool) async -> [String] {
    let body = self.body
    if whileWaiting {
      return await startedOutsideAnyTask {
        let clock = await clockMadeOutsideATask(autoAdvance: false)
        guard !noWrapper else { return await body(clock) }
        return await withTestExecutor { await body(clock) }
      }
    }
    if clockOutsideTask {
      let clock = await clockMadeOutsideATask(autoAdvance: false)
      return await startedOutsideAnyTask {
        guard !noWrapper else { return await body(clock) }
        return await withTestExecutor { await body(clock) }
      }
    }
    return await startedOutsideAnyTask {
      guard !noWrapper else { return await body(TempoClocks.TestClock()) }
      return await withTestExecutor { await body(TempoClocks.TestClock()) }
    }
  }
}

/// `--nonisolated`: the nonisolated scenarios on Tempo, in the form the other flags choose.
@MainActor
func runNonisolatedScenarios(_ options: Options, _ watchdog: Watchdog) async {
  emit(
    """

    | Nonisolated scenario | Tempo failures | Tempo µs/run | First failure |
    |---|---:|---:|---|
    """)
  let (outside, noWrapper) = (options.clockOutsideTask, options.noWrapper)
  let whileWaiting = options.clockMadeWhileWaiting
  let run: @MainActor (NonisolatedScenario) async -> [[String]] = { scenario in
    await withTaskGroup(of: [String].self) { group in
      for _ in 0..<options.parallel {
        group.addTask {
          await scenario.run(
            clockOutsideTask: outside, whileWaiting: whileWaiting, noWrapper: noWrapper)
        }
      }
      var results: [[String]] = []
      for await failures in group { results.append(failures) }
      return results
    }
  }
  let scenarios = options.systemSleeps ? NonisolatedScenario.systemSleeps : NonisolatedScenario.all
  for scenario in scenarios where options.only == nil || scenario.name == options.only {
    var tally = Tally()
    let start = Date()
    var repetition = 0
    while repetition < options.repetitions {
      watchdog.begin("Tempo \(scenario.name) #\(repetition)")
      for failures in await run(scenario) {
        repetition += 1
        if !failures.isEmpty {
          tally.failures += 1
          if tally.firstFailure == nil { tally.firstFailure = failures.joined(separator: "; ") }
        }
      }
    }
    tally.seconds = Date().timeIntervalSince(start)
    let (failures, time) = format(tally, options.repetitions)
    emit("| \(scenario.name) | \(failures) | \(time) | \(tally.firstFailure ?? "") |")
  }
}
