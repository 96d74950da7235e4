import Foundation
import Testing

@testable import TempoSchedulers

/// The operators' state machines on their own: events in, actions out, no lock and no threads.
@Suite struct PaceStateMachineTests {
  typealias Machine = PaceStateMachine<Int, Never>

  let downstream = AnySubscriber<Int, Never>(
    receiveSubscription: { _ in }, receiveValue: { _ in .none }, receiveCompletion: { _ in })
  let promise: Machine.Promise = { _ in }

  static func describe(_ action: Machine.Action) -> String {
    switch action {
    case .deliver(let value, _): "deliver \(value)"
    case .complete(let completion, _, let promise):
      "complete \(completion)" + (promise == nil ? "" : " releasing the promise")
    case .askForMore: "ask for more"
    case .none: "none"
    }
  }

  @Test func aValueWaitsForDemandThenTheIntervalAndDemandAskForTheNext() {
    var machine = Machine(downstream: downstream)
    var trace: [String] = []
    func next() { trace.append(Self.describe(machine.next())) }

    let replaced = machine.receive(1, promise: promise)
    next()  // no demand yet
    machine.request(.max(2))
    next()
    next()  // one delivery at a time
    let startsInterval = machine.didDeliver(demanding: .none)
    next()  // the interval has not elapsed
    machine.intervalElapsed()
    next()
    next()  // asked once

    #expect(replaced == nil)
    #expect(startsInterval)
    #expect(trace == ["none", "deliver 1", "none", "none", "ask for more", "none"])
  }

  @Test func theCompletionWaitsBehindAValueWithoutDemand() {
    var machine = Machine(downstream: downstream)
    var trace: [String] = []
    func next() { trace.append(Self.describe(machine.next())) }

    _ = machine.receive(1, promise: promise)
    machine.receive(completion: .finished)
    next()  // the value waits, so the completion waits too
    machine.request(.max(1))
    next()
    _ = machine.didDeliver(demanding: .none)
    next()
    next()  // finished

    #expect(
      trace == ["none", "deliver 1", "complete finished releasing the promise", "none"])
  }

  @Test func cancellingHandsBackWhatTheStateHeld() {
    var machine = Machine(downstream: downstream)
    _ = machine.receive(7, promise: promise)
    let cancelled = machine.cancel()
    let again = machine.cancel()
    let startsInterval = machine.didDeliver(demanding: .max(1))

    #expect(cancelled.value == 7)
    #expect(cancelled.promise != nil)
    #expect(cancelled.downstream != nil)
    #expect(again.downstream == nil, "nothing is handed back twice")
    #expect(!startsInterval, "no interval after cancellation")
  }

  @Test func aValueSentWithoutBeingAskedHandsBackThePromiseItReplaces() {
    var machine = Machine(downstream: downstream)
    _ = machine.receive(1, promise: promise)
    let replaced = machine.receive(2, promise: promise)
    #expect(replaced != nil)
  }
}

#if !canImport(Combine)
  @Suite struct MergeStateMachineTests {
    typealias Machine = MergeStateMachine<Int, TestFailure>
    struct TestFailure: Error {}

    final class Upstream: Subscription {
      let combineIdentifier = CombineIdentifier()
      func request(_ demand: Subscribers.Demand) {}
      func cancel() {}
    }

    let downstream = AnySubscriber<Int, TestFailure>(
      receiveSubscription: { _ in }, receiveValue: { _ in .none }, receiveCompletion: { _ in })

    static func describe(_ action: Machine.Action) -> String {
      switch action {
      case .deliver(let value, _): "deliver \(value)"
      case .complete(.finished, _): "finish"
      case .complete(.failure, _): "fail"
      case .none: "none"
      }
    }

    @Test func elementsBeyondTheDemandWaitInOrderAndTheMergeFinishesAfterThem() {
      var machine = Machine(downstream: downstream)
      var trace: [String] = []
      func next() { trace.append(Self.describe(machine.next())) }

      let demandForA = machine.attach(Upstream(), to: .a)
      let demandForB = machine.attach(Upstream(), to: .b)
      machine.receive(1)
      machine.receive(2)
      _ = machine.receive(completion: .finished, from: .a)
      _ = machine.receive(completion: .finished, from: .b)
      next()  // no demand
      let askedOfSides = machine.request(.max(1))
      next()
      let askedAfterDelivery = machine.didDeliver(demanding: .max(1))
      next()
      _ = machine.didDeliver(demanding: .none)
      next()
      let late = machine.attach(Upstream(), to: .a)

      #expect(demandForA == Subscribers.Demand.none)
      #expect(demandForB == Subscribers.Demand.none)
      #expect(askedOfSides.compactMap { $0 }.isEmpty, "both sides had ended")
      #expect(askedAfterDelivery.compactMap { $0 }.isEmpty)
      #expect(trace == ["none", "deliver 1", "deliver 2", "finish"])
      #expect(late == nil, "a subscription that comes after the end is cancelled")
    }

    @Test func demandGoesToBothSides() {
      var machine = Machine(downstream: downstream)
      _ = machine.attach(Upstream(), to: .a)
      _ = machine.attach(Upstream(), to: .b)
      let asked = machine.request(.max(3))
      #expect(asked.compactMap { $0 }.count == 2)
    }

    @Test func aFailureHandsBackTheOtherSideToCancel() {
      var machine = Machine(downstream: downstream)
      let b = Upstream()
      _ = machine.attach(Upstream(), to: .a)
      _ = machine.attach(b, to: .b)
      let ended = machine.receive(completion: .failure(TestFailure()), from: .a)
      let action = Self.describe(machine.next())

      #expect(ended.toCancel.compactMap { $0?.combineIdentifier } == [b.combineIdentifier])
      #expect(ended.released != nil, "a's own subscription, to release after unlocking")
      #expect(action == "fail")
    }

    @Test func cancellingHandsBackTheBufferAndTheUpstreams() {
      var machine = Machine(downstream: downstream)
      _ = machine.attach(Upstream(), to: .a)
      machine.receive(1)
      machine.receive(2)
      let cancelled = machine.cancel()
      machine.receive(3)
      let again = machine.cancel()

      #expect(cancelled.buffer == [1, 2])
      #expect(cancelled.upstreams.compactMap { $0 }.count == 1)
      #expect(cancelled.downstream != nil)
      #expect(again.buffer.isEmpty, "nothing is kept after cancellation")
    }
  }
#endif
