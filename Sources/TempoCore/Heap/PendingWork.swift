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

  /// Calls `body` with every pending job, in no particular order, without collecting them.
  func forEachJob(_ body: (TimelineJob) -> Void) { fatalError("abstract") }

  /// Adds `job` at `date`.
  ///
  /// - Complexity: O(log n)
  func insert(_ job: TimelineJob, at date: Time, sequence: UInt64) { fatalError("abstract") }

  /// The date and sequence number of the first entry, if any.
  ///
  /// - Complexity: O(1)
  func first() -> (date: Time, sequence: UInt64)? { fatalError("abstract") }

  /// The bound of a drive through `target`, for ``removeFirst(dueBy:date:)`` (``DueBound/everything``
  /// for a drive through everything). Reads no state, so it needs no lock.
  func bound(through target: Time) -> DueBound { fatalError("abstract") }

  /// Removes the first entry if it is due by `bound`, writing its date to `date`.
  ///
  /// - Complexity: O(log n)
  func removeFirst(
    dueBy bound: DueBound, date: inout Time
  ) -> (job: TimelineJob, sequence: UInt64)? {
    fatalError("abstract")
  }

  /// Removes the entries whose job is cancelled.
  ///
  /// - Complexity: O(n)
  func removeCancelled() { fatalError("abstract") }

  /// Removes cancelled entries from the front until the first is live; answers how many.
  ///
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
  var key: TimelineKey?
  /// A ``DateBox`` of the target, for work ordered by dates.
  var date: AnyObject?

  /// Every entry is due: neither a key nor a date bounds it.
  static var everything: DueBound { DueBound() }
}

/// A date of a type only known generically, kept for an ordered bound.
final class DateBox<Time> {
  let date: Time
  init(_ date: Time) { self.date = date }
}

/// An entry of a heap of pending work.
protocol PendingEntry: Comparable {
  var sequence: UInt64 { get }
  var job: TimelineJob { get }
}

extension BinaryHeap where Element: PendingEntry {
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
