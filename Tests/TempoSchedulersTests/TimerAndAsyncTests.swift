import Foundation
import TempoTestHelpers
import Testing

@testable import TempoSchedulers

@Suite struct TimerPublisherTests {
  @Test func ticksOneIntervalAfterConnectingAndStopsWhenTheConnectionIsCancelled() {
    let scheduler = RunLoop.test
    let timer = scheduler.timerPublisher(every: 2)
    var ticks: [TimeInterval] = []
    let subscription = timer.sink { ticks.append($0.date.timeIntervalSince1970) }
    scheduler.advance(by: 10)
    #expect(ticks == [], "no ticks before connecting")
    let connection = timer.connect()
    let again = timer.connect()
    let isSameConnection = (again as AnyObject) === (connection as AnyObject)
    #expect(isSameConnection, "connecting twice keeps one connection")
    scheduler.advance(by: 5)
    #expect(ticks == [12, 14])
    connection.cancel()
    scheduler.advance(by: 10)
    #expect(ticks == [12, 14])
    #expect(scheduler.pendingWorkCount == 0)
    _ = subscription
  }

  @Test func subscribersGetEachTickInTheOrderTheySubscribedUntilTheyCancel() {
    let scheduler = DispatchQueue.test
    let timer = Publishers.Timer(every: 1, scheduler: scheduler)
    let log = Log<String>()
    let first = timer.sink { _ in log.append("first") }
    let second = timer.sink { _ in log.append("second") }
    let third = timer.sink { _ in log.append("third") }
    let connection = timer.connect()
    scheduler.advance(by: 2)
    #expect(log.values == ["first", "second", "third", "first", "second", "third"])
    second.cancel()
    scheduler.advance(by: 1)
    #expect(log.values.suffix(2) == ["first", "third"])
    first.cancel()
    third.cancel()
    scheduler.advance(by: 1)
    #expect(log.values.count == 8)
    connection.cancel()
  }

  @Test func aSubscriberWithoutDemandMissesTicks() {
    let scheduler = DispatchQueue.test
    let timer = Publishers.Timer(every: 1, scheduler: scheduler)
    let subscriber = DemandingSubscriber<DispatchQueue.SchedulerTimeType>()
    timer.subscribe(subscriber)
    let connection = timer.connect()
    subscriber.request(.max(2))
    scheduler.advance(by: 5)
    #expect(
      subscriber.received.map { $0.dispatchTime.uptimeNanoseconds } == [
        1_000_000_001, 2_000_000_001,
      ])
    subscriber.request(.max(1))
    scheduler.advance(by: 1)
    #expect(subscriber.received.count == 3)
    #expect(subscriber.received.last?.dispatchTime.uptimeNanoseconds == 6_000_000_001)
    subscriber.cancel()
    scheduler.advance(by: 1)
    #expect(subscriber.received.count == 3)
    connection.cancel()
  }

  @Test func everySubscriberGetsEachTick() {
    let scheduler = DispatchQueue.test
    let timer = scheduler.timerPublisher(every: .milliseconds(100)).autoconnect()
    var first = 0
    var second = 0
    let a = timer.sink { _ in first += 1 }
    let b = timer.sink { _ in second += 1 }
    scheduler.advance(by: 1)
    #expect(first == 10)
    #expect(second == 10)
    a.cancel()
    scheduler.advance(by: 1)
    #expect(first == 10)
    #expect(second == 20)
    b.cancel()
  }
}

