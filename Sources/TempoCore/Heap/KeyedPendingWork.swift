/// Pending work on a heap of ``TimelineKey``s: see ``PendingWork``.
final class KeyedPendingWork<Time: TimelineKeyed>: PendingWork {
  // Unchecked: only the owning timeline touches it, under its lock (see `PendingWork`).
  @exclusivity(unchecked) private var heap = BinaryHeap<KeyedEntry>()

  var count: Int { heap.count }
  func forEachJob(_ body: (TimelineJob) -> Void) { heap.storage.forEach { body($0.job) } }

  func insert(_ job: TimelineJob, at date: Time, sequence: UInt64) {
    heap.insert(KeyedEntry(key: date.timelineKey, sequence: sequence, job: job))
  }

  func first() -> (date: Time, sequence: UInt64)? {
    heap.min.map { (Time(timelineKey: $0.key), $0.sequence) }
  }

  func bound(through target: Time) -> DueBound {
    return DueBound(key: target.timelineKey)
  }

  func removeFirst(
    dueBy bound: DueBound, date: inout Time
  ) -> (job: TimelineJob, sequence: UInt64)? {
    // Only the key is read before the entry is removed: an optional entry left over to destroy
    // would go through the runtime's generic value witnesses.
    guard let firstKey = heap.min?.key else { return nil }
    if let key = bound.key, key < firstKey { return nil }
    let first = heap.removeMin()
    date = Time(timelineKey: first.key)
    return (first.job, first.sequence)
  }

  func removeCancelled() { heap.removeCancelled() }
  func removeCancelledFirst() -> Int { heap.removeCancelledFirst() }

  func copy() -> KeyedPendingWork<Time> {
    let copy = KeyedPendingWork()
    copy.heap = heap
    return copy
  }
}

/// An entry of ``KeyedPendingWork``, declared outside it so that it is one concrete type
/// rather than one per date type.
struct KeyedEntry: PendingEntry {
  let key: TimelineKey
  let sequence: UInt64
  let job: TimelineJob

  @inline(__always)
  static func < (lhs: KeyedEntry, rhs: KeyedEntry) -> Bool {
    lhs.key < rhs.key || (lhs.key == rhs.key && lhs.sequence < rhs.sequence)
  }

  static func == (lhs: KeyedEntry, rhs: KeyedEntry) -> Bool {
    lhs.key == rhs.key && lhs.sequence == rhs.sequence
  }
}
