// Memory per test: one whole test, as a user writes it, run many times in one process, with the
// process's peak resident size read after the first runs and again after all of them. A test
// that leaves nothing behind reaches its peak early and stays there; one that leaves something
// behind grows the process with every run.
//
//   swift build -c release --product MemoryGrowth
//   .build/release/MemoryGrowth [--all | --form FORM] [--first 2000] [--total 200000]
//
// The test: `let clock = TestClock()`, a task that sleeps 1 s on it and returns a value,
// `await clock.advance(by: .seconds(1))`, and a check of the task's value. Each run is a task of
// its own, as a test runner runs each test. FORM says where the clock is made:
//
//   task           in the run's task, no wrapper: the clock opens its test executor itself
//   scope          in the run's task, inside `withTestExecutor { }`
//   outside        on a plain thread outside any task (a Dispatch worker), as XCTest makes a
//                  test case's properties; the run's task then uses it, no wrapper
//   outside-scope  as outside, the run's task inside `withTestExecutor { }`
//   main           in the run's task, a `Task { @MainActor in }`, where the whole test runs, as
//                  a `@MainActor` test
//   combine        not a clock: `DispatchQueue.test` in the run's task, a task sleeping 1 s on
//                  it, and the scheduler's async `advance(by:)`
//   leaky          a leaky test inside `withTestExecutor(leftoverWork: .ignore) { }`: its task
//                  sleeps 5 s, holding a megabyte, and the test advances 1 s and ends. The end
//                  of the test ends the sleep; the check is that the task's `catch` ran
//                  before the scope returned
//   leaky-combine  the same on `DispatchQueue.test`
//
// A form prints one row of a Markdown table: the peak resident size (VmHWM from
// /proc/self/status; `getrusage`'s ru_maxrss elsewhere) after --first runs and after --total
// runs (the first ones included), the difference, the runs whose check failed, and the real
// time of all the runs. Sizes are in MB of 10^6 bytes. The process ends with status 1 if the
// difference is 5 MB or more or a run's check failed.
//
// --all (the default) runs every form, each in a child process of its own (this program again,
// with --form), so that no form starts on a heap that another has grown, and ends with status 1
// if any form failed. --no-header leaves the table's header out, as --all asks its children.

import Foundation
import TempoClocks
import TempoSchedulers
import TempoTestSupport

enum Form: String, CaseIterable {
  case task, scope, outside, outsideScope = "outside-scope", main, combine, leaky
  case leakyCombine = "leaky-combine"
}

struct Options {
  var form: Form?
  var first = 2_000
  var total = 200_000
  var header = true

  init(_ arguments: [String]) {
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch argument {
      case "--all": form = nil
      case "--form":
        let name = arguments.popFirst() ?? ""
        guard let form = Form(rawValue: name) else {
          fatalError(
            "unknown form \(name); one of \(Form.allCases.map(\.rawValue).joined(separator: ", "))"
          )
        }
        self.form = form
      case "--first": first = Int(arguments.popFirst() ?? "") ?? first
      case "--total": total = Int(arguments.popFirst() ?? "") ?? total
      case "--no-header": header = false
      default: fatalError("unknown argument \(argument)")
      }
    }
    precondition(0 < first && first <= total, "--first must be at least 1 and at most --total")
  }
}

/// The largest difference between the two readings that still passes: 5 MB.
let limit = 5_000_000

// MARK: - The test

/// The whole test on `clock`: true if the sleeping task returned its value.
func test(_ clock: TestClock<Duration>) async -> Bool {
  let task = Task {
    try await clock.sleep(for: .seconds(1))
    return 42
  }
  await clock.advance(by: .seconds(1))
  return (try? await task.value) == 42
}

/// The same test as a `@MainActor` test runs it: its task and its advance on the main actor.
@MainActor
func mainActorTest() async -> Bool {
  let clock = TestClock()
  let task = Task {
    try await clock.sleep(for: .seconds(1))
    return 42
  }
  await clock.advance(by: .seconds(1))
  return (try? await task.value) == 42
}

/// The same test on a Combine test scheduler.
func testScheduler() async -> Bool {
  let scheduler = DispatchQueue.test
  let task = Task {
    try await scheduler.sleep(for: .seconds(1))
    return 42
  }
  await scheduler.advance(by: .seconds(1))
  return (try? await task.value) == 42
}

