/// Something a timeline runs: a one-shot closure, or a handle that can be cancelled and may
/// repeat.
enum TimelineJob {
  case once(() -> Void)
  case handle(TimelineHandle)

  /// Whether this job's entry only waits to be dropped.
  var isCancelled: Bool {
    if case .handle(let handle) = self { return handle.action == nil }
    return false
  }
}

/// The part of a timeline's handle that its pending work needs: the action, and whether it
/// repeats. ``Timeline/Handle`` adds the interval and the way back to its timeline.
package class TimelineHandle: @unchecked Sendable {
  // Invariant: `action` is read and written only under the owning timeline's lock. It is
  // non-nil exactly while an entry for this handle is pending and still due to run.
  final var action: (() -> Void)?
  final let repeats: Bool

  init(repeats: Bool, action: @escaping () -> Void) {
    self.repeats = repeats
    self.action = action
  }
}

/// A timeline's pending work, ordered by (date, scheduling sequence).
///
/// Two kinds exist: ``KeyedPendingWork`` for date types that convert exactly to a
/// ``TimelineKey`` (Dispatch and `Date`-based scheduler times, clock instants measured in
/// `Duration`), which keeps a heap of integer keys in code compiled for that one entry type, and
/// ``OrderedPendingWork`` for any other `Comparable` date, which compares the dates themselves
/// through their generic witnesses. The timeline uses whichever ``make(now:)`` picks, always
/// under its own lock.
class PendingWork<Time: Comparable> {
  /// The owning timeline's current time (see ``TimelineState/now``). It is kept here, in the
  /// class, rather than in ``TimelineState``: a struct with a field of a generic type has no
  /// fixed layout, and unspecialized code then looks up the struct's metadata (a few hundred
  /// instructions) on every access to any of its fields. A class finds its fields through the
  /// instance's own metadata.
  @exclusivity(unchecked) final var now: Time

  init(now: Time) {
    self.now = now
  }

  /// The pending work for `Time`, starting at `now`: keyed if `Time` can be keyed, ordered by
  /// its dates otherwise.
  static func make(now: Time) -> PendingWork<Time> {
    if let keyed = Time.self as? any TimelineKeyed.Type {
      return keyedWork(keyed, now: now)
    }
    return OrderedPendingWork<Time>(now: now)
  }

  private static func keyedWork<Keyed: TimelineKeyed>(
    _: Keyed.Type, now: Time
  ) -> PendingWork<Time> {
    // `Keyed` is `Time`: the casts cannot fail.
    KeyedPendingWork<Keyed>(now: now as! Keyed) as! PendingWork<Time>
  }

  /// How many entries are pending, cancelled ones included.
  var count: Int { fatalError("abstract") }

  /// Every pending job, in no particular order.
  var jobs: [TimelineJob] { fatalError("abstract") }

  /// Adds `job` at `date`. - Complexity: O(log n)
  func insert(_ job: TimelineJob, at date: Time, sequence: UInt64) { fatalError("abstract") }

  /// The date and sequence number of the first entry, if any. - Complexity: O(1)
  func first() -> (date: Time, sequence: UInt64)? { fatalError("abstract") }

  /// The bound of a drive through `target` (through everything if nil), for
  /// ``removeFirst(dueBy:date:)``. Reads no state, so it needs no lock.
  func bound(through target: Time?) -> DueBound { fatalError("abstract") }

  /// Removes the first entry if it is due by `bound`, writing its date to `date`.
  /// - Complexity: O(log n)
  func removeFirst(
    dueBy bound: DueBound, date: inout Time
  ) -> (job: TimelineJob, sequence: UInt64)? {
    fatalError("abstract")
  }

  /// Removes the entries whose job is cancelled. - Complexity: O(n)
  func removeCancelled() { fatalError("abstract") }

  /// Removes cancelled entries from the front until the first is live; answers how many.
  /// - Complexity: O(k log n) for k removed
  func removeCancelledFirst() -> Int { fatalError("abstract") }

  /// An independent copy, for looking ahead without disturbing the original.
  func copy() -> PendingWork<Time> { fatalError("abstract") }
}

/// How far a drive takes pending work: through a date, or through all of it.
///
/// A drive makes its bound once, so taking each item compares it without converting the
/// target date again, and without the generic `Optional` of a date type, whose metadata the
/// runtime would look up on every call.
package struct DueBound {
  /// A keyed target, for keyed work.
  fileprivate var key: TimelineKey?
  /// A ``DateBox`` of the target, for work ordered by dates.
  fileprivate var date: AnyObject?

  /// Every entry is due: neither a key nor a date bounds it.
  static var everything: DueBound { DueBound() }
}

/// A date of a type only known generically, kept for an ordered bound.
private final class DateBox<Time> {
  let date: Time
  init(_ date: Time) { self.date = date }
}

/// An entry of a heap of pending work.
protocol PendingEntry: Comparable {
  var sequence: UInt64 { get }
  var job: TimelineJob { get }
}

extension BinaryHeap where Element: PendingEntry {
  var jobs: [TimelineJob] { storage.map(\.job) }

  mutating func removeCancelled() {
    removeAll { $0.job.isCancelled }
  }

  mutating func removeCancelledFirst() -> Int {
    var removed = 0
    while let first = min, first.job.isCancelled {
      popMin()
      removed += 1
    }
    return removed
  }
}

/// Pending work on a heap of ``TimelineKey``s: see ``PendingWork``.
final class KeyedPendingWork<Time: TimelineKeyed>: PendingWork<Time> {
  // Unchecked: only the owning timeline touches it, under its lock (see `PendingWork`).
  @exclusivity(unchecked) private var heap = BinaryHeap<KeyedEntry>()

  override var count: Int { heap.count }
  override var jobs: [TimelineJob] { heap.jobs }

  override func insert(_ job: TimelineJob, at date: Time, sequence: UInt64) {
    heap.insert(KeyedEntry(key: date.timelineKey, sequence: sequence, job: job))
  }

  override func first() -> (date: Time, sequence: UInt64)? {
    heap.min.map { (Time(timelineKey: $0.key), $0.sequence) }
  }

  override func bound(through target: Time?) -> DueBound {
    guard let target else { return .everything }
    return DueBound(key: target.timelineKey)
  }

  override func removeFirst(
    dueBy bound: DueBound, date: inout Time
  ) -> (job: TimelineJob, sequence: UInt64)? {
    guard let first = heap.min else { return nil }
    if let key = bound.key, key < first.key { return nil }
    heap.popMin()
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

/// Pending work on a heap of the dates themselves: see ``PendingWork``.
final class OrderedPendingWork<Time: Comparable>: PendingWork<Time> {
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

  override var count: Int { heap.count }
  override var jobs: [TimelineJob] { heap.jobs }

  override func insert(_ job: TimelineJob, at date: Time, sequence: UInt64) {
    heap.insert(Entry(date: date, sequence: sequence, job: job))
  }

  override func first() -> (date: Time, sequence: UInt64)? {
    heap.min.map { ($0.date, $0.sequence) }
  }

  override func bound(through target: Time?) -> DueBound {
    guard let target else { return .everything }
    return DueBound(date: DateBox(target))
  }

  override func removeFirst(
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

  override func removeCancelled() { heap.removeCancelled() }
  override func removeCancelledFirst() -> Int { heap.removeCancelledFirst() }

  override func copy() -> PendingWork<Time> {
    let copy = OrderedPendingWork(now: now)
    copy.heap = heap
    return copy
  }
}
