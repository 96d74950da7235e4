// Tempo's side of the scheduler workloads, and the floor they are measured against: shared by
// the benchmarks and by the instruction counts.

@_exported public import CombineFloor
import HeapModule
public import TempoSchedulers
public import Workloads

/// The test scheduler the workloads run on.
public typealias TempoScheduler = TestScheduler<
  DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions
>

/// Tempo's scheduler operations for the workloads.
public var tempoScheduler: SchedulerUnderTest<TempoScheduler> {
  SchedulerUnderTest(
    make: { TempoScheduler(now: .init(.init(uptimeNanoseconds: 1))) },
    advance: { $0.advance(by: $1) },
    run: { $0.run() },
    timer: { Publishers.Timer(every: $1, scheduler: $0).autoconnect().eraseToAnyPublisher() }
  )
}

/// The floor: what any heap-based timeline must do at least. Pushes `size` (date, sequence,
/// closure) entries through a binary heap, pops them in order and calls each closure; answers
/// how many ran.
public func floorWorkload(_ size: Int) -> Int {
  var heap = Heap<FloorEntry>()
  var ran = 0
  for (sequence, offset) in offsets(size).enumerated() {
    heap.insert(FloorEntry(date: offset, sequence: sequence) { ran += 1 })
  }
  while let entry = heap.popMin() { entry.action() }
  return ran
}

struct FloorEntry: Comparable {
  let date: Int
  let sequence: Int
  let action: () -> Void

  static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.date, lhs.sequence) < (rhs.date, rhs.sequence)
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.date, lhs.sequence) == (rhs.date, rhs.sequence)
  }
}

/// The floor behind Combine's `Scheduler` API, for the scheduler workloads.
public var schedulerFloor: SchedulerUnderTest<SchedulerFloor> {
  SchedulerUnderTest(
    make: { SchedulerFloor() },
    advance: { $0.advance(by: $1) },
    run: { $0.run() },
    timer: { Publishers.Timer(every: $1, scheduler: $0).autoconnect().eraseToAnyPublisher() }
  )
}
