#if TEMPO_INTERNAL_CHECKS
  /// The checker of ``Lock/Rank``'s order, with Tempo's internal checks on: the locks the
  /// current thread holds, innermost last, in memory of the thread's own.
  @_spi(TempoInternals) public enum LockOrder {
    /// A lock's rank and where it was made, for the message when the order breaks.
    public struct Place: Sendable {
      let rank: Lock.Rank
      let fileID: StaticString
      let line: UInt

      /// The place of a lock of `rank` made at `fileID`:`line`.
      public init(rank: Lock.Rank, fileID: StaticString, line: UInt) {
        self.rank = rank
        self.fileID = fileID
        self.line = line
      }

      var description: String { "'\(rank)' (the lock made at \(fileID):\(line))" }
    }

    /// How many locks a thread's record holds; more held at once is a bug of its own.
    private static let capacity = 15

    /// Per thread: a count, then up to ``capacity`` places, innermost last.
    private static let held = Platform.ThreadSpecific(freesValuesAtThreadExit: true)

    private typealias Record = UnsafeMutablePointer<Place>

    /// The current thread's count and record, made at its first lock.
    private static var current: (count: UnsafeMutablePointer<Int>, places: Record) {
      let memory: UnsafeMutableRawPointer
      if let existing = held.value {
        memory = existing
      } else {
        memory = Platform.allocateForThread(
          byteCount: MemoryLayout<Place>.stride * (capacity + 1))
        memory.bindMemory(to: Int.self, capacity: 1).initialize(to: 0)
        held.value = memory
      }
      // The count in the first slot, the places after it; a `Place` is trivial, so the memory
      // may be freed without deinitializing it.
      return (
        memory.assumingMemoryBound(to: Int.self),
        (memory + MemoryLayout<Place>.stride).assumingMemoryBound(to: Place.self)
      )
    }

    static var heldByCurrentThread: Int { current.count.pointee }

    /// Checks that the current thread may take the lock of `place` now, and records it.
    public static func willTake(_ place: Place) {
      let (count, places) = current
      if count.pointee > 0 {
        let inner = places[count.pointee - 1]
        precondition(
          place.rank != .unordered && place.rank > inner.rank,
          """
          Tempo's lock order: a lock of rank \(place.description) taken while the thread \
          holds one of rank \(inner.description). Lock.Rank lists the one order in which locks \
          may nest; an unordered lock is taken alone.
          """)
      }
      precondition(count.pointee < capacity, "Tempo's lock order: \(capacity) locks held at once")
      (places + count.pointee).initialize(to: place)
      count.pointee += 1
    }

    /// Forgets the innermost record of a lock of `place`'s rank.
    public static func didRelease(_ place: Place) {
      let (count, places) = current
      var at = count.pointee - 1
      while at >= 0, places[at].rank != place.rank { at -= 1 }
      precondition(
        at >= 0, "Tempo's lock order: a lock of rank \(place.description) released, not held")
      while at < count.pointee - 1 {
        places[at] = places[at + 1]
        at += 1
      }
      count.pointee -= 1
    }
  }
#endif
