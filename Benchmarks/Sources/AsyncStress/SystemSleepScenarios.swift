// `--system-sleeps`: the nonisolated scenarios with the code under test sleeping through
// `Task.sleep` and the system clocks instead of the scenario's clock, which takes those sleeps
// with `controlSystemSleeps()` (issue #38), and, inside `controlSystemSleeps { }`, those an
// actor makes in its own methods. Run by `--nonisolated --system-sleeps`, in the form the other
// flags choose.

import TempoClocks
import TempoTestSupport

/// An actor that sleeps in its own method, between polls: a sleep the runtime sends to the
/// executor its task prefers.
actor Poller {
  var polls = 0
  func poll(times: Int) async {
    for _ in 0..<times {
      do { try await Task.sleep(for: .seconds(1)) } catch { return }
      polls += 1
    }
  }
}

/// Three advances of a second while `poller` polls three times, awaited by the caller's child
/// (`inGroup`: a task group's, else an `async let`), inside `controlSystemSleeps { }`: the polls
/// seen after each, `1 | 2 | 3` when each advance woke the actor's sleep.
func actorPolls(on clock: TempoClocks.TestClock<Duration>, inGroup: Bool) async -> [String] {
  let poller = Poller()
  let seen = await clock.controlSystemSleeps { () async -> [Int] in
    func advanceThrice() async -> [Int] {
      var seen: [Int] = []
      for _ in 0..<3 {
        await clock.advance(by: .seconds(1))
        seen.append(await poller.polls)
      }
      return seen
    }
    if inGroup {
      return await withTaskGroup(of: [Int].self) { group in
        group.addTask {
          await poller.poll(times: 3)
          return []
        }
        let seen = await advanceThrice()
        await group.waitForAll()
        return seen
      }
    }
    async let polling: Void = poller.poll(times: 3)
    let seen = await advanceThrice()
    await polling
    return seen
  }
  return seen == [1, 2, 3] ? [] : [seen.map(String.init).joined(separator: " | ")]
}

extension NonisolatedScenario {
  static let systemSleeps: [NonisolatedScenario] = [
    NonisolatedScenario(name: "system-actor-poll-async-let") { clock in
      await actorPolls(on: clock, inGroup: false)
    },
    NonisolatedScenario(name: "system-actor-poll-group") { clock in
      await actorPolls(on: clock, inGroup: true)
    },
    NonisolatedScenario(name: "system-welcome-1s") { clock in
      await clock.controlSystemSleeps()
      let message = Cell<String?>(nil)
      let task = Task {
        do { try await Task.sleep(for: .seconds(1)) } catch { return }
        await message.set("Welcome!")
      }
      await clock.advance(by: .seconds(1))
      let value = await message.value
      task.cancel()
      await task.value
      return value == "Welcome!" ? [] : ["\(String(describing: value))"]
    },
    NonisolatedScenario(name: "system-main-actor-welcome") { clock in
      await clock.controlSystemSleeps()
      let message = Cell<String?>(nil)
      let task = Task { @MainActor in
        do { try await Task.sleep(for: .milliseconds(1_500)) } catch { return }
        await message.set("Welcome!")
      }
      return await nothingThen(
        "Welcome!", in: message, of: task, advancing: clock, by: .milliseconds(1_499),
        then: .milliseconds(1))
    },
    NonisolatedScenario(name: "system-checked-continuation") { clock in
      await clock.controlSystemSleeps()
      let got = Cell<Int?>(nil)
      let task = Task {
        let value = await withCheckedContinuation {
          (continuation: CheckedContinuation<Int, Never>) in
          Task {
            try? await ContinuousClock().sleep(for: .seconds(2))
            continuation.resume(returning: 42)
          }
        }
        await got.set(value)
      }
      return await nothingThen(
        42, in: got, of: task, advancing: clock, by: .seconds(1), then: .seconds(1))
    },
    NonisolatedScenario(name: "system-retry-backoff") { clock in
      // Counted behind a lock: a sleep right after a call into an actor stays real (the task
      // runs on from the actor with no task executor), and the test is told so.
      await clock.controlSystemSleeps()
      let attempts = LockedCount()
      let task = Task {
        var nanoseconds: UInt64 = 1_000_000_000
        for _ in 0..<4 {
          attempts.increment()
          do { try await Task.sleep(nanoseconds: nanoseconds) } catch { return }
          nanoseconds *= 2
        }
      }
      var seen: [Int] = []
      for step in [1, 2, 4] {
        await clock.advance(by: .seconds(step))
        seen.append(attempts.value)
      }
      task.cancel()
      await task.value
      return seen == [2, 3, 4] ? [] : [seen.map(String.init).joined(separator: " | ")]
    },
    NonisolatedScenario(name: "system-and-clock-order") { clock in
      await clock.controlSystemSleeps()
      let order = Cell<[String]>([])
      let tasks = [
        Task {
          try? await SuspendingClock().sleep(for: .seconds(2))
          await order.update { $0.append("suspending 2 s") }
        },
        Task {
          try? await clock.sleep(for: .seconds(1))
          await order.update { $0.append("clock 1 s") }
        },
        Task {
          try? await Task.sleep(for: .seconds(3))
          await order.update { $0.append("task 3 s") }
        },
      ]
      await clock.advance(by: .seconds(3))
      for task in tasks { await task.value }
      let seen = await order.value
      return seen == ["clock 1 s", "suspending 2 s", "task 3 s"]
        ? [] : [seen.joined(separator: ", ")]
    },
  ]
}
