import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoCore

/// Cancelled entries stay in the heap until they are reached or compacted away: these tests pin
/// down that neither changes what runs, or in what order.
@Suite struct CancellationTests {
  typealias State = TimelineState<Int, Int>

  let here = TempoSupport.SourceLocation(
    fileID: #fileID, filePath: #filePath, line: #line, column: #column)

  /// A new state. (The state is noncopyable: a test makes it, then schedules into it.)
  func makeState() -> State { State(now: 0) { $0 + $1 } }

  /// A handle for each of `dates` scheduled in order into `state`, each logging its index.
  func schedule(_ dates: [Int], into state: inout State, log: Log<Int>) -> [State.Handle] {
    var handles: [State.Handle] = []
    for (index, date) in dates.enumerated() {
      let handle = State.Handle(timeline: nil, interval: 0, repeats: false, start: date) {
        log.append(index)
      }
      #expect(state.schedule(handle, after: date, sequence: state.takeSequence()) == nil)
      handles.append(handle)
    }
    return handles
  }

  func runAll(_ state: inout State) {
    while let taken = state.takeNext(dueBy: .everything) { taken.action() }
  }

  @Test func cancelledTiesLeaveTheOthersInSchedulingOrder() {
    let log = Log<Int>()
    var state = makeState()
    let handles = schedule(Array(repeating: 5, count: 10), into: &state, log: log)
    for index in stride(from: 0, to: 10, by: 2) { #expect(state.cancel(handles[index]) != nil) }
    #expect(state.pendingCount == 5)
    runAll(&state)
    #expect(log.values == [1, 3, 5, 7, 9])
    #expect(state.now == 5)
  }

  @Test(arguments: [1, 7, 2026])
  func compactingKeepsTheOrderOfWhatIsLeft(seed: UInt64) {
    // 200 entries on 20 dates (many ties); cancelling 150 of them compacts the heap (more than
    // 32 cancelled, and more than half), and the rest still run in (date, sequence) order.
    var random = SplitMix(state: seed)
    let dates = (0..<200).map { _ in Int.random(in: 1...20, using: &random) }
    let log = Log<Int>()
    var state = makeState()
    let handles = schedule(dates, into: &state, log: log)
    var cancelled = Set<Int>()
    while cancelled.count < 150 { cancelled.insert(Int.random(in: 0..<200, using: &random)) }
    for index in cancelled { _ = state.cancel(handles[index]) }
    #expect(state.pending.count < 200, "the heap was compacted")
    #expect(state.pendingCount == 50)
    runAll(&state)
    let expected = (0..<200).filter { !cancelled.contains($0) }.sorted {
      (dates[$0], $0) < (dates[$1], $1)
    }
    #expect(log.values == expected)
    #expect(state.pendingCount == 0)
  }

  @Test func anActionCancelsWorkDueAtItsOwnDateAndLater() {
    let timeline = Timeline<Int, Int>(now: 0, name: "Test") { $0 + $1 }
    let log = Log<String>()
    var handles: [Timeline<Int, Int>.Handle] = []
    handles.append(
      timeline.schedule(after: 1, interval: nil, at: here) {
        log.append("first")
        handles[1].cancel()
        handles[2].cancel()
      })
    handles.append(timeline.schedule(after: 1, interval: nil, at: here) { log.append("tie") })
    handles.append(timeline.schedule(after: 2, interval: nil, at: here) { log.append("later") })
    handles.append(timeline.schedule(after: 2, interval: nil, at: here) { log.append("kept") })
    timeline.advance(by: 5, at: here)
    #expect(log.values == ["first", "kept"])
    #expect(timeline.pendingCount == 0)
  }

  @Test func aRepeatingActionCancelledWhileItRunsDoesNotRepeat() {
    let timeline = Timeline<Int, Int>(now: 0, name: "Test") { $0 + $1 }
    let log = Log<Int>()
    var handle: Timeline<Int, Int>.Handle?
    handle = timeline.schedule(after: 1, interval: 2, at: here) {
      log.append(timeline.now)
      if log.values.count == 3 { handle?.cancel() }
    }
    timeline.advance(by: 20, at: here)
    #expect(log.values == [1, 3, 5])
    #expect(timeline.pendingCount == 0)
  }

  @Test func aHundredThousandTimersHalfCancelledRunTheOtherHalfInOrder() {
    // Every other timer is cancelled; the other half runs in date order, the pending count is
    // right, and the heap is left empty. (The million-entry case is below, on the heap alone.)
    let count = 100_000
    var state = State(now: 0) { $0 + $1 }
    var ran = 0
    var last = Int.min
    var inOrder = true
    var handles: [State.Handle] = []
    handles.reserveCapacity(count)
    for index in 0..<count {
      // Dates in a scrambled but deterministic order.
      let date = (index &* 7_919) % count + 1
      let handle = State.Handle(timeline: nil, interval: 0, repeats: false, start: date) {
        ran += 1
      }
      _ = state.schedule(handle, after: date, sequence: state.takeSequence())
      handles.append(handle)
    }
    for index in stride(from: 0, to: count, by: 2) { _ = state.cancel(handles[index]) }
    #expect(state.pendingCount == count / 2)
    while let taken = state.takeNext(dueBy: .everything) {
      if state.now < last { inOrder = false }
      last = state.now
      taken.action()
    }
    #expect(ran == count / 2)
    #expect(inOrder)
    #expect(state.pendingCount == 0)
    #expect(state.pending.count == 0)
  }

  @Test func aMillionEntryHeapHalfCancelledCompactsAndKeepsItsOrder() {
    // A million entries on keyed pending work, every other one belonging to a cancelled handle:
    // compacting drops exactly those, and the rest come out in (date, sequence) order.
    let count = 1_000_000
    let work = KeyedPendingWork<Int>()
    let live = TimelineHandle(repeats: false) {}
    let cancelled = TimelineHandle(repeats: false) {}
    cancelled.action = nil
    for index in 0..<count {
      let date = (index &* 7_919) % 1_000 + 1
      work.insert(.handle(index % 2 == 0 ? cancelled : live), at: date, sequence: UInt64(index))
    }
    work.removeCancelled()
    #expect(work.count == count / 2)
    var date = 0
    var previous: (date: Int, sequence: UInt64) = (0, 0)
    var inOrder = true
    var taken = 0
    while let (job, sequence) = work.removeFirst(dueBy: .everything, date: &date) {
      if job.isCancelled || sequence % 2 == 0 || (date, sequence) < previous { inOrder = false }
      previous = (date, sequence)
      taken += 1
    }
    #expect(taken == count / 2)
    #expect(inOrder)
  }

  @Test func releasingEverythingHandsBackOnlyTheLiveActions() {
    let log = Log<Int>()
    var state = makeState()
    let handles = schedule([3, 1, 2, 5, 4], into: &state, log: log)
    _ = state.cancel(handles[1])
    _ = state.cancel(handles[3])
    let released = state.releaseAll()
    #expect(released.count == 3)
    #expect(handles.allSatisfy { $0.action == nil })
    released.forEach { $0() }
    #expect(Set(log.values) == [0, 2, 4])
  }
}
