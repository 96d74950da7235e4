/// Pending work on a heap of ``TimelineKey``s: see ``PendingWork``.
final class KeyedPendingWork<Time: TimelineKeyed>: PendingWork<Time> {
  // Unchecked: only the owning timeline touches it, under its lock (see `PendingWork`).
  @exclusivity(unchecked) private var heap = BinaryHeap<KeyedEntry>()

  override var count: Int { heap.count }
  override func forEachJob(_ body: (TimelineJob) -> Void) { heap.storage.forEach { body($0.job) } }

  override func insert(_ job: TimelineJob, at date: Time, sequence: UInt64) {
    heap.insert(KeyedEntry(key: date.timelineKey, sequence: sequence, job: job))
  }

  override func first() -> (date: Time, sequence: UInt64)? {
    heap.min.map { (Time(timelineKey: $0.key), $0.sequence) }
  }

  override func bound(through target: Time) -> DueBound {
    return DueBound(key: target.timelineKey)
  }

  override func removeFirst(
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

  override func removeCancelled() { heap.removeCancelled() }
  override func removeCancelledFirst() -> Int { heap.removeCancelledFirst() }

  override func copy() -> PendingWork<Time> {
    let copy = KeyedPendingWork(now: now)
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
