// What a user pays for a whole test, not one step: each test is a whole test iteration (make the
// clock or scheduler, build the model, start its task, advance, check), run on every
// implementation in one process, in interleaved rounds so that the machine's drift falls on all
// of them alike.
//
//   swift run -c release WholeTests [--runs 200] [--rounds 5] [--only NAME]
//     [--implementation "NAME;NAME"] [--shared-task]
//
// On a clock (ClockTests.swift): the scenarios of Tests/TempoScenarios/AsyncScenarios.swift, and
// models on swift-async-algorithms' operators and on swift-dependencies' `\.continuousClock`.
// Implementations:
// - Tempo, the clock made in the run's task (no wrapper), and inside `withTestExecutor`;
// - swift-clocks' `TestClock`, plain and inside `withMainSerialExecutor` (its documented fix);
// - the async floor: a bare clock that keeps its sleepers' continuations in deadline order and
//   resumes the due ones in order, with no executor at all; after each it yields until the woken
//   task has left its sleep, and twice more. It is not exact (it fails where the woken task's
//   work takes more turns than that); it is what any implementation pays at least.
//
// On a Combine scheduler (SchedulerTests.swift): a search view model through `debounce` and
// `receive(on:)`, on `DispatchQueue.test` and on `.immediate`, and a feature that reads its main
// queue through swift-dependencies, erased. Implementations: Tempo's `DispatchQueue.test`
// advanced synchronously and through its async `advance`, each plain and inside
// `withTestExecutor`; combine-schedulers' the same, plain and inside `withMainSerialExecutor`;
// and the floor behind Combine's API (`SchedulerFloor`, a heap of closures with no executor and
// no lock), advanced synchronously. A synchronous advance is called from the same async test
// body, through a closure that never suspends.
//
// Each run is a task of its own on the main actor (`--shared-task`: all in the main task).
//
// Once a Tempo implementation has run, the main actor's executor is Tempo's for the rest of the
// process, as in a user's test process. A peer that sends many jobs through the main executor
// (`withMainSerialExecutor` does) pays for that in the same run; for its cost alone, run it by
// itself with `--implementation`.
//
// Prints a Markdown table per kind of the median microseconds per run over the rounds, and the
// failures of each implementation (and of each test, where there are any).

import CombineFloor
import Foundation

struct Options {
  var runs = 200
  var rounds = 5
  var only: String?
  var implementation: String?
  /// Whether every run is a task of its own, as a test runner runs each test (the default);
  /// `--shared-task` runs them all in the main task, as this harness did before 2026-12-07.
  var taskPerRun = true

  init(_ arguments: [String]) {
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch argument {
      case "--runs": runs = Int(arguments.popFirst() ?? "") ?? runs
      case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? rounds
      case "--only": only = arguments.popFirst()
      case "--implementation": implementation = arguments.popFirst()
      case "--shared-task": taskPerRun = false
      default: fatalError("unknown argument \(argument)")
      }
    }
  }
}

/// One implementation: runs a whole test once and answers its failures.
struct Implementation<Test> {
  let name: String
  /// The tests it cannot run, by name, and why.
  var skipping: [String: String] = [:]
  let run: @MainActor (Test) async -> [String]
}

typealias ClockImplementation = Implementation<any ClockTest>
typealias SchedulerImplementation = Implementation<any SchedulerTest>

/// The tests of one kind, and the implementations that run them.
struct Suite<Test> {
  let title: String
  let tests: [Test]
  let name: (Test) -> String
  let implementations: [Implementation<Test>]
}

let floors = (
  clock: ClockImplementation(name: "async floor") { test in
    await test.run(on: FloorClock()) { await $0.advance(by: $1) }
  },
  scheduler: SchedulerImplementation(
    name: "Combine floor, sync",
    skipping: ["combine-search-immediate": "the floor has no immediate scheduler"]
  ) { test in
    let scheduler = SchedulerFloor()
    return await test.run(on: scheduler) { scheduler.advance(by: $0) }
  }
)

