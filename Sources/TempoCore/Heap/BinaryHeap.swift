/// An array-backed binary min-heap.
///
/// Tempo's timeline keeps its pending work here, keyed by (date, scheduling sequence), so that
/// scheduling and taking the next due item are both O(log n), however much work is pending.
package struct BinaryHeap<Element: Comparable> {
  package private(set) var storage: [Element] = []

  package init() {}

  package var count: Int { storage.count }
  package var isEmpty: Bool { storage.isEmpty }

  /// The smallest element. - Complexity: O(1)
  package var min: Element? { storage.first }

  /// Adds an element. - Complexity: O(log n)
  package mutating func insert(_ element: Element) {
    storage.append(element)
    siftUp(from: storage.count - 1)
  }

  /// Removes and returns the smallest element. - Complexity: O(log n)
  @discardableResult
  package mutating func popMin() -> Element? {
    guard !storage.isEmpty else { return nil }
    return removeMin()
  }

  /// Removes and returns the smallest element; the heap must not be empty.
  /// - Complexity: O(log n)
  package mutating func removeMin() -> Element {
    precondition(!storage.isEmpty, "removeMin() on an empty heap")
    if storage.count == 1 { return storage.removeLast() }
    storage.withUnsafeMutableBufferPointer { $0.swapAt(0, $0.count - 1) }
    let min = storage.removeLast()
    siftDown(from: 0)
    return min
  }

  /// Removes the elements for which `shouldBeRemoved` is true and restores the heap order.
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

  private mutating func siftUp(from index: Int) {
    storage.withUnsafeMutableBufferPointer { elements in
      var child = index
      while child > 0 {
        let parent = (child - 1) / 2
        guard elements[child] < elements[parent] else { return }
        elements.swapAt(child, parent)
        child = parent
      }
    }
  }

  private mutating func siftDown(from index: Int) {
    storage.withUnsafeMutableBufferPointer { elements in
      var parent = index
      let count = elements.count
      while true {
        let left = 2 * parent + 1
        guard left < count else { return }
        let right = left + 1
        var smallest = left
        if right < count, elements[right] < elements[left] { smallest = right }
        guard elements[smallest] < elements[parent] else { return }
        elements.swapAt(parent, smallest)
        parent = smallest
      }
    }
  }
}
