import Dispatch
import Synchronization
import TempoRuntimeABI

/// The blocks Tempo has started on the main queue so far, of every test: pump blocks and
/// main-actor jobs. A count that moves means the main queue moves, whoever's work it runs.
///
/// ```swift
/// let before = MainQueueActivity.blocksStarted
/// // … a quarter of a second later:
/// let moved = MainQueueActivity.blocksStarted != before
/// ```
@available(TempoTestExecutor 1.0, *)
enum MainQueueActivity {
  private static let started = Atomic<Int>(0)
  /// The thread that started the latest of them (``tempo_current_thread``): the one that
  /// drains the main queue (the main thread, or after `dispatch_main()` on Linux, the worker
  /// that drains it), 0 before the first.
  private static let drainer = Atomic<UInt64>(0)
  /// The address of the executor whose work the main queue runs now (a main-actor job of its
  /// test, or its pump block), ``noTest`` for a main-actor job of no test, 0 for none. An
  /// identity only, never read through.
  private static let runningFor = Atomic<UInt>(0)

  /// What ``enterWork(_:)`` records for a main-actor job that came through Tempo for no test: a
  /// test that does not use Tempo, beside one that does. No executor's address. (Computed, not
  /// a stored constant, whose accessor a debug build calls through `swift_once` at every
  /// main-actor job.)
  static var noTest: UInt { 1 }

  /// Queues `block` on the main queue as a plain block. (`DispatchQueue.main.async { … }`
  /// would make the closure `@MainActor`, and Swift checks such a closure's isolation when a
  /// plain block calls it: through the main executor's `checkIsolated`, at every main-actor
  /// job of a test, for a block Tempo's own bookkeeping runs on the main queue by design.)
  ///
  /// Every argument is given, and the queue is read once: a debug build evaluates the default
  /// arguments at each call, the flags as an array, and `DispatchQueue.main` makes a new
  /// object at each read on Linux: two fifths of this function's cost, at every main-actor
  /// job.
  static func async(_ block: @escaping @Sendable () -> Void) {
    mainQueue.async(
      group: nil, qos: .unspecified, flags: DispatchWorkItemFlags(rawValue: 0), execute: block)
  }

  private static let mainQueue = DispatchQueue.main

  /// A block of Tempo's starts on the main queue, on the current thread.
  static func blockStarted() {
    started.add(1, ordering: .relaxed)
    drainer.store(tempo_current_thread(), ordering: .relaxed)
  }

  /// Whether the thread that drains the main queue could run now: it runs, or is ready to run
  /// and waits for a core (a busy or starved process), rather than waiting in the kernel (a
  /// blocked main thread: a semaphore, a lock, a synchronous wait, a nested run loop with
  /// nothing to do). False when that cannot be read: the watch then counts its looks as it
  /// always did. Read from the operating system at each look of the main-queue watch, never
  /// under a lock.
  static var drainerRuns: Bool {
    tempo_thread_runs(drainer.load(ordering: .relaxed)) == 1
  }

  /// How many have started so far.
  static var blocksStarted: Int { started.load(ordering: .relaxed) }

  /// What ``enterWork(_:)`` records for `executor`: its address. (Through the standard
  /// library's transparent conversions, which a debug build inlines too: this is on the path of
  /// every main-actor job of a test.)
  @inline(__always)
  static func workID(_ executor: Unmanaged<TestExecutor>) -> UInt {
    UInt(bitPattern: executor.toOpaque())
  }

  /// The main queue starts running work of the executor `id` names (``workID(_:)``, or
  /// ``noTest``); answers what it ran before, for ``leaveWork(to:)``. Called on the main queue
  /// only.
  static func enterWork(_ id: UInt) -> UInt { runningFor.exchange(id, ordering: .relaxed) }

  /// The work ``enterWork(_:)`` began has ended.
  static func leaveWork(to previous: UInt) { runningFor.store(previous, ordering: .relaxed) }

