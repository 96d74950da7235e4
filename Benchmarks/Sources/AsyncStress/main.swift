// The stress run of deterministic async advancing: every scenario of
// Tests/TempoScenarios/AsyncScenarios.swift, many times, on Tempo's TestClock inside a test
// executor and on swift-clocks' TestClock, while other threads keep every core busy.
//
//   swift run -c release AsyncStress [--repetitions 10000] [--peer-repetitions N] [--load]
//     [--only NAME] [--tempo-only] [--no-wrapper] [--clock-outside-task] [--parallel N]
//     [--auto-advance] [--off-main-actor] [--nonisolated] [--system-sleeps]
//     [--clock-made-while-waiting]
//
// --no-wrapper runs Tempo without `withTestExecutor`: the clock, created in the run's task,
// opens its executor itself. --clock-outside-task makes Tempo's clock on a plain thread outside
// any task, as XCTest makes a test case's properties, and runs each run in a task of its own
// that advances it, as XCTest runs a test method (with --no-wrapper: no withTestExecutor).
// --off-main-actor (with --clock-outside-task) runs each run's task off the main actor: a
// nonisolated `Task.detached`, as XCTest runs a nonisolated async test method and Swift Testing a
// nonisolated test; the scenario's body then hops to the main actor from there.
//
// --nonisolated runs, instead of the shared scenarios, the few of NonisolatedScenarios.swift, whose
// test and tasks are all nonisolated: Tempo only, each in a nonisolated task a plain thread
// starts, on a clock made outside any task (--clock-outside-task) or in that task, in a
// withTestExecutor scope unless --no-wrapper (--only names one of them). With --system-sleeps,
// their forms whose code under test sleeps through `Task.sleep` and the system clocks, on the
// scenario's clock after `controlSystemSleeps()` (SystemSleepScenarios.swift).
// --clock-made-while-waiting (with --nonisolated) makes the clock on a plain thread while the
// run's nonisolated task, already started, waits for it, and then advances it from that task:
// the form a held-out harness found wrong (time moved before the work it released ran).
// --parallel N runs N copies of each run at once, as a test runner runs tests in parallel (each
// copy counts as a run).
//
// --auto-advance runs the auto-advance form of the scenarios instead
// (Tests/TempoScenarios/AutoAdvanceScenarios.swift): Tempo's clock has `automaticallyAdvances`
// on (set where the clock is made, so on the plain thread with --clock-outside-task), and each
// scenario awaits the code under test directly and checks the virtual times it saw. swift-clocks'
// TestClock has no auto-advance; its ImmediateClock, whose sleeps return at once with its time
// set to their deadline, stands in for it. It combines with every other flag.
//
// Prints a Markdown table of failures per scenario and the mean real time of one run. A run
// still going after a minute is a hang: it is named, with the pending work of the Tempo clocks
// of the runs in flight, and the process ends with status 2.

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
  var clockMadeWhileWaiting = false
  var parallel = 1
  var autoAdvance = false
  var offMainActor = false
  var nonisolated = false
  var systemSleeps = false

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
      case "--clock-made-while-waiting":
        clockOutsideTask = true
        clockMadeWhileWaiting = true
      case "--parallel": parallel = max(1, Int(arguments.popFirst() ?? "") ?? 1)
      case "--auto-advance": autoAdvance = true
      case "--off-main-actor": offMainActor = true
      case "--nonisolated": nonisolated = true
      case "--system-sleeps": systemSleeps = true
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
          // What the clocks of the runs in flight wait for, from a thread of its own: a clock
          // whose lock is held forever must not keep the process from ending.
          Thread.detachNewThread { emit(ClocksInFlight.shared.description) }
          Thread.sleep(forTimeInterval: 2)
          exit(2)
        }
      }
    }
  }

  func begin(_ label: String) { lock.withLock { (self.label, self.started) = (label, Date()) } }
}

