// A second floor, for the workloads that go through Combine's `Scheduler` API: the least any
// virtual-time scheduler behind that API must do. A target of its own, so that the whole tests use
// it without the benchmark package that the workloads bring.

import HeapModule
public import TempoSchedulers

/// The floor behind Combine's `Scheduler` API: a virtual-time scheduler that is only a heap.
///
/// It keeps (date, sequence, job) entries in swift-collections' `Heap` and does nothing else: no
/// lock (so it is not safe to use from two threads), no checks of the dates it is given, no
/// reports, no exact grid for repeats (each repeat is the previous date plus the interval), no
/// cancelled entries dropped before they are reached. What a workload costs on it is what
/// Combine's API, the workload's own generic code and a heap cost together; a scheduler that
/// does more pays the difference.
///
/// ```swift
/// let scheduler = SchedulerFloor()
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { print("ran") }
/// scheduler.advance(by: .seconds(1))
/// ```
public final class SchedulerFloor: Scheduler {
  public typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  public typealias SchedulerOptions = DispatchQueue.SchedulerOptions

  public private(set) var now = SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

  private var heap = Heap<Entry>()
  private var nextSequence = 0

  public init() {}

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    push(now, .once(action))
  }

  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) {
    push(date, .once(action))
  }

  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    let timer = Repeat(interval: interval, action: action)
    push(date, .repeating(timer))
    return AnyCancellable { timer.isCancelled = true }
  }

  /// Runs everything due within `stride` from now, in order, and moves now by `stride`.
  public func advance(by stride: SchedulerTimeType.Stride) {
    let target = now.advanced(by: stride)
    while let first = heap.min, first.date <= target {
      take(heap.removeMin())
    }
    now = target
  }

  /// Runs everything pending, in order.
  public func run() {
    while let entry = heap.popMin() { take(entry) }
  }

  private func take(_ entry: Entry) {
    now = entry.date
    switch entry.job {
    case .once(let action):
      action()
    case .repeating(let timer):
      guard !timer.isCancelled else { return }
      timer.action()
      if !timer.isCancelled { push(entry.date.advanced(by: timer.interval), entry.job) }
    }
  }

  private func push(_ date: SchedulerTimeType, _ job: Job) {
    heap.insert(Entry(date: date, sequence: nextSequence, job: job))
    nextSequence += 1
  }

  private enum Job {
    case once(() -> Void)
    case repeating(Repeat)
  }

  private final class Repeat {
    let interval: SchedulerTimeType.Stride
    let action: () -> Void
    var isCancelled = false

    init(interval: SchedulerTimeType.Stride, action: @escaping () -> Void) {
      self.interval = interval
      self.action = action
    }
  }

  private struct Entry: Comparable {
    let date: SchedulerTimeType
    let sequence: Int
    let job: Job

    static func < (lhs: Self, rhs: Self) -> Bool {
      (lhs.date, lhs.sequence) < (rhs.date, rhs.sequence)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
      (lhs.date, lhs.sequence) == (rhs.date, rhs.sequence)
    }
  }
}
