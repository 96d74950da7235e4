/// An array-backed binary min-heap.
///
/// Tempo's timeline keeps its pending work here, keyed by (date, scheduling sequence), so that
/// scheduling and taking the next due item are both O(log n), however much work is pending.
package struct BinaryHeap<Element: Comparable> {
  package private(set) var storage: [Element] = []

  package init() {}

  package var count: Int { storage.count }
  package var isEmpty: Bool { storage.isEmpty }

  /// The smallest element.
  ///
  /// - Complexity: O(1)
  package var min: Element? { storage.first }

  /// Adds an element.
  ///
  /// - Complexity: O(log n)
  @inline(__always)
  package mutating func insert(_ element: Element) {
    storage.append(element)
    siftUp(from: storage.count - 1)
  }

  /// Removes and returns the smallest element.
  ///
  /// - Complexity: O(log n)
  @discardableResult
  package mutating func popMin() -> Element? {
    guard !storage.isEmpty else { return nil }
    return removeMin()
  }

  /// Removes and returns the smallest element; the heap must not be empty.
  ///
  /// - Complexity: O(log n)
  package mutating func removeMin() -> Element {
    precondition(!storage.isEmpty, "removeMin() on an empty heap")
    let last = storage.removeLast()
    guard !storage.isEmpty else { return last }
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

  @inline(__always)
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
  @inline(__always)
  fileprivate func move(from source: Int, to destination: Int) {
    initializeElement(at: destination, to: moveElement(from: source))
  }
}
