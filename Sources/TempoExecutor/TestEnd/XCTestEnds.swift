import Synchronization
package import TempoCore
@_spi(TempoInternals) package import TempoSupport

/// The end of every XCTest test, seen with no scope: what a test that holds its clocks and
/// schedulers as properties left behind is found at its end, and its executors close, so that
/// nothing of it is reported into the next test.
///
/// TempoTestSupport's XCTest observer, registered when a test process loads it, calls
/// ``testWillStart()`` as each test starts, and ``testEnded(_:)`` from a teardown block it adds
/// to the test, which runs inside the test, before `tearDown`, so that what it reports counts.
/// XCTest runs one test at a time in a process, so the test running is the one started last.
///
/// Which time sources are the test's: every test clock, test scheduler and test timeline made
/// in a process where the observer is registered is remembered weakly, with how many items had
/// been scheduled on it when the last test ended. A source scheduled on since then was used by
/// the test that is ending (a property clock made when XCTest made the test's instance, before
/// any test started, included); what it still has pending is that test's leftover work.
/// Sources no test touched, and work an earlier test left and was reported for, say nothing.
/// Which executors are the test's: the ones clocks opened while it ran.
@available(TempoTestExecutor 1.0, *)
package enum XCTestEnds {
  private struct WatchedSource {
    weak var source: (any LeftoverWorkSource)?
    /// `scheduledCount` when the last test ended.
    var mark: UInt64
  }

  private struct State {
    /// The test running now, counted from 1; 0 before the first.
    var test: UInt64 = 0
    var isRunning = false
    var sources: [WatchedSource] = []
    /// Where `sources` is pruned of dead entries next.
    var pruneAt = 64
    /// The executors clocks opened while the current test ran, each with a lease taken here,
    /// so that it stays open until the test's end looks at it (a clock made in the test goes
    /// away as the test method returns, before its teardown).
    var executors: [TestExecutor] = []
  }

  private static let state = LockedBox(State())
  /// Whether XCTest's observer is registered in this process; never false again once true.
  /// Read without the lock, so that a source made where XCTest does not run (a Swift Testing
  /// test) takes none.
  private static let isObserving = Atomic<Bool>(false)

  /// XCTest's observer is registered in this process: sources made from now on are watched.
  package static func startObserving() {
    isObserving.store(true, ordering: .releasing)
  }

  /// A test starts: what happens from now on is its.
  package static func testWillStart() {
    let dropped = state.withLock { state -> [TestExecutor] in
      state.test += 1
      state.isRunning = true
      defer { state.executors = [] }
      return state.executors
    }
    // Those of a test whose end was not seen: their leases are let go.
    for executor in dropped { executor.releaseLease() }
  }

  /// Watches `source`, made now, if XCTest's observer is registered.
  package static func watch(_ source: any LeftoverWorkSource) {
    guard isObserving.load(ordering: .acquiring) else { return }
    state.withLock { state in
      if state.sources.count >= state.pruneAt {
        state.sources.removeAll { $0.source == nil }
        state.pruneAt = max(64, state.sources.count * 2)
      }
      state.sources.append(WatchedSource(source: source, mark: 0))
    }
  }

  /// A clock opened `executor` for a task of the test running now, if an XCTest test runs.
  package static func opened(_ executor: TestExecutor) {
    guard isObserving.load(ordering: .acquiring) else { return }
    let isTheTests = state.withLock { state in state.isRunning }
    // The lease is taken outside the registry of tests (an executor's lock is its own), and
    // let go if the test ended meanwhile.
    guard isTheTests, executor.retainLease() else { return }
    let kept = state.withLock { state -> Bool in
      guard state.isRunning else { return false }
      state.executors.append(executor)
      return true
    }
    if !kept { executor.releaseLease() }
  }

  /// Ends the sleeps still pending on `sources`, and waits for the test's work to go quiet on
  /// `executors`, those the test opened; answers the sleeps whose task has not finished. With
  /// no executor (no clock of the test was advanced from a task), the tasks are let run by the
  /// probe rounds of a runtime without the executor hooks (``Settling``).
  private static func endSleeps(
    of sources: [any LeftoverWorkSource], on executors: [TestExecutor],
    at location: SourceLocation
  ) async -> [String] {
    guard let ended = EndedSleeps.end(of: sources) else { return [] }
    if executors.isEmpty { await Settling.settleWithoutAnExecutor() }
    for executor in executors { await executor.waitForQuiet(at: location) }
    return ended.unfinished()
  }

  /// What the end of an XCTest test found: the pending work of the sources it used, one
  /// description each, and the first line a source was made on, to report at.
  package struct Leftover: Sendable {
    package let pending: [String]
    package let location: SourceLocation?
    /// Whether, with nothing pending, a task the test started has not finished.
    package var tasksAreRunning = false
    /// The sleeps ended with the test whose task did not finish (see ``EndedSleeps``).
    package var unfinished: [String] = []
  }

  /// The test running now ends: its executors settle and end their background work; the
  /// pending work of the sources it used is listed, then each of their sleeps still pending
  /// ends (see ``EndedSleeps``) and the work goes quiet again; the executors close. Answers
  /// the pending work, one description each, or, if none has any, whether a task the test
  /// started has not finished; nil if neither. Each source is looked at as it is now, and not
  /// again for this work at a later test's end.
  package static func testEnded(at location: SourceLocation) async -> Leftover? {
    let executors = state.withLock { state -> [TestExecutor] in
      state.isRunning = false
      defer { state.executors = [] }
      return state.executors
    }
    let open = executors.filter(\.isOpen)
    for executor in open { _ = await executor.endBackgroundWork(at: location) }
    let watched = state.withLock { state in
      state.sources.compactMap { entry in entry.source.map { ($0, entry.mark) } }
    }
    var pending: [String] = []
    var firstLine: SourceLocation?
    var marks: [(ObjectIdentifier, UInt64)] = []
    var used: [any LeftoverWorkSource] = []
    for (source, mark) in watched {
      let count = source.scheduledCount
      guard count != mark else { continue }
      marks.append((ObjectIdentifier(source), count))
      guard let description = source.leftoverDescription else { continue }
      pending.append(description)
      used.append(source)
      if firstLine == nil { firstLine = source.creationLine }
    }
    let updated = Dictionary(marks, uniquingKeysWith: { $1 })
    state.withLock { state in
      for index in state.sources.indices {
        guard let source = state.sources[index].source,
          let mark = updated[ObjectIdentifier(source)]
        else { continue }
        state.sources[index].mark = mark
      }
    }
    let unfinished = await endSleeps(of: used, on: open, at: location)
    // The task that asks (the teardown block's) is no task the test left running.
    let asking = TestExecutor.currentTaskPointer
    var tasksAreRunning = false
    for executor in executors {
      if executor.isOpen {
        tasksAreRunning = tasksAreRunning || executor.hasUnfinishedTasks(besides: asking)
        executor.close()
      }
      executor.releaseLease()
    }
    withExtendedLifetime(watched) {}
    guard pending.isEmpty else {
      return Leftover(pending: pending, location: firstLine, unfinished: unfinished)
    }
    return tasksAreRunning
      ? Leftover(pending: [], location: nil, tasksAreRunning: true) : nil
  }
}
