/// A timeline's pending work, ordered by (date, scheduling sequence).
///
/// Two kinds conform: ``KeyedPendingWork`` for date types that convert exactly to a
/// ``TimelineKey`` (Dispatch and `Date`-based scheduler times, clock instants measured in
/// `Duration`), which keeps a heap of integer keys in code compiled for that one entry type, and
/// ``OrderedPendingWork`` for any other `Comparable` date, which compares the dates themselves
/// through their generic witnesses. The timeline keeps whichever ``makePendingWork(for:)``
/// picks, as an `any PendingWork<Time>`, and uses it always under its own lock; the timeline's
/// `now` is not kept here (see ``TimelineState``).
protocol PendingWork<Time>: AnyObject {
  associatedtype Time: Comparable

  /// How many entries are pending, cancelled ones included.
  var count: Int { get }

  /// Calls `body` with every pending job, in no particular order, without collecting them.
  func forEachJob(_ body: (TimelineJob) -> Void)

  /// Adds `job` at `date`.
  ///
  /// - Complexity: O(log n)
  func insert(_ job: TimelineJob, at date: Time, sequence: UInt64)

  /// The date and sequence number of the first entry, if any.
  ///
  /// - Complexity: O(1)
  func first() -> (date: Time, sequence: UInt64)?

  /// The bound of a drive through `target`, for ``removeFirst(dueBy:date:)`` (``DueBound/everything``
  /// for a drive through everything). Reads no state, so it needs no lock.
  func bound(through target: Time) -> DueBound

  /// Removes the first entry if it is due by `bound`, writing its date to `date`.
  ///
  /// - Complexity: O(log n)
  func removeFirst(dueBy bound: DueBound, date: inout Time) -> (job: TimelineJob, sequence: UInt64)?

  /// Removes the entries whose job is cancelled.
  ///
  /// - Complexity: O(n)
  func removeCancelled()

  /// Removes cancelled entries from the front until the first is live; answers how many.
  ///
  /// - Complexity: O(k log n) for k removed
  func removeCancelledFirst() -> Int

  /// An independent copy, for looking ahead without disturbing the original.
  func copy() -> Self
}

/// Empty pending work for `Time`: keyed if `Time` can be keyed, ordered by its dates otherwise.
func makePendingWork<Time: Comparable>(for _: Time.Type) -> any PendingWork<Time> {
  if let keyed = Time.self as? any TimelineKeyed.Type {
    return keyedWork(keyed)
  }
  return OrderedPendingWork<Time>()
}

private func keyedWork<Keyed: TimelineKeyed, Time: Comparable>(
  _: Keyed.Type
) -> any PendingWork<Time> {
  // `Keyed` is `Time` (the caller's cast found `Time` keyed), so `any PendingWork<Keyed>` and
  // `any PendingWork<Time>` are one type, with one layout, and the value is read as the other
  // rather than cast: a dynamic cast to a constrained existential checks the conformance and
  // the same-type requirement again, at runtime, and cost more than the rest of making a clock.
  // (`unsafeBitCast` refuses the two types in a generic context, and a function converted
  // instead allocated its context.)
  let work: any PendingWork<Keyed> = KeyedPendingWork<Keyed>()
  return withUnsafePointer(to: work) { keyed in
    keyed.withMemoryRebound(to: (any PendingWork<Time>).self, capacity: 1) { $0.pointee }
  }
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
