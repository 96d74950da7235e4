import Foundation
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

/// What a hot and a cold test publisher do with demand, cancellation and repeated subscriptions,
/// side by side.
@Suite struct HotColdPublisherTests {
  // MARK: - Drops under demand

  @Test func aHotPublisherCountsDropsOnlyForTheSubscriberThatDidNotAsk() {
    let test = MarbleTest()
    let input = test.hot("-a-b-c-|")
    let eager = test.record(input)
    let sparing = test.record(input, demand: .initial(1, thenAfter: nil))
    test.advance(ticks: 10)
    test.expect(eager.records, "-a-b-c-|")
    test.expect(sparing.records, "-a-----|")
    #expect(input.droppedValues == 2)
  }

  @Test func aColdPublisherCountsDropsForEachSubscriber() {
    let test = MarbleTest()
    let input = test.cold("-a-b-c-|")
    let first = test.record(input, demand: .initial(1, thenAfter: nil))
    test.advance(ticks: 3)
    let second = test.record(input, demand: .initial(2, thenAfter: nil))
    test.advance(ticks: 10)
    test.expect(first.records, "-a-----|")
    test.expect(second.records, "----a-b---|")
    #expect(input.droppedValues == 3)
  }

  @Test func aValueAfterTheSubscriptionEndedIsNotADrop() {
    let test = MarbleTest()
    let input = test.hot("-a-b-c-|")
    let subscriber = test.record(input, demand: .initial(0, thenAfter: nil))
    test.advance(ticks: 2)
    subscriber.cancel()
    test.advance(ticks: 10)
    #expect(input.droppedValues == 1)
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 0, cancelled: 2)])
  }

  // MARK: - Subscription records

  @Test func aHotPublisherRecordsEachSubscriptionAndOnlyCancellationsEndARecord() {
    let test = MarbleTest()
    let input = test.hot("-a-b-c-|")
    let first = test.record(input)
    test.advance(ticks: 2)
    let second = test.record(input)
    test.advance(ticks: 2)
    first.cancel()
    test.advance(ticks: 10)
    second.cancel()  // after the completion: nothing to cancel, nothing recorded
    #expect(
      input.subscriptions == [
        SubscriptionRecord(subscribed: 0, cancelled: 4), SubscriptionRecord(subscribed: 2),
      ])
    test.expect(first.records, [.value(1, "a"), .value(3, "b"), .cancelled(4)])
    test.expect(second.records, "---b-c-|")
  }

  @Test func aColdPublisherRecordsEachSubscriptionAtItsOwnTick() {
    let test = MarbleTest()
    let input = test.cold("-a|")
    let first = test.record(input)
    test.advance(ticks: 1)
    let second = test.record(input)
    second.cancel()
    test.advance(ticks: 5)
    first.cancel()
    #expect(
      input.subscriptions == [
        SubscriptionRecord(subscribed: 0), SubscriptionRecord(subscribed: 1, cancelled: 1),
      ])
    test.expect(first.records, "-a|")
    test.expect(second.records, [.cancelled(1)])
  }

  // MARK: - Cancellation mid-script

  @Test func aColdSubscriberCancelledMidScriptGetsNothingMoreAndOthersPlayOn() {
    let test = MarbleTest()
    let input = test.cold("-a-b-c|")
    let first = test.record(input)
    test.advance(ticks: 1)
    let second = test.record(input)
    test.advance(ticks: 2)
    first.cancel()
    test.advance(ticks: 10)
    test.expect(first.records, [.value(1, "a"), .value(3, "b"), .cancelled(3)])
    test.expect(second.records, "--a-b-c|")
    #expect(
      input.subscriptions == [
        SubscriptionRecord(subscribed: 0, cancelled: 3), SubscriptionRecord(subscribed: 1),
      ])
    #expect(input.droppedValues == 0)
  }

  @Test func aHotSubscriberCancelledDuringABroadcastMissesItWithoutADrop() {
    let test = MarbleTest()
    let input = test.hot("-a-b|")
    let second = test.record(String.self, failure: Never.self)
    let first = test.record(input.handleEvents(receiveOutput: { _ in second.cancel() }))
    input.subscribe(second)
    test.advance(ticks: 10)
    test.expect(first.records, "-a-b|")
    test.expect(second.records, [.cancelled(1)])
    #expect(
      input.subscriptions == [
        SubscriptionRecord(subscribed: 0), SubscriptionRecord(subscribed: 0, cancelled: 1),
      ])
    #expect(input.droppedValues == 0)
  }

  // MARK: - A subscriber that subscribes twice

  @Test func aRecorderSubscribedTwiceToAHotPublisherCancelsTheSecond() {
    let test = MarbleTest()
    let input = test.hot("-a-b|")
    let subscriber = test.record(input)
    expectIssues("RecordingSubscriber received a second subscription; it was cancelled.") {
      input.subscribe(subscriber)
    }
    test.advance(ticks: 10)
    test.expect(subscriber.records, "-a-b|")
    #expect(
      input.subscriptions == [
        SubscriptionRecord(subscribed: 0), SubscriptionRecord(subscribed: 0, cancelled: 0),
      ])
    #expect(input.droppedValues == 0)
  }

  @Test func aRecorderSubscribedTwiceToAColdPublisherHearsTheScriptOnce() {
    let test = MarbleTest()
    let input = test.cold("-a-b|")
    let subscriber = test.record(input)
    test.advance(ticks: 2)
    expectIssues("RecordingSubscriber received a second subscription; it was cancelled.") {
      input.subscribe(subscriber)
    }
    test.advance(ticks: 10)
    test.expect(subscriber.records, "-a-b|")
    #expect(
      input.subscriptions == [
        SubscriptionRecord(subscribed: 0), SubscriptionRecord(subscribed: 2, cancelled: 2),
      ])
  }

  @Test func aSubscriberThatAcceptsTwoSubscriptionsHearsAHotScriptTwice() {
    let test = MarbleTest()
    let input = test.hot("-a-b|")
    let subscriber = Listener(test)
    input.subscribe(subscriber)
    input.subscribe(subscriber)
    test.advance(ticks: 10)
    #expect(
      subscriber.heard.values == ["a@1", "a@1", "b@3", "b@3", "finished@4", "finished@4"])
    #expect(
      input.subscriptions == [SubscriptionRecord(subscribed: 0), SubscriptionRecord(subscribed: 0)]
    )
  }

  @Test func aSubscriberThatAcceptsTwoSubscriptionsHearsAColdScriptFromEach() {
    let test = MarbleTest()
    let input = test.cold("-a-b|")
    let subscriber = Listener(test)
    input.subscribe(subscriber)
    test.advance(ticks: 2)
    input.subscribe(subscriber)
    test.advance(ticks: 10)
    // At tick 3 the first play's `b` was scheduled before the second play's `a`.
    #expect(
      subscriber.heard.values == ["a@1", "b@3", "a@3", "finished@4", "b@5", "finished@6"])
    #expect(
      input.subscriptions == [SubscriptionRecord(subscribed: 0), SubscriptionRecord(subscribed: 2)]
    )
  }
}

/// A subscriber that takes every subscription it is given, asks each for everything, and logs
/// what it hears with the tick.
private final class Listener: Subscriber, Sendable {
  typealias Input = String
  typealias Failure = Never
  let test: MarbleTest
  let heard = Log<String>()
  init(_ test: MarbleTest) { self.test = test }
  func receive(subscription: any Subscription) { subscription.request(.unlimited) }
  func receive(_ input: String) -> Subscribers.Demand {
    heard.append("\(input)@\(test.currentTick)")
    return .none
  }
  func receive(completion: Subscribers.Completion<Never>) {
    heard.append("finished@\(test.currentTick)")
  }
}
