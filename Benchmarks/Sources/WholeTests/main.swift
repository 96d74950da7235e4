// What a user pays for a whole test, not one step: each scenario of
// Tests/TempoScenarios/AsyncScenarios.swift is a whole test iteration (make the clock, build the
// model, start its task, advance, check), run on every implementation in one process, in
// interleaved rounds so that the machine's drift falls on all of them alike.
//
//   swift run -c release WholeTests [--runs 200] [--rounds 5] [--only NAME]
//     [--implementation NAME]
//
// Implementations:
// - Tempo, the clock made in the run's task (no wrapper), and inside `withTestExecutor`;
// - swift-clocks' `TestClock`, plain and inside `withMainSerialExecutor` (its documented fix);
// - the async floor: a bare clock that keeps its sleepers' continuations in deadline order and
//   resumes the due ones in order, with no executor at all; after each it yields until the woken
//   task has left its sleep, and twice more. It is not exact (it fails where the woken task's
//   work takes more turns than that); it is what any implementation pays at least.
//
// Prints a Markdown table of the median microseconds per run over the rounds, and the failures
// of each implementation.

import AsyncScenarios
import Clocks
import ConcurrencyExtras
import Foundation
import TempoClocks
import TempoTestSupport

struct Options {
  var runs = 200
  var rounds = 5
  var only: String?
  var implementation: String?

  init(_ arguments: [String]) {
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch argument {
      case "--runs": runs = Int(arguments.popFirst() ?? "") ?? runs
      case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? rounds
      case "--only": only = arguments.popFirst()
      case "--implementation": implementation = arguments.popFirst()
      default: fatalError("unknown argument \(argument)")
      }
    }
  }
}

/// One implementation: runs a scenario once and answers its failures.
struct Implementation {
  let name: String
  let run: @MainActor (AsyncScenario) async -> [String]
}

let implementations: [Implementation] = [
  Implementation(name: "Tempo, no wrapper") { scenario in
    await scenario.run(on: TempoClocks.TestClock()) { await $0.advance(by: $1) }
  },
  Implementation(name: "Tempo, withTestExecutor") { scenario in
    await withTestExecutor {
      await scenario.run(on: TempoClocks.TestClock()) { await $0.advance(by: $1) }
    }
  },
  Implementation(name: "swift-clocks") { scenario in
    await scenario.run(on: Clocks.TestClock()) { await $0.advance(by: $1) }
  },
  Implementation(name: "swift-clocks, withMainSerialExecutor") { scenario in
    var failures: [String] = []
    await withMainSerialExecutor {
      failures = await scenario.run(on: Clocks.TestClock()) { await $0.advance(by: $1) }
    }
    return failures
  },
  Implementation(name: "async floor") { scenario in
    await scenario.run(on: FloorClock()) { await $0.advance(by: $1) }
  },
]

@MainActor
func main() async {
  let options = Options(Array(CommandLine.arguments.dropFirst()))
  let scenarios = AsyncScenario.all.filter { options.only == nil || $0.name == options.only }
  let chosen = implementations.filter { implementation in
    options.implementation.map { $0.split(separator: ";").contains(Substring(implementation.name)) }
      ?? true
  }
  FileHandle.standardOutput.write(
    Data(
      """
      \(options.runs) runs per scenario and implementation, in each of \(options.rounds) \
      interleaved rounds; median µs per run over the rounds.

      | Scenario | \(chosen.map(\.name).joined(separator: " | ")) |
      |---|\(chosen.map { _ in "---:" }.joined(separator: "|"))|

      """.utf8))
  var failures: [String: Int] = [:]
  for scenario in scenarios {
    var samples = Array(repeating: [Double](), count: chosen.count)
    for _ in 0..<options.rounds {
      for (index, implementation) in chosen.enumerated() {
        let start = ContinuousClock.now
        if ProcessInfo.processInfo.environment["WHOLE_TESTS_TRACE"] != nil {
          FileHandle.standardError.write(Data("\(scenario.name): \(implementation.name)\n".utf8))
        }
        for _ in 0..<options.runs where !(await implementation.run(scenario)).isEmpty {
          failures[implementation.name, default: 0] += 1
        }
        let elapsed = start.duration(to: .now)
        samples[index].append(microseconds(elapsed) / Double(options.runs))
      }
    }
    let cells = samples.map { String(format: "%.0f", median($0)) }
    FileHandle.standardOutput.write(
      Data("| \(scenario.name) | \(cells.joined(separator: " | ")) |\n".utf8))
  }
  let total = scenarios.count * options.runs * options.rounds
  FileHandle.standardOutput.write(
    Data(
      ("\nFailed runs of \(total) per implementation: "
        + chosen.map { "\($0.name) \(failures[$0.name, default: 0])" }
        .joined(separator: ", ") + "\n").utf8))
}

func microseconds(_ duration: Duration) -> Double {
  let (seconds, attoseconds) = duration.components
  return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

/// The async floor: continuations in deadline order, resumed in order; after each, yields until
/// the woken task has left its sleep, then twice more.
final class FloorClock: Clock, @unchecked Sendable {
  // Invariant: `lock` guards `now` and `sleepers`; continuations are resumed after unlocking.
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let lock = NSLock()
  private var current = Instant(offset: .zero)
  private var sleepers:
    [(deadline: Instant, id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
  private var nextID = 0
  private var woken = 0

  var now: Instant { lock.withLock { current } }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    let id = lock.withLock {
      nextID += 1
      return nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // Checked under the lock: a cancellation that came before the entry was inserted
        // found nothing to resume.
        let cancelled = lock.withLock {
          guard !Task.isCancelled else { return true }
          let index = sleepers.firstIndex { $0.deadline > deadline } ?? sleepers.endIndex
          sleepers.insert((deadline, id, continuation), at: index)
          return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
      }
      lock.withLock { woken += 1 }
    } onCancel: {
      let cancelled = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
        guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return sleepers.remove(at: index).continuation
      }
      cancelled?.resume(throwing: CancellationError())
    }
  }

  func advance(by duration: Duration) async {
    let target = now.advanced(by: duration)
    await Task.yield()
    while true {
      let due = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
        guard let first = sleepers.first, first.deadline <= target else { return nil }
        sleepers.removeFirst()
        current = max(current, first.deadline)
        return first.continuation
      }
      guard let due else { break }
      let before = lock.withLock { woken }
      due.resume()
      while lock.withLock({ woken == before }) { await Task.yield() }
      await Task.yield()
      await Task.yield()
    }
    lock.withLock { current = max(current, target) }
  }
}

await main()
