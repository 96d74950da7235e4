// The heap and the two kinds of pending work kept on it (``KeyedPendingWork``,
// ``OrderedPendingWork``) share this file, so that a debug build, which is what `swift test`
// compiles, inlines the heap into them. The heap's operations on the path of every scheduled
// action are `@_transparent`: the only inlining a debug build does, and only into callers in
// the same file, since it compiles each file apart. Inlined into `KeyedPendingWork`, they run
// on its one concrete entry type; called, they ran as generic code, every comparison and every
// copy of an entry through the runtime's witnesses, and the heap was a tenth of a synchronous
// `delay` test's instructions. Two choices hold in debug builds only, where a release build
// measured slower with them (`Benchmarks/Logs/heap-in-debug-2026-12-07.md`): the sift down is
// transparent (a release build, which inlines on its own, ran 6 % more instructions taking
// 10,000 one-shots), and the last element is taken with `remove(at:)`, not `removeLast()`.

/// An array-backed binary min-heap.
///
/// Tempo's timeline keeps its pending work here, keyed by (date, scheduling sequence), so that
/// scheduling and taking the next due item are both O(log n), however much work is pending.
///
/// ```swift
/// var heap = BinaryHeap<Int>()
/// heap.insert(3)
/// heap.insert(1)
/// heap.popMin()  // 1
/// ```
package struct BinaryHeap<Element: Comparable> {
  package private(set) var storage: [Element] = []

  package init() {}

  package var count: Int { storage.count }
  // `count` and the subscript rather than `isEmpty` and `first`, and in a debug build
  // `remove(at:)` rather than `removeLast()`: the others are generic collection algorithms,
  // which a debug build calls unspecialized, a few hundred instructions each.
  package var isEmpty: Bool { storage.count == 0 }

  /// The smallest element.
  ///
  /// - Complexity: O(1)
  @_transparent
  package var min: Element? { storage.count > 0 ? storage[0] : nil }

  /// Adds an element.
  ///
  /// - Complexity: O(log n)
  @_transparent
  package mutating func insert(_ element: Element) {
    storage.append(element)
    siftUp(from: storage.count - 1)
  }

  /// Removes and returns the smallest element.
  ///
  /// - Complexity: O(log n)
  @discardableResult
  package mutating func popMin() -> Element? {
    guard storage.count > 0 else { return nil }
    return removeMin()
  }

  /// Removes and returns the smallest element; the heap must not be empty.
  ///
  /// - Complexity: O(log n)
  @_transparent
  package mutating func removeMin() -> Element {
    precondition(storage.count > 0, "removeMin() on an empty heap")
    #if DEBUG
      let last = storage.remove(at: storage.count - 1)
    #else
      let last = storage.removeLast()
    #endif
    guard storage.count > 0 else { return last }
    return storage.withUnsafeMutableBufferPointer { elements in
      let min = elements.moveElement(from: 0)
      elements.initializeElement(at: Self.sinkHole(in: elements, from: 0, placing: last), to: last)
      return min
    }
  }

  /// Removes the elements for which `shouldBeRemoved` is true and restores the heap order.
  ///
  /// - Complexity: O(n)
  package mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
    storage.removeAll(where: shouldBeRemoved)
    guard storage.count > 1 else { return }
    for index in stride(from: storage.count / 2 - 1, through: 0, by: -1) {
      siftDown(from: index)
    }
  }

  /// Whether every parent orders before its children; for tests.
  package var isValid: Bool {
    storage.indices.dropFirst().allSatisfy { !(storage[$0] < storage[($0 - 1) / 2]) }
  }

  // The sifts work on the buffer directly: in code that is generic over the element, Array's
  // subscript accessors are coroutines whose frames are allocated on the heap, one allocation
  // per access. Buffer pointers address elements without that.
  //
  // Both move a hole rather than swapping: the element being placed is held aside, each element
  // on its way moves once into the hole, and the element is written where the hole stops.

  @_transparent
  private mutating func siftUp(from index: Int) {
    guard index > 0 else { return }
    storage.withUnsafeMutableBufferPointer { elements in
      // Most insertions stay where they are: compare before taking the element out.
      var parent = (index - 1) / 2
      guard elements[index] < elements[parent] else { return }
      let element = elements.moveElement(from: index)
      var hole = index
      repeat {
        elements.move(from: parent, to: hole)
        hole = parent
        parent = (hole - 1) / 2
      } while hole > 0 && element < elements[parent]
      elements.initializeElement(at: hole, to: element)
    }
  }

  private mutating func siftDown(from index: Int) {
    storage.withUnsafeMutableBufferPointer { elements in
      let element = elements.moveElement(from: index)
      let hole = Self.sinkHole(in: elements, from: index, placing: element)
      elements.initializeElement(at: hole, to: element)
    }
  }

  /// Moves the hole at `index` down to where `element` belongs, moving each smaller child up
  /// into it, and answers where the hole stopped (uninitialized, for `element`).
  ///
  /// The hole first goes down to a leaf along the smaller children, one comparison per level,
  /// then back up while `element` orders before the hole's parent: an element taken from the
  /// heap's end, as `removeMin()` places it, belongs near the bottom, so this compares about
  /// half as often as stopping on the way down, which takes two comparisons per level.
  #if DEBUG
    @_transparent
  #endif
  private static func sinkHole(
    in elements: UnsafeMutableBufferPointer<Element>, from index: Int, placing element: Element
  ) -> Int {
    let count = elements.count
    var hole = index
    while true {
      let left = 2 * hole + 1
      guard left < count else { break }
      let right = left + 1
      let smaller = right < count && elements[right] < elements[left] ? right : left
      elements.move(from: smaller, to: hole)
      hole = smaller
    }
    while hole > index {
      let parent = (hole - 1) / 2
      guard element < elements[parent] else { break }
      elements.move(from: parent, to: hole)
      hole = parent
    }
    return hole
  }
}

extension UnsafeMutableBufferPointer {
  /// Moves the element at `source` into the uninitialized `destination`, leaving `source`
  /// uninitialized.
  @_transparent
  fileprivate func move(from source: Int, to destination: Int) {
    initializeElement(at: destination, to: moveElement(from: source))
  }
}

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
