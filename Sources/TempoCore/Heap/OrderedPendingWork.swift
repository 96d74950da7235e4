/// Pending work on a heap of the dates themselves: see ``PendingWork``.
final class OrderedPendingWork<Time: Comparable>: PendingWork {
  // Unchecked: only the owning timeline touches it, under its lock (see `PendingWork`).
  @exclusivity(unchecked) private var heap = BinaryHeap<Entry>()

  struct Entry: PendingEntry {
    let date: Time
    let sequence: UInt64
    let job: TimelineJob

    static func < (lhs: Entry, rhs: Entry) -> Bool {
      lhs.date < rhs.date || (!(rhs.date < lhs.date) && lhs.sequence < rhs.sequence)
    }

    static func == (lhs: Entry, rhs: Entry) -> Bool {
      lhs.sequence == rhs.sequence
    }
  }

  var count: Int { heap.count }
  func forEachJob(_ body: (TimelineJob) -> Void) { heap.storage.forEach { body($0.job) } }

  func insert(_ job: TimelineJob, at date: Time, sequence: UInt64) {
    heap.insert(Entry(date: date, sequence: sequence, job: job))
  }

  func first() -> (date: Time, sequence: UInt64)? {
    heap.min.map { ($0.date, $0.sequence) }
  }

  func bound(through target: Time) -> DueBound {
    return DueBound(date: DateBox(target))
  }

  func removeFirst(
    dueBy bound: DueBound, date: inout Time
  ) -> (job: TimelineJob, sequence: UInt64)? {
    guard let first = heap.min else { return nil }
    // Only this type makes ordered bounds, and only with a box of its own date type.
    if let box = bound.date, unsafeDowncast(box, to: DateBox<Time>.self).date < first.date {
      return nil
    }
    heap.popMin()
    date = first.date
    return (first.job, first.sequence)
  }

  func removeCancelled() { heap.removeCancelled() }
  func removeCancelledFirst() -> Int { heap.removeCancelledFirst() }

  func copy() -> OrderedPendingWork<Time> {
    let copy = OrderedPendingWork()
    copy.heap = heap
    return copy
  }
}
