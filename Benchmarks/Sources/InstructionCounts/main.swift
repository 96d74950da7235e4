// Runs one scheduler workload once, for counting the instructions it executes under
// Valgrind's callgrind (see instructions.sh): the count covers `measured` alone, so start-up
// and the workload's set-up of its offsets are left out.
//
//   InstructionCounts <workload> <size>        a workload of Workloads (a scheduler workload,
//                                              or a whole test such as "search-as-you-type",
//                                              which ignores the size), or "floor"; a
//                                              workload named "api-floor/<workload>" runs on
//                                              the floor behind Combine's API (SchedulerFloor)
//                                              a workload named "combine-schedulers/<workload>"
//                                              runs on combine-schedulers' test scheduler
//   InstructionCounts <workload> <size> warm   the same, after an uncounted run (so that the
//                                              count leaves out one-time costs, like the
//                                              runtime's metadata, as the benchmark tool does)
//   InstructionCounts <workload> <size> task   warm, and each run in a task of its own, as the
//                                              benchmark tool runs it (a test scheduler created
//                                              in a task opens a test executor for it)
//
// In the last two modes it also prints how many allocations the counted run
// made, read from the benchmark tool's malloc interposer, which this executable loads.

import CombineSchedulers
import Dispatch
import OpenCombineShim
import TempoUnderTest
import Workloads

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A workload run in a task, and the count it answers, handed back to the main thread.
final class TaskRun: @unchecked Sendable {
  // Invariant: `value` is written by the task before it signals, and read by the main thread
  // after waiting; the rest is immutable.
  let workload: (Int) -> Int
  let size: Int
  var value = 0

  init(_ workload: @escaping (Int) -> Int, size: Int) {
    self.workload = workload
    self.size = size
  }
}

/// Runs `run` in a detached task, once uncounted and then once counted, each in a task of its
/// own, and waits for them: a semaphore rather than a top-level `await`, which would make all of
/// this file's code run in a task.
func runInTask(_ run: TaskRun) -> Int {
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    _ = run.workload(run.size)
    done.signal()
  }
  done.wait()
  Task.detached {
    run.value = measured(run.workload, run.size)
    done.signal()
  }
  done.wait()
  return run.value
}

let arguments = CommandLine.arguments.dropFirst()
guard (2...3).contains(arguments.count), let name = arguments.first,
  let size = Int(arguments.dropFirst().first!),
  arguments.count == 2 || ["warm", "task"].contains(arguments.last)
else {
  fatalError("usage: InstructionCounts <workload> <size> [warm | task]")
}
/// combine-schedulers' test scheduler, for the same workloads.
var peerScheduler: SchedulerUnderTest<CombineSchedulers.TestSchedulerOf<DispatchQueue>> {
  SchedulerUnderTest(
    make: { DispatchQueue.test },
    advance: { $0.advance(by: $1) },
    run: { $0.run() },
    timer: { $0.timerPublisher(every: $1).autoconnect().eraseToAnyPublisher() }
  )
}

let apiFloor = "api-floor/"
let peer = "combine-schedulers/"
let prefix = [apiFloor, peer].first { name.hasPrefix($0) } ?? ""
let workloadName = String(name.dropFirst(prefix.count))
func everyWorkload<S: Scheduler>(
  _ test: SchedulerUnderTest<S>
) -> [(key: String, value: (Int) -> Int)] {
  Array(schedulerWorkloads(test)) + Array(wholeTestWorkloads(test))
}
let workloads =
  name.hasPrefix(apiFloor)
  ? everyWorkload(schedulerFloor)
  : name.hasPrefix(peer) ? everyWorkload(peerScheduler) : everyWorkload(tempoScheduler)
let workload: (Int) -> Int
if name == "floor" {
  workload = floorWorkload
} else if let found = workloads.first(where: { $0.key == workloadName })?.value {
  workload = found
} else {
  fatalError(
    "no workload \(name); there are: floor, \(workloads.map(\.key).joined(separator: ", "))")
}

@inline(never)
func measured(_ workload: (Int) -> Int, _ size: Int) -> Int {
  Allocations.start()
  defer { Allocations.stop() }
  return workload(size)
}

/// The malloc interposer's counter, found by name so that no target depends on its module.
enum Allocations {
  typealias Control = @convention(c) () -> Void
  typealias Stats =
    @convention(c) (
      UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>,
      UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>
    ) -> Void

  nonisolated(unsafe) static var isCounting = false

  static func function<F>(_ name: String, as _: F.Type) -> F? {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
    return unsafeBitCast(symbol, to: F.self)
  }

  static func start() {
    guard isCounting else { return }
    function("malloc_interposer_reset", as: Control.self)?()
    function("malloc_interposer_enable", as: Control.self)?()
  }

  static func stop() {
    guard isCounting else { return }
    function("malloc_interposer_disable", as: Control.self)?()
  }

  /// The allocations of the last counted run, or nil without the interposer.
  static var count: Int64? {
    guard let stats = function("malloc_interposer_get_stats", as: Stats.self) else { return nil }
    var values = [Int64](repeating: 0, count: 6)
    values.withUnsafeMutableBufferPointer { v in
      stats(
        v.baseAddress!, v.baseAddress! + 1, v.baseAddress! + 2, v.baseAddress! + 3,
        v.baseAddress! + 4, v.baseAddress! + 5)
    }
    return values[0]
  }
}

_ = offsets(size)  // Warms up whatever the offsets need, outside the count.
let ran: Int
Allocations.isCounting = arguments.count == 3
if arguments.last == "task" {
  ran = runInTask(TaskRun(workload, size: size))
} else if arguments.last == "warm" {
  _ = workload(size)
  ran = measured(workload, size)
} else {
  ran = measured(workload, size)
}
precondition(ran > 0, "\(name) did nothing")
if Allocations.isCounting, let count = Allocations.count {
  print("allocations: \(count)")
}
print(ran)