/// The Tempo clocks of the runs in flight, for the watchdog to describe.
final class ClocksInFlight: @unchecked Sendable {
  static let shared = ClocksInFlight()
  // Invariant: `lock` guards `clocks` and `nextKey`.
  private let lock = NSLock()
  private var clocks: [Int: TempoClocks.TestClock<Duration>] = [:]
  private var nextKey = 0

  /// Holds `clock` while `body` runs.
  @MainActor
  func holding<T>(
    _ clock: TempoClocks.TestClock<Duration>, _ body: @MainActor () async -> T
  ) async -> T {
    let key = lock.withLock {
      nextKey += 1
      clocks[nextKey] = clock
      return nextKey
    }
    let result = await body()
    _ = lock.withLock { clocks.removeValue(forKey: key) }
    return result
  }

  var description: String {
    let clocks = lock.withLock { Array(self.clocks.values) }
    return clocks.map {
      "automaticallyAdvances \($0.automaticallyAdvances); \($0.pendingWorkDescription)"
    }.joined(separator: "\n")
  }
}

struct Tally {
  var failures = 0
  var firstFailure: String?
  var seconds = 0.0
}

@MainActor
func runTempo(_ scenario: AsyncScenario, autoAdvance: Bool) async -> [String] {
  await withTestExecutor { await runTempoWithoutWrapper(scenario, autoAdvance: autoAdvance) }
}

/// The clock is created in the run's task and opens a test executor for it.
@MainActor
func runTempoWithoutWrapper(_ scenario: AsyncScenario, autoAdvance: Bool) async -> [String] {
  await play(scenario, on: makeClock(autoAdvance: autoAdvance), autoAdvance: autoAdvance)
}

/// The clock is made on a plain thread, outside any task, and a task of the run's own advances
/// it, as in an XCTest whose test case holds the clock in a property: on the main actor, or a
/// nonisolated one if `offMainActor` (a nonisolated test method, whose scenario hops to the main
/// actor).
@MainActor
func runTempoWithClockOutsideTask(
  _ scenario: AsyncScenario, wrapped: Bool, autoAdvance: Bool, offMainActor: Bool
) async -> [String] {
  let clock = await clockMadeOutsideATask(autoAdvance: autoAdvance)
  guard offMainActor else {
    return await Task { @MainActor in
      guard wrapped else { return await play(scenario, on: clock, autoAdvance: autoAdvance) }
      return await withTestExecutor { await play(scenario, on: clock, autoAdvance: autoAdvance) }
    }.value
  }
  return await startedOutsideAnyTask {
    guard wrapped else { return await play(scenario, on: clock, autoAdvance: autoAdvance) }
    return await withTestExecutor { await play(scenario, on: clock, autoAdvance: autoAdvance) }
  }
}

/// Runs `body` in a nonisolated task started by a plain thread, outside any task, as XCTest
/// starts an async test method, and answers its result.
func startedOutsideAnyTask(
  _ body: @escaping @Sendable () async -> [String]
) async -> [String] {
  await withCheckedContinuation { continuation in
    Thread {
      Task { continuation.resume(returning: await body()) }
    }.start()
  }
}

/// A Tempo test clock, its time moving by itself if `autoAdvance`.
func makeClock(autoAdvance: Bool) -> TempoClocks.TestClock<Duration> {
  let clock = TempoClocks.TestClock()
  clock.automaticallyAdvances = autoAdvance
  return clock
}

/// Runs a scenario on `clock`: an auto-advance scenario on its own, another by its advances.
@MainActor
func play(
  _ scenario: AsyncScenario, on clock: TempoClocks.TestClock<Duration>, autoAdvance: Bool
) async -> [String] {
  await ClocksInFlight.shared.holding(clock) {
    guard autoAdvance else { return await scenario.run(on: clock) { await $0.advance(by: $1) } }
    return await scenario.runAdvancingByItself(on: clock)
  }
}