@Suite struct SchedulerConcurrencyTests {
  @Test func sleepResumesWhenTheSchedulerReachesTheDeadline() async throws {
    let scheduler = DispatchQueue.test
    let task = Task {
      try await scheduler.sleep(for: .seconds(5))
      return scheduler.now.dispatchTime.uptimeNanoseconds
    }
    await waitUntil { scheduler.pendingWorkCount == 1 }
    await scheduler.advance(by: .seconds(4))
    #expect(scheduler.pendingWorkCount == 1)
    await scheduler.advance(by: .seconds(1))
    #expect(try await task.value == 5_000_000_001)
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func sleepForZeroResumesOnTheNextAdvanceAndDoesNotRepeat() async throws {
    let scheduler = DispatchQueue.test
    let task = Task { try await scheduler.sleep(for: .zero) }
    await waitUntil { scheduler.pendingWorkCount == 1 }
    await scheduler.advance()
    try await task.value
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func sleepUntilAPastDeadlineResumesOnTheNextAdvance() async throws {
    let scheduler = DispatchQueue.test
    await scheduler.advance(by: 10)
    let task = Task { try await scheduler.sleep(until: .init(.init(uptimeNanoseconds: 5))) }
    await waitUntil { scheduler.pendingWorkCount == 1 }
    await scheduler.advance()
    try await task.value
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func cancellingASleepThrowsAtOnceAndLeavesNothingPending() async {
    let scheduler = DispatchQueue.test
    let task = Task { try await scheduler.sleep(for: .seconds(5)) }
    await waitUntil { scheduler.pendingWorkCount == 1 }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func sleepingInAnAlreadyCancelledTaskThrows() async {
    let scheduler = DispatchQueue.test
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await scheduler.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func theAsyncTimerTicksEveryIntervalAndStopsWithItsIteration() async {
    let scheduler = DispatchQueue.test
    let task = Task {
      var ticks: [UInt64] = []
      for await time in scheduler.timer(interval: .seconds(1)) {
        ticks.append(time.dispatchTime.uptimeNanoseconds)
        if ticks.count == 3 { break }
      }
      return ticks
    }
    await waitUntil { scheduler.pendingWorkCount == 1 }
    await scheduler.advance(by: .seconds(3))
    #expect(await task.value == [1_000_000_001, 2_000_000_001, 3_000_000_001])
    #expect(scheduler.pendingWorkCount == 0)
  }

  @Test func measureReadsTheSchedulersClock() {
    let scheduler = DispatchQueue.test
    let elapsed = scheduler.measure { scheduler.advance(by: .milliseconds(1_500)) as Void }
    #expect(elapsed == .milliseconds(1_500))
  }
}

#if !canImport(Combine)
  @Suite struct MergeTests {
    @Test func mergesBothAndFinishesWhenBothFinish() {
      let a = PassthroughSubject<Int, Never>()
      let b = PassthroughSubject<Int, Never>()
      var output: [Int] = []
      var finished = false
      let c = a.merge(with: b).sink { _ in
        finished = true
      } receiveValue: {
        output.append($0)
      }
      a.send(1)
      b.send(2)
      a.send(completion: .finished)
      #expect(!finished)
      b.send(3)
      b.send(completion: .finished)
      #expect(output == [1, 2, 3])
      #expect(finished)
      _ = c
    }

    @Test func racesTwoPublishersAsItsDocumentationShows() {
      let scheduler = DispatchQueue.test
      let fast = Just("fast").delay(for: 1, scheduler: scheduler)
      let slow = Just("slow").delay(for: 2, scheduler: scheduler)
      var output: [String] = []
      let cancellable = fast.merge(with: slow).prefix(1).sink { output.append($0) }
      scheduler.advance(by: 2)
      #expect(output == ["fast"])
      cancellable.cancel()
    }

    @Test func neverDeliversMoreThanWasDemanded() {
      let subscriber = DemandingSubscriber<Int>()
      Publishers.Merge([1, 2, 3].publisher, [4, 5].publisher).subscribe(subscriber)
      #expect(subscriber.received == [])
      subscriber.request(.max(2))
      #expect(subscriber.received == [1, 2])
      subscriber.request(.max(10))
      // Elements arrive in the order the sides sent them: 4 and 5 waited in the buffer while 3
      // had not been asked for yet.
      #expect(subscriber.received == [1, 2, 4, 5, 3])
      #expect(subscriber.completed)
    }

    @Test func aFailureEndsTheMergeAndCancelsTheOtherSide() {
      struct Failure: Error {}
      let a = PassthroughSubject<Int, Failure>()
      var cancelled = false
      let b = PassthroughSubject<Int, Failure>().handleEvents(receiveCancel: { cancelled = true })
      var failed = false
      let c = a.merge(with: b).sink {
        if case .failure = $0 { failed = true }
      } receiveValue: { _ in
      }
      a.send(completion: .failure(Failure()))
      #expect(failed)
      #expect(cancelled)
      _ = c
    }
  }
#endif

/// A subscriber that requests only what the test asks for, and records what it receives.
final class DemandingSubscriber<Input>: Subscriber, @unchecked Sendable {
  typealias Failure = Never
  // Invariant: used from the test's thread only.
  var received: [Input] = []
  var completed = false
  private var subscription: (any Subscription)?

  func receive(subscription: any Subscription) { self.subscription = subscription }
  func receive(_ input: Input) -> Subscribers.Demand {
    received.append(input)
    return .none
  }
  func receive(completion: Subscribers.Completion<Never>) { completed = true }
  func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }
  func cancel() { subscription?.cancel() }
}
