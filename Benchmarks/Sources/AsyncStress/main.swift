// The stress run of deterministic async advancing: every scenario of
// Tests/TempoScenarios/AsyncScenarios.swift, many times, on Tempo's TestClock inside a test
// executor and on swift-clocks' TestClock, while other threads keep every core busy.
//
//   swift run -c release AsyncStress [--repetitions 10000] [--peer-repetitions N] [--load]
//     [--only NAME] [--tempo-only] [--no-wrapper] [--clock-outside-task] [--parallel N]
//
// --no-wrapper runs Tempo without `withTestExecutor`: the clock, created in the run's task,
// opens its executor itself. --clock-outside-task makes Tempo's clock on a plain thread outside
// any task, as XCTest makes a test case's properties, and runs each run in a task of its own
// that advances it, as XCTest runs a test method (with --no-wrapper: no withTestExecutor). --parallel N runs N copies of each run at once, as a test runner
// runs tests in parallel (each copy counts as a run).
//
// Prints a Markdown table of failures per scenario and the mean real time of one run.

import AsyncScenarios
import Clocks
import Foundation
import TempoClocks
import TempoTestSupport

struct Options {
  var repetitions = 10_000
  var peerRepetitions: Int?
  var load = false
  var only: String?
  var tempoOnly = false
  var noWrapper = false
  var clockOutsideTask = false
  var parallel = 1

  init(_ arguments: [String]) {
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch argument {
      case "--repetitions": repetitions = Int(arguments.popFirst() ?? "") ?? repetitions
      case "--peer-repetitions": peerRepetitions = Int(arguments.popFirst() ?? "")
      case "--load": load = true
      case "--only": only = arguments.popFirst()
      case "--tempo-only": tempoOnly = true
      case "--no-wrapper": noWrapper = true
      case "--clock-outside-task": clockOutsideTask = true
      case "--parallel": parallel = max(1, Int(arguments.popFirst() ?? "") ?? 1)
      default: fatalError("unknown argument \(argument)")
      }
    }
  }
}

/// Busy threads, one per core, that keep the machine loaded while the scenarios run.
final class Load: @unchecked Sendable {
  // Invariant: `stopped` is only written once, under `lock`; the threads read it under `lock`.
  private let lock = NSLock()
  private var stopped = false

  init(threads: Int) {
    for _ in 0..<threads {
      Thread.detachNewThread { [self] in
        var spin = 0
        while !lock.withLock({ stopped }) {
          for _ in 0..<10_000 { spin &+= 1 }
        }
        _ = spin
      }
    }
  }

  func stop() { lock.withLock { stopped = true } }
}

/// Ends the process if one run takes longer than a minute: a hang is a failure too.
final class Watchdog: @unchecked Sendable {
  // Invariant: `lock` guards `label` and `started`.
  private let lock = NSLock()
  private var label = ""
  private var started = Date()

  init() {
    Thread.detachNewThread { [self] in
      while true {
        Thread.sleep(forTimeInterval: 5)
        let (label, started) = lock.withLock { (self.label, self.started) }
        if Date().timeIntervalSince(started) > 60 {
          emit("HANG: \(label) has not finished after 60 s")
          exit(2)
        }
      }
    }
  }

  func begin(_ label: String) { lock.withLock { (self.label, self.started) = (label, Date()) } }
}

struct Tally {
  var failures = 0
  var firstFailure: String?
  var seconds = 0.0
}

@MainActor
func runTempo(_ scenario: AsyncScenario) async -> [String] {
  await withTestExecutor { await runTempoWithoutWrapper(scenario) }
}

/// The clock is created in the run's task and opens a test executor for it.
@MainActor
func runTempoWithoutWrapper(_ scenario: AsyncScenario) async -> [String] {
  await scenario.run(on: TempoClocks.TestClock()) { await $0.advance(by: $1) }
}

/// The clock is made on a plain thread, outside any task, and a task of the run's own advances
/// it, as in an XCTest whose test case holds the clock in a property.
@MainActor
func runTempoWithClockOutsideTask(
  _ scenario: AsyncScenario, wrapped: Bool
) async -> [String] {
  let clock = await clockMadeOutsideATask()
  return await Task { @MainActor in
    guard wrapped else { return await scenario.run(on: clock) { await $0.advance(by: $1) } }
    return await withTestExecutor {
      await scenario.run(on: clock) { await $0.advance(by: $1) }
    }
  }.value
}

/// A Tempo test clock made on a thread that runs no task.
func clockMadeOutsideATask() async -> TempoClocks.TestClock<Duration> {
  final class Box: @unchecked Sendable {
    // Invariant: written on the thread before the continuation resumes, read after.
    var clock: TempoClocks.TestClock<Duration>?
  }
  let box = Box()
  await withCheckedContinuation { continuation in
    Thread {
      box.clock = TempoClocks.TestClock()
      continuation.resume()
    }.start()
  }
  return box.clock!
}

