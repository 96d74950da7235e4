// Runs one scheduler workload once, for counting the instructions it executes under
// Valgrind's callgrind (see instructions.sh): the count covers `measured` alone, so start-up
// and the workload's set-up of its offsets are left out.
//
//   InstructionCounts <workload> <size>      a workload of Workloads, or "floor"

import TempoUnderTest
import Workloads

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let name = arguments.first, let size = Int(arguments.last!) else {
  fatalError("usage: InstructionCounts <workload> <size>")
}
let workloads = schedulerWorkloads(tempoScheduler)
let workload: (Int) -> Int
if name == "floor" {
  workload = floorWorkload
} else if let found = workloads.first(where: { $0.key == name })?.value {
  workload = found
} else {
  fatalError(
    "no workload \(name); there are: floor, \(workloads.map(\.key).joined(separator: ", "))")
}

@inline(never)
func measured(_ workload: (Int) -> Int, _ size: Int) -> Int {
  workload(size)
}

_ = offsets(size)  // Warms up whatever the offsets need, outside the count.
let ran = measured(workload, size)
precondition(ran > 0, "\(name) did nothing")
print(ran)
