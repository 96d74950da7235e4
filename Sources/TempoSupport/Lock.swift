/// A non-recursive mutual-exclusion lock.
///
/// Tempo keeps one of these per object, guarding all of that object's mutable state. Code that
/// holds it never calls user code, a subscriber or a continuation: it decides under the lock and
/// acts after unlocking.
///
/// A thread takes no lock while it holds another, except along the one order that
/// ``Rank`` writes down. With Tempo's internal checks on (`TEMPO_INTERNAL_CHECKS=1 swift test`,
/// as its CI runs), taking a lock out of that order stops the process at once, naming both
/// ranks, and ``heldByCurrentThread`` counts the locks a thread holds, so that tests can check
/// that nothing is released under one. Without them (every user's build) a lock is only its
/// mutex.
///
/// SPI rather than `package`, so that its methods inline into the modules that use it (see
/// ``Platform``).
///
/// ```swift
/// @_spi(TempoInternals) import TempoSupport
///
/// let lock = Lock()
/// let next = lock.withLock { counter += 1; return counter }
/// ```
@_spi(TempoInternals) public final class Lock: @unchecked Sendable {
  // Invariant: `mutex` lives as long as the lock and is only touched through its own locking
  // functions, which are thread-safe; `rank` is immutable.
  @usableFromInline let mutex: Platform.Mutex
  #if TEMPO_INTERNAL_CHECKS
    /// Where the lock stands in the order, and where it was made (named when the order breaks).
    @usableFromInline let place: LockOrder.Place
  #endif

  /// A lock of `rank`: ``Rank/unordered`` (taken only while no other is held, and holding no
  /// other while held) unless it is one of the few written into the order.
  @inlinable
  public init(rank: Rank = .unordered, madeIn fileID: StaticString = #fileID, line: UInt = #line) {
    mutex = Platform.Mutex()
    #if TEMPO_INTERNAL_CHECKS
      place = LockOrder.Place(rank: rank, fileID: fileID, line: line)
    #endif
  }

  @inlinable @inline(__always)
  public func lock() {
    #if TEMPO_INTERNAL_CHECKS
      LockOrder.willTake(place)
    #endif
    mutex.lock()
  }

  @inlinable @inline(__always)
  public func unlock() {
    mutex.unlock()
    #if TEMPO_INTERNAL_CHECKS
      LockOrder.didRelease(place)
    #endif
  }

  /// Runs `body` with the lock held. `body` must not call out to user code.
  @inlinable @inline(__always)
  public func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }

  #if TEMPO_INTERNAL_CHECKS
    /// How many locks the current thread holds (with the internal checks only).
    package static var heldByCurrentThread: Int { LockOrder.heldByCurrentThread }
  #endif
}

extension Lock {
  /// Where a lock stands in the one order in which a thread may hold several: a thread takes a
  /// ranked lock only while every lock it holds has a lower rank. Every other lock is
  /// ``unordered``: taken while holding none, and holding none while held.
  ///
  /// The order, outermost first, is the list of static ranks below; a lock that must be taken
  /// under another gets a rank here, with the reason, rather than an exception at its use.
  /// (Computed, not stored: `Lock()` evaluates its default rank in every build, and a stored
  /// static would cost a once-check at every lock made.)
  ///
  /// ```swift
  /// let lock = Lock(rank: .sharedTimeline)
  /// ```
  public struct Rank: Comparable, Sendable, CustomStringConvertible {
    @usableFromInline let value: Int
    let name: StaticString

    init(_ value: Int, _ name: StaticString) {
      self.value = value
      self.name = name
    }

    /// A lone timeline's lock (`Timeline`), under which a member of a shared timeline takes
    /// its group's sequence numbers and asks to be held: on the path of every action, so kept
    /// in one step.
    public static var timeline: Rank { Rank(10, "timeline") }
    /// A shared timeline's lock (`SharedTimeline`).
    public static var sharedTimeline: Rank { Rank(20, "sharedTimeline") }
    /// The registry of test executors (`TestRegistry`): which executors are open, whose each
    /// task is, and the lineage a clock made outside any task watches. A job leaving for
    /// outside any executor, and an adoption, are counted in the executor in the same step.
    public static var testRegistry: Rank { Rank(30, "testRegistry") }
    /// A test executor's lock (`TestExecutor`).
    public static var testExecutor: Rank { Rank(40, "testExecutor") }
    /// A lock taken while holding no other, and under which no other is taken: most locks.
    public static var unordered: Rank { Rank(.max, "unordered") }

    /// Whether `lhs` comes before `rhs` in the order (is taken outside it).
    public static func < (lhs: Rank, rhs: Rank) -> Bool { lhs.value < rhs.value }
    /// Whether two ranks are the same place in the order.
    public static func == (lhs: Rank, rhs: Rank) -> Bool { lhs.value == rhs.value }
    /// The rank's name, as the checker's message writes it: `timeline`.
    public var description: String { "\(name)" }
  }
}