/// A test that leaves a sleep pending, which the end of its scope ends: true if the sleeping
/// task's `catch` ran before the scope returned. `source` makes, in the scope, a sleep and an
/// advance of one time source. The task holds a megabyte, so that a sleeper left parked would
/// show at once.
func leakyTest(
  _ source: () -> (sleep: @Sendable () async throws -> Void, advance: () async -> Void)
) async -> Bool {
  let ended = Flag()
  await withTestExecutor(leftoverWork: .ignore) {
    let (sleep, advance) = source()
    let held = [UInt8](repeating: 1, count: 1_000_000)
    Task {
      do { try await sleep() } catch { ended.set() }
      withExtendedLifetime(held) {}
    }
    await advance()
  }
  return ended.isSet
}

/// A flag any thread may set.
final class Flag: @unchecked Sendable {
  // Invariant: `lock` guards `value`.
  private let lock = NSLock()
  private var value = false
  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }
}

/// A test clock made on a Dispatch worker, a thread that runs no task.
func clockMadeOutsideATask() async -> TestClock<Duration> {
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(returning: TestClock()) }
  }
}

/// One run of `form`, in a task of its own: true if its check passed.
func run(_ form: Form) async -> Bool {
  switch form {
  case .task:
    return await Task { await test(TestClock()) }.value
  case .scope:
    return await Task { await withTestExecutor { await test(TestClock()) } }.value
  case .outside:
    let clock = await clockMadeOutsideATask()
    return await Task { await test(clock) }.value
  case .outsideScope:
    let clock = await clockMadeOutsideATask()
    return await Task { await withTestExecutor { await test(clock) } }.value
  case .main:
    return await Task { @MainActor in await mainActorTest() }.value
  case .combine:
    return await Task { await testScheduler() }.value
  case .leaky:
    return await Task {
      await leakyTest {
        let clock = TestClock()
        return (
          { try await clock.sleep(for: .seconds(5)) }, { await clock.advance(by: .seconds(1)) }
        )
      }
    }.value
  case .leakyCombine:
    return await Task {
      await leakyTest {
        let scheduler = DispatchQueue.test
        return (
          { try await scheduler.sleep(for: .seconds(5)) },
          { await scheduler.advance(by: .seconds(1)) }
        )
      }
    }.value
  }
}

// MARK: - Measuring

/// The peak resident size of this process so far, in bytes.
func peakResidentBytes() -> Int {
  #if os(Linux)
    // A line such as "VmHWM:     12345 kB"; the kernel's kB are 1,024 bytes.
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    else { fatalError("no VmHWM in /proc/self/status") }
    return kilobytes * 1_024
  #else
    var usage = rusage()
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss)  // Bytes on Apple's systems.
  #endif
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_000_000) }

func header(_ options: Options) -> String {
  """
  | Form | Peak RSS after \(options.first) runs (MB) | after \(options.total) (MB) \
  | Difference (MB) | Wrong runs | Real time (s) |
  |---|---:|---:|---:|---:|---:|
  """
}

/// Runs `form` --total times and prints its row: true if it passed.
func measure(_ form: Form, _ options: Options) async -> Bool {
  var wrong = 0
  var afterFirst = 0
  let start = ContinuousClock.now
  for index in 1...options.total {
    if await !run(form) { wrong += 1 }
    if index == options.first { afterFirst = peakResidentBytes() }
  }
  let elapsed = ContinuousClock.now - start
  let afterTotal = peakResidentBytes()
  let difference = afterTotal - afterFirst
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  emit(
    """
    | \(form.rawValue) | \(megabytes(afterFirst)) | \(megabytes(afterTotal)) \
    | \(megabytes(difference)) | \(wrong) / \(options.total) | \(String(format: "%.1f", seconds)) |
    """)
  return difference < limit && wrong == 0
}

/// Runs every form in a child process of its own: true if all of them passed.
func measureEachInAProcessOfItsOwn(_ options: Options) throws -> Bool {
  let executable =
    Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
  var passed = true
  for form in Form.allCases {
    let child = Process()
    child.executableURL = executable
    child.arguments = [
      "--form", form.rawValue, "--first", "\(options.first)", "--total", "\(options.total)",
      "--no-header",
    ]
    try child.run()  // Its row goes to the same standard output.
    child.waitUntilExit()
    switch child.terminationStatus {
    case 0: break
    case 1: passed = false
    case let status:
      emit("| \(form.rawValue) | — | — | — | ended with status \(status) | — |")
      passed = false
    }
  }
  return passed
}

/// Writes a line at once, so that rows appear as they are measured and before a child's.
func emit(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func main() async throws {
  let options = Options(Array(CommandLine.arguments.dropFirst()))
  if options.header { emit(header(options)) }
  let passed =
    if let form = options.form {
      await measure(form, options)
    } else {
      try measureEachInAProcessOfItsOwn(options)
    }
  exit(passed ? 0 : 1)
}

try await main()
