import Foundation
import TempoTestHelpers
import Testing

@testable import TempoCore

/// The model test of ``ModelTests`` run on the timeline's pure state, with no lock, no storage
/// and no drive: this file drives ``TimelineState`` event by event, counting the problems its
/// events answer as the issues a timeline would report. The state must keep the rules alone.
@Suite struct StateModelTests {
  @Test func theStateAgreesWithTheModelOnRandomPrograms() {
    let environment = ProcessInfo.processInfo.environment
    let seeds: [UInt64]
    if let seed = environment["TEMPO_MODEL_SEED"].flatMap(UInt64.init) {
      seeds = [seed]
    } else {
      seeds = Array(0..<UInt64(environment["TEMPO_MODEL_PROGRAMS"].flatMap(Int.init) ?? 10_000))
    }
    for seed in seeds {
      var random = SplitMix(state: seed)
      let program = Program.random(using: &random)
      let expected = ModelTimeline().run(program)
      let outcomes = [
        ("keyed", StateTimeline<Int>().run(program)),
        ("unkeyed", StateTimeline<UnkeyedDate>().run(program)),
      ]
      for (kind, actual) in outcomes where actual != expected {
        Issue.record(
          """
          The timeline's state (\(kind) dates) disagrees with the model on the program of seed \
          \(seed) (replay with TEMPO_MODEL_SEED=\(seed)):
          \(program)
          model: \(expected)
          state: \(actual)
          """)
        return
      }
    }
  }

  @Test func aRepeatThatCannotMoveItsDateStopsAndSaysWhen() {
    // Dates that stop at 10: a repeat from 10 cannot move, so the state stops repeating and
    // answers the handle, which remembers the date it stopped after.
    var state = TimelineState<Int, Int>(now: 0) { min($0 + $1, 10) }
    var runs = 0
    let handle = TimelineState<Int, Int>.Handle(
      timeline: nil, interval: 5, repeats: true, start: 5
    ) { runs += 1 }
    #expect(state.schedule(handle, after: 5, sequence: state.takeSequence()) == nil)
    var stopped: [TimelineHandle?] = []
    while let taken = state.takeNext(dueBy: .everything) {
      taken.action()
      stopped.append(taken.stoppedRepeating)
    }
    #expect(runs == 2)
    #expect(stopped.map { $0 === handle } == [false, true])
    #expect(handle.stoppedAfter == 10)
    #expect(state.now == 10)
    #expect(state.pendingCount == 0)
  }

  @Test func aCancelledHandleHandsBackItsActionOnce() {
    var state = TimelineState<Int, Int>(now: 0) { $0 + $1 }
    let handle = TimelineState<Int, Int>.Handle(
      timeline: nil, interval: 0, repeats: false, start: 3
    ) {}
    _ = state.schedule(handle, after: 3, sequence: state.takeSequence())
    #expect(state.pendingCount == 1)
    #expect(state.cancel(handle) != nil)
    #expect(state.cancel(handle) == nil)
    #expect(state.pendingCount == 0)
    #expect(state.next() == nil)
  }
}

/// Runs a ``Program`` on a ``TimelineState`` alone, doing what the storage and the drive do
/// around each event: run the action taken, count the problems answered, finish each advance.
final class StateTimeline<Date: ModelDate> {
  typealias State = TimelineState<Date, Int>

  var state = State(now: Date(0)) { Date($0.value + $1) }
  var handles: [Int: State.Handle] = [:]
  var outcome = Outcome()

  func run(_ program: Program) -> Outcome {
    for op in program.ops {
      switch op {
      case .schedule(let id, let offset, let script):
        let date = Date(state.now.value + offset)
        let sequence = state.takeSequence()
        count(state.insert(.once(action(id, script)), after: date, sequence: sequence).problem)
      case .scheduleCancellable(let id, let offset, let interval, let script):
        schedule(id, offset: offset, interval: interval, script: script)
      case .cancel(let id):
        cancel(id)
      case .advanceBy(let stride):
        advance(by: stride)
      case .advanceTo(let instant):
        let (target, problem) = state.target(advancingTo: Date(instant))
        count(problem)
        drive(through: target)
      case .run(let limit):
        var ran = 0
        while ran < limit, let action = take(dueBy: .everything) {
          action()
          ran += 1
        }
        if ran == limit, state.pendingCount > 0 { outcome.issues += 1 }
      }
    }
    outcome.now = state.now.value
    outcome.pending = state.pendingCount
    outcome.nextDate = state.next()?.date.value
    return outcome
  }

  func schedule(_ id: Int, offset: Int, interval: Int?, script: [SubOp]) {
    let repeats = interval.map { $0 > 0 } ?? false
    if interval != nil, !repeats { outcome.issues += 1 }
    let date = Date(state.now.value + offset)
    let handle = State.Handle(
      timeline: nil, interval: interval ?? 0, repeats: repeats, start: date,
      action: action(id, script))
    handles[id] = handle
    let sequence = state.takeSequence()
    count(state.schedule(handle, after: date, sequence: sequence))
  }

  func cancel(_ id: Int) {
    guard let handle = handles[id] else { return }
    // The storage releases the closure after unlocking; here it simply goes.
    _ = state.cancel(handle)
  }

  func advance(by stride: Int) {
    let (target, problem) = state.target(advancingBy: stride)
    count(problem)
    drive(through: target)
  }

  func drive(through target: Date) {
    let bound = state.pending.bound(through: target)
    while let action = take(dueBy: bound) { action() }
    state.finish(at: target)
  }

  func take(dueBy bound: DueBound) -> (() -> Void)? {
    guard let taken = state.takeNext(dueBy: bound) else { return nil }
    if taken.stoppedRepeating != nil { outcome.issues += 1 }
    return taken.action
  }

  func count(_ problem: (some Any)?) {
    if problem != nil { outcome.issues += 1 }
  }

  func action(_ id: Int, _ script: [SubOp]) -> () -> Void {
    { [unowned self] in
      outcome.trace.append("#\(id)@\(state.now.value)")
      for sub in script {
        switch sub {
        case .schedule(let child, let offset):
          schedule(child, offset: offset, interval: nil, script: [])
        case .cancel(let other):
          cancel(other)
        case .cancelSelf:
          cancel(id)
        case .advance(let stride):
          advance(by: stride)
        }
      }
    }
  }
}