/// Runs `copies` runs at once, each in a task of its own, as parallel tests do.
@MainActor
func inParallel(
  _ copies: Int, _ run: @escaping @MainActor @Sendable (AsyncScenario) async -> [String]
) -> @MainActor (AsyncScenario) async -> [[String]] {
  { scenario in
    await withTaskGroup(of: [String].self) { group in
      for _ in 0..<copies { group.addTask { await run(scenario) } }
      var results: [[String]] = []
      for await failures in group { results.append(failures) }
      return results
    }
  }
}

@MainActor
func runSwiftClocks(_ scenario: AsyncScenario) async -> [String] {
  await scenario.run(on: Clocks.TestClock()) { await $0.advance(by: $1) }
}

@MainActor
func measure(
  _ scenario: AsyncScenario, _ repetitions: Int, _ watchdog: Watchdog, _ label: String,
  _ run: (AsyncScenario) async -> [[String]]
) async -> Tally {
  var tally = Tally()
  let start = Date()
  var repetition = 0
  while repetition < repetitions {
    watchdog.begin("\(label) \(scenario.name) #\(repetition)")
    for failures in await run(scenario) {
      repetition += 1
      if !failures.isEmpty {
        tally.failures += 1
        if tally.firstFailure == nil { tally.firstFailure = failures.joined(separator: "; ") }
      }
    }
  }
  tally.seconds = Date().timeIntervalSince(start)
  return tally
}

func format(_ tally: Tally?, _ repetitions: Int) -> (String, String) {
  guard let tally else { return ("—", "—") }
  let microseconds = tally.seconds / Double(repetitions) * 1_000_000
  return ("\(tally.failures) / \(repetitions)", String(format: "%.0f", microseconds))
}

/// Writes a line at once, so that rows appear as they are measured.
func emit(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

@MainActor
func main() async {
  let options = Options(Array(CommandLine.arguments.dropFirst()))
  let load = options.load ? Load(threads: ProcessInfo.processInfo.activeProcessorCount) : nil
  let watchdog = Watchdog()
  let scenarios = AsyncScenario.all.filter { options.only == nil || $0.name == options.only }
  let peerRepetitions = options.peerRepetitions ?? options.repetitions
  emit(
    """
    \(options.repetitions) runs per scenario on Tempo\
    \(options.tempoOnly ? "" : ", \(peerRepetitions) on swift-clocks")\
    \(options.load ? ", \(ProcessInfo.processInfo.activeProcessorCount) busy threads" : "")\
    \(options.noWrapper ? ", Tempo without withTestExecutor" : "")\
    \(options.clockOutsideTask ? ", Tempo's clock made outside any task" : "")\
    \(options.parallel > 1 ? ", \(options.parallel) runs at a time" : "").

    | Scenario | Tempo failures | swift-clocks failures | Tempo µs/run | swift-clocks µs/run |
    |---|---:|---:|---:|---:|
    """)
  var notes: [String] = []
  let tempoBody: @MainActor @Sendable (AsyncScenario) async -> [String] =
    switch (options.clockOutsideTask, options.noWrapper) {
    case (true, let noWrapper): { await runTempoWithClockOutsideTask($0, wrapped: !noWrapper) }
    case (false, true): runTempoWithoutWrapper
    case (false, false): runTempo
    }
  let tempoRun = inParallel(options.parallel, tempoBody)
  let peerRun = inParallel(options.parallel, runSwiftClocks)
  for scenario in scenarios {
    let tempo = await measure(scenario, options.repetitions, watchdog, "Tempo", tempoRun)
    let peer =
      options.tempoOnly
      ? nil
      : await measure(scenario, peerRepetitions, watchdog, "swift-clocks", peerRun)
    let (tempoFailures, tempoTime) = format(tempo, options.repetitions)
    let (peerFailures, peerTime) = format(peer, peerRepetitions)
    let mark = scenario.limitation == nil ? "" : " ¹"
    emit(
      "| \(scenario.name)\(mark) | \(tempoFailures) | \(peerFailures) | \(tempoTime) | \(peerTime) |"
    )
    if let failure = tempo.firstFailure { notes.append("Tempo, \(scenario.name): \(failure)") }
    if let failure = peer?.firstFailure {
      notes.append("swift-clocks, \(scenario.name): \(failure)")
    }
  }
  let limitations = scenarios.compactMap(\.limitation)
  if !limitations.isEmpty {
    emit("\n¹ " + limitations.joined(separator: "\n¹ "))
  }
  if !notes.isEmpty {
    emit("\nFirst failure of each:\n" + notes.map { "- \($0)" }.joined(separator: "\n"))
  }
  load?.stop()
}

await main()