/// A Tempo test clock made on a thread that runs no task (auto-advancing from there, as an
/// XCTest property initializer would set it, if `autoAdvance`).
func clockMadeOutsideATask(autoAdvance: Bool) async -> TempoClocks.TestClock<Duration> {
  final class Box: @unchecked Sendable {
    // Invariant: written on the thread before the continuation resumes, read after.
    var clock: TempoClocks.TestClock<Duration>?
  }
  let box = Box()
  await withCheckedContinuation { continuation in
    Thread {
      box.clock = makeClock(autoAdvance: autoAdvance)
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

/// An auto-advance scenario on swift-clocks' nearest: an ImmediateClock.
@MainActor
func runImmediateClock(_ scenario: AsyncScenario) async -> [String] {
  await scenario.runAdvancingByItself(on: Clocks.ImmediateClock())
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
  if options.offMainActor, !options.clockOutsideTask {
    fatalError("--off-main-actor runs with --clock-outside-task")
  }
  let load = options.load ? Load(threads: ProcessInfo.processInfo.activeProcessorCount) : nil
  let watchdog = Watchdog()
  let scenarios = (options.autoAdvance ? AsyncScenario.autoAdvancing : AsyncScenario.all)
    .filter { !options.nonisolated && (options.only == nil || $0.name == options.only) }
  let peerName = options.autoAdvance ? "swift-clocks' ImmediateClock" : "swift-clocks"
  let peerRepetitions = options.peerRepetitions ?? options.repetitions
  emit(
    """
    \(options.repetitions) runs per scenario on Tempo\
    \(options.tempoOnly ? "" : ", \(peerRepetitions) on \(peerName)")\
    \(options.autoAdvance ? ", auto-advance scenarios" : "")\
    \(options.load ? ", \(ProcessInfo.processInfo.activeProcessorCount) busy threads" : "")\
    \(options.noWrapper ? ", Tempo without withTestExecutor" : "")\
    \(options.clockOutsideTask ? ", Tempo's clock made outside any task" : "")\
    \(options.offMainActor ? ", each run's task off the main actor" : "")\
    \(options.parallel > 1 ? ", \(options.parallel) runs at a time" : "").

    | Scenario | Tempo failures | swift-clocks failures | Tempo µs/run | swift-clocks µs/run |
    |---|---:|---:|---:|---:|
    """)
  var notes: [String] = []
  let tempoBody: @MainActor @Sendable (AsyncScenario) async -> [String] =
    switch (options.clockOutsideTask, options.noWrapper, options.autoAdvance) {
    case (true, let noWrapper, let auto):
      {
        await runTempoWithClockOutsideTask(
          $0, wrapped: !noWrapper, autoAdvance: auto, offMainActor: options.offMainActor)
      }
    case (false, true, let auto): { await runTempoWithoutWrapper($0, autoAdvance: auto) }
    case (false, false, let auto): { await runTempo($0, autoAdvance: auto) }
    }
  let tempoRun = inParallel(options.parallel, tempoBody)
  let peerRun = inParallel(
    options.parallel, options.autoAdvance ? runImmediateClock : runSwiftClocks)
  for scenario in scenarios {
    let tempo = await measure(scenario, options.repetitions, watchdog, "Tempo", tempoRun)
    let peer =
      options.tempoOnly
      ? nil
      : await measure(scenario, peerRepetitions, watchdog, peerName, peerRun)
    let (tempoFailures, tempoTime) = format(tempo, options.repetitions)
    let (peerFailures, peerTime) = format(peer, peerRepetitions)
    let mark = scenario.limitation == nil ? "" : " ¹"
    emit(
      "| \(scenario.name)\(mark) | \(tempoFailures) | \(peerFailures) | \(tempoTime) | \(peerTime) |"
    )
    if let failure = tempo.firstFailure { notes.append("Tempo, \(scenario.name): \(failure)") }
    if let failure = peer?.firstFailure {
      notes.append("\(peerName), \(scenario.name): \(failure)")
    }
  }
  if options.nonisolated { await runNonisolatedScenarios(options, watchdog) }
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