  /// Whether the main queue runs work of a test other than `executor`'s now: a main-actor job
  /// that came through Tempo for another executor, or for no test, or another executor's pump
  /// block.
  static func runsWork(ofAnotherTestThan executor: TestExecutor) -> Bool {
    let running = runningFor.load(ordering: .relaxed)
    return running != 0 && running != workID(Unmanaged.passUnretained(executor))
  }
}

/// What the hang watch follows on the main queue: a test executor whose pumps run there (a
/// stand-in in Tempo's own tests of the watch).
///
/// ```swift
/// HangWatch.shared.watchMainQueue(of: executor)   // a `TestExecutor`
/// ```
@available(TempoTestExecutor 1.0, *)
protocol MainQueueWatched: AnyObject, Sendable {
  /// What the watch reads of it at each look.
  var mainQueueObservation: MainQueueObservation { get }
  /// The watch found its pump blocks held on the main queue, none started since the
  /// `started`-th, for as many looks as it takes to report a stall.
  func mainQueueStalled(since started: Int)
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor: MainQueueWatched {}

/// What the hang watch sees, at one look, of a test whose pumps run on the main queue.
package struct MainQueueObservation: Equatable, Sendable {
  /// A task of the test is suspended until its work is quiet (an advance waits).
  package var isWaitedFor: Bool
  /// Pump blocks of the test queued on the main queue that have not started.
  package var pumpBlocksQueued: Int
  /// Pump blocks of the test that have started on the main queue so far: any change means the
  /// main queue moves.
  package var pumpBlocksStarted: Int
  /// Tempo's blocks of every test started on the main queue so far (``MainQueueActivity``):
  /// any change means the main queue moves, if only through other tests' work queued ahead
  /// of this test's (a whole suite's `@MainActor` tests share the one queue).
  package var blocksStartedByAnyTest: Int
  /// The main thread runs work of another test now (a main-actor job or a pump block), or a
  /// main-actor job of a test that does not use Tempo: if it stays there, that test blocks the
  /// main queue, and a watch of its own reports it, if it has one. This test waits longer
  /// before it reports the stall as its own (``Guesses/mainQueueLooksBehindAnotherTest``). (A
  /// long synchronous `@MainActor` test beside it would otherwise be reported as this test's
  /// stall after a second.)
  package var isBehindAnotherTest: Bool

  package init(
    isWaitedFor: Bool, pumpBlocksQueued: Int, pumpBlocksStarted: Int,
    blocksStartedByAnyTest: Int = 0, isBehindAnotherTest: Bool = false
  ) {
    self.isWaitedFor = isWaitedFor
    self.pumpBlocksQueued = pumpBlocksQueued
    self.pumpBlocksStarted = pumpBlocksStarted
    self.blocksStartedByAnyTest = blocksStartedByAnyTest
    self.isBehindAnotherTest = isBehindAnotherTest
  }

  /// Whether, as seen now, the main queue holds an advance up: the test waits for quiet, and a
  /// pump block that would run its work waits on the main queue.
  var holdsWaitUp: Bool { isWaitedFor && pumpBlocksQueued > 0 }
}

/// The rules of the main-queue watch, a pure value with no clock, lock or thread: fed what was
/// seen of each test at each look, it answers the tests whose pump blocks have waited on the
/// main queue for `looksToFire` looks in a row, with none started and no block of another test
/// started either, while the test waited for quiet. The main queue runs its blocks in order, so
/// a pump block that does not start means nothing behind it runs either; if nothing ahead of it
/// starts, the main thread is blocked, or not draining the queue. (Other tests' blocks ahead
/// of it that keep starting make a busy queue, not a stalled one. A main-actor job or pump block
/// of another test that blocks the main thread is that test's stall, which its own watch
/// reports: a test stuck behind it waits ``Guesses/mainQueueLooksBehindAnotherTest`` times as
/// many looks before it reports the stall too, so that a parallel suite blames the test that
/// blocked, and nobody waits for ever. So does a test behind a long main-actor job of a test
/// that does not use Tempo.) Only looks that find the thread draining the main queue waiting
/// in the kernel count toward `looksToFire`: a thread that could run is starved or busy, not
/// blocked, and its looks count toward ``Guesses/mainQueueLooksWhileItsThreadRuns`` times as
/// many.
///
/// ```swift
/// var state = MainQueueWatchState<String>(looksToFire: 4)
/// state.add(key, "test", first: seen)
/// state.record([(key, seen)], afterGap: false)   // [] until the fourth look alike
/// ```
package struct MainQueueWatchState<Payload> {
  private struct Entry {
    let payload: Payload
    let looksToFire: Int
    /// Looks in a row the main queue held the wait up, unchanged, whatever its thread did.
    var count: StallCount<MainQueueObservation>
    /// How many of the latest of those looks, in a row, found the main queue's thread waiting.
    var looksItsThreadWaited = 0
  }

  /// How many looks in a row the main queue must hold an advance up, unchanged, to be reported.
  package let looksToFire: Int
  private var entries: [ObjectIdentifier: Entry] = [:]

  package init(looksToFire: Int) {
    self.looksToFire = looksToFire
  }

  package var isEmpty: Bool { entries.isEmpty }

  /// Starts watching a test, as `first` saw it; a test watched already keeps its count.
  /// `looksToFire`, if given, replaces ``looksToFire`` for this test (Tempo's own tests make
  /// the main queue stall, and keep it short).
  package mutating func add(
    _ key: ObjectIdentifier, _ payload: Payload, first: MainQueueObservation,
    looksToFire: Int? = nil
  ) {
    guard entries[key] == nil else { return }
    let looks = looksToFire ?? self.looksToFire
    entries[key] = Entry(
      payload: payload, looksToFire: looks, count: StallCount(first: first))
  }

  /// The tests watched now, to observe outside the lock.
  package var watched: [(key: ObjectIdentifier, payload: Payload)] {
    entries.map { ($0.key, $0.value.payload) }
  }

  /// Whether the test under `key` is watched.
  package func isWatching(_ key: ObjectIdentifier) -> Bool { entries[key] != nil }

  /// Stops watching a test (it has ended); answers its payload, for the caller to release
  /// after unlocking.
  package mutating func remove(_ key: ObjectIdentifier) -> Payload? {
    entries.removeValue(forKey: key)?.payload
  }

  /// Records one look. A test no longer waited for is dropped (it is watched again when an
  /// advance waits next). A test stalls for a look when the main queue holds its wait up and
  /// nothing changed since the previous look; after a gap (the watch itself was held up) none
  /// does. Answers the tests that stalled for ``looksToFire`` looks in a row with the main
  /// queue's thread waiting, or for ``Guesses/mainQueueLooksWhileItsThreadRuns`` times as many
  /// whatever it did, with the count of pump blocks started that they stalled at; they are no
  /// longer watched. `threadRuns` is what the look read of the main queue's one thread
  /// (``MainQueueActivity/drainerRuns``): it could run (busy, or starved of a core), not
  /// blocked.
  package mutating func record(
    _ observations: [(key: ObjectIdentifier, observation: MainQueueObservation)], afterGap: Bool,
    threadRuns: Bool = false
  ) -> [(payload: Payload, pumpBlocksStarted: Int)] {
    var fired: [(payload: Payload, pumpBlocksStarted: Int)] = []
    for (key, observation) in observations {
      guard var entry = entries[key] else { continue }
      guard observation.isWaitedFor else {
        entries[key] = nil
        continue
      }
      entry.count.look(observation, holdsTestUp: observation.holdsWaitUp, afterGap: afterGap)
      let stalled = entry.count.stalledLooks
      entry.looksItsThreadWaited = stalled == 0 || threadRuns ? 0 : entry.looksItsThreadWaited + 1
      let looksToFire =
        observation.isBehindAnotherTest
        ? entry.looksToFire * Guesses.mainQueueLooksBehindAnotherTest : entry.looksToFire
      if entry.looksItsThreadWaited >= looksToFire
        || stalled >= looksToFire * Guesses.mainQueueLooksWhileItsThreadRuns
      {
        entries[key] = nil
        fired.append((entry.payload, observation.pumpBlocksStarted))
      } else {
        entries[key] = entry
      }
    }
    return fired
  }
}
