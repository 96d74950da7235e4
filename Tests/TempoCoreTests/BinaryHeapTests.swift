import TempoTestHelpers
import Testing

@testable import TempoCore

@Suite struct BinaryHeapTests {
  @Test(arguments: [1, 2, 3, 42, 2026])
  func popsInSortedOrderThroughInterleavedInsertsAndRemovals(seed: UInt64) {
    var random = SplitMix(state: seed)
    var heap = BinaryHeap<Int>()
    var model: [Int] = []
    for _ in 0..<5_000 {
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<6:
        let value = Int.random(in: 0..<500, using: &random)
        heap.insert(value)
        model.append(value)
      case 6..<9:
        let popped = heap.popMin()
        let expected = model.min()
        if let expected { model.remove(at: model.firstIndex(of: expected)!) }
        #expect(popped == expected)
      default:
        let odd = Bool.random(using: &random)
        heap.removeAll { ($0 % 2 == 1) == odd }
        model.removeAll { ($0 % 2 == 1) == odd }
      }
      #expect(heap.isValid)
      #expect(heap.count == model.count)
      #expect(heap.min == model.min())
    }
  }

  @Test func removeMinTakesTheSmallestElementEachTime() {
    var heap = BinaryHeap<Int>()
    for value in [5, 3, 9, 1, 7, 3] { heap.insert(value) }
    var taken: [Int] = []
    while !heap.isEmpty {
      taken.append(heap.removeMin())
      #expect(heap.isValid)
    }
    #expect(taken == [1, 3, 3, 5, 7, 9])
  }

  @Test func anEmptyHeapHasNothingToPop() {
    var heap = BinaryHeap<Int>()
    #expect(heap.isEmpty)
    #expect(heap.popMin() == nil)
    #expect(heap.min == nil)
  }

  /// The sifts move elements through a hole rather than swapping them: every element must still
  /// be released exactly once, whether it was popped, removed or left in the heap.
  @Test func movesKeepEveryElementAliveUntilItLeavesAndReleaseItOnce() {
    let counter = Counter()
    var random = SplitMix(state: 7)
    var popped: [Tracked] = []
    do {
      var heap = BinaryHeap<Tracked>()
      for _ in 0..<2_000 {
        if Int.random(in: 0..<3, using: &random) == 0 {
          if let element = heap.popMin() { popped.append(element) }
        } else {
          heap.insert(Tracked(Int.random(in: 0..<100, using: &random), counter))
        }
      }
      heap.removeAll { $0.value % 3 == 0 }
      #expect(heap.isValid)
      #expect(counter.alive == heap.count + popped.count)
    }
    #expect(counter.alive == popped.count)
    popped.removeAll()
    #expect(counter.alive == 0)
  }
}

private final class Counter {
  var alive = 0
}

private final class Tracked: Comparable {
  let value: Int
  let counter: Counter

  init(_ value: Int, _ counter: Counter) {
    self.value = value
    self.counter = counter
    counter.alive += 1
  }

  deinit { counter.alive -= 1 }

  static func < (lhs: Tracked, rhs: Tracked) -> Bool { lhs.value < rhs.value }
  static func == (lhs: Tracked, rhs: Tracked) -> Bool { lhs.value == rhs.value }
}