@MainActor
func main() async {
  let options = Options(Array(CommandLine.arguments.dropFirst()))
  let environment = ProcessInfo.processInfo.environment
  emit(
    """
    \(options.runs) runs per test and implementation, in each of \(options.rounds) interleaved \
    rounds; median µs per run over the rounds.
    """)
  await run(
    Suite(
      title: "On a clock",
      tests: clockTests, name: \.name,
      implementations: tempoClocks + peerClocks + [floors.clock]),
    options, trace: environment["WHOLE_TESTS_TRACE"] != nil)
  await run(
    Suite(
      title: "On a Combine scheduler",
      tests: schedulerTests, name: \.name,
      implementations: tempoSchedulers + peerSchedulers + [floors.scheduler]),
    options, trace: environment["WHOLE_TESTS_TRACE"] != nil)
}

/// Runs the suite's tests that the options choose, on the implementations they choose, and
/// prints the table and the failures.
@MainActor
func run<Test>(_ suite: Suite<Test>, _ options: Options, trace: Bool) async {
  let tests = suite.tests.filter { options.only == nil || suite.name($0) == options.only }
  let chosen = suite.implementations.filter { implementation in
    options.implementation.map { $0.split(separator: ";").contains(Substring(implementation.name)) }
      ?? true
  }
  guard !tests.isEmpty, !chosen.isEmpty else { return }
  emit(
    """

    \(suite.title):

    | Test | \(chosen.map(\.name).joined(separator: " | ")) |
    |---|\(chosen.map { _ in "---:" }.joined(separator: "|"))|
    """)
  var failures: [String: Int] = [:]
  var failuresByTest: [String] = []
  var skipped: [String] = []
  for test in tests {
    let name = suite.name(test)
    var samples = Array(repeating: [Double](), count: chosen.count)
    var failed = Array(repeating: 0, count: chosen.count)
    for _ in 0..<options.rounds {
      for (index, implementation) in chosen.enumerated() {
        guard implementation.skipping[name] == nil else { continue }
        if trace { FileHandle.standardError.write(Data("\(name): \(implementation.name)\n".utf8)) }
        let start = ContinuousClock.now
        for _ in 0..<options.runs {
          let failures =
            options.taskPerRun
            ? await Task { @MainActor in await implementation.run(test) }.value
            : await implementation.run(test)
          if !failures.isEmpty { failed[index] += 1 }
        }
        let elapsed = start.duration(to: .now)
        samples[index].append(microseconds(elapsed) / Double(options.runs))
      }
    }
    for implementation in chosen {
      if let reason = implementation.skipping[name] {
        skipped.append("\(name) on \(implementation.name): \(reason)")
      }
    }
    for (index, implementation) in chosen.enumerated() where failed[index] > 0 {
      failures[implementation.name, default: 0] += failed[index]
      failuresByTest.append("\(name) on \(implementation.name): \(failed[index])")
    }
    let cells = samples.map { $0.isEmpty ? "not run" : String(format: "%.0f", median($0)) }
    emit("| \(name) | \(cells.joined(separator: " | ")) |")
  }
  emit(
    "\nFailed runs per implementation: "
      + chosen.map { implementation in
        let total =
          tests.filter { implementation.skipping[suite.name($0)] == nil }.count * options.runs
          * options.rounds
        return "\(implementation.name) \(failures[implementation.name, default: 0]) of \(total)"
      }.joined(separator: ", "))
  if !skipped.isEmpty {
    emit("Not run:")
    for line in skipped { emit("- \(line)") }
  }
  if !failuresByTest.isEmpty {
    emit("Failed runs of \(options.runs * options.rounds) by test and implementation:")
    for line in failuresByTest { emit("- \(line)") }
  }
}

/// Writes a line to the standard output at once, so that a run cut short shows what it measured.
func emit(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
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
