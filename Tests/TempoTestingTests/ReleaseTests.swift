import Foundation
import TempoSchedulers
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

@testable import TempoTesting

// The count of locks a thread holds exists with Tempo's internal checks only
// (`TEMPO_INTERNAL_CHECKS=1 swift test`, as CI runs).
#if TEMPO_INTERNAL_CHECKS
  /// TempoTesting's objects release what the user gave them (subscribers, subscriptions) only
  /// after unlocking, so a `deinit` that calls back into them cannot deadlock.
  @Suite struct ReleaseTests {
    @Test func aRecorderReleasesItsSubscriptionAfterUnlockingWhenThePublisherCompletes() {
      let test = MarbleTest()
      let recorder = test.record(String.self, failure: Never.self)
      let held = Log<Int>()
      recorder.receive(subscription: Probe(held))
      recorder.receive(completion: .finished)
      #expect(held.values == [0])
    }

    @Test func aRecorderReleasesItsSubscriptionAfterUnlockingWhenCancelled() {
      let test = MarbleTest()
      let recorder = test.record(String.self, failure: Never.self)
      let held = Log<Int>()
      recorder.receive(subscription: Probe(held))
      recorder.cancel()
      #expect(held.values == [0])
    }

    @Test func aTestPublisherReleasesItsSubscriberAfterUnlockingWhenCancelled() {
      let test = MarbleTest()
      let input = test.hot("-a-b-|")
      let held = Log<Int>()
      let box = SubscriptionBox()
      input.subscribe(ProbeSubscriber(held, box: box))
      #expect(held.values.isEmpty)
      box.take()?.cancel()
      #expect(held.values == [0])
    }

    @Test func aTestPublisherReleasesItsSubscriberAfterUnlockingWhenItCompletes() {
      let test = MarbleTest()
      let input = test.cold("-a|")
      let held = Log<Int>()
      let box = SubscriptionBox()
      input.subscribe(ProbeSubscriber(held, box: box))
      _ = box.take()
      test.advance(ticks: 3)
      #expect(held.values == [0])
    }
  }

  /// A subscription that logs, when released, how many Tempo locks its thread holds.
  private final class Probe: Subscription {
    let held: Log<Int>
    init(_ held: Log<Int>) { self.held = held }
    deinit { held.append(Lock.heldByCurrentThread) }
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
  }

  /// Holds a subscription for the test, weakly tied to nothing.
  private final class SubscriptionBox: @unchecked Sendable {
    // Invariant: used from the test's thread only.
    private var subscription: (any Subscription)?
    func put(_ subscription: any Subscription) { self.subscription = subscription }
    func take() -> (any Subscription)? {
      defer { subscription = nil }
      return subscription
    }
  }

  /// A subscriber that logs, when released, how many Tempo locks its thread holds.
  private final class ProbeSubscriber: Subscriber {
    typealias Input = String
    typealias Failure = Never
    let held: Log<Int>
    let box: SubscriptionBox
    init(_ held: Log<Int>, box: SubscriptionBox) {
      self.held = held
      self.box = box
    }
    deinit { held.append(Lock.heldByCurrentThread) }
    func receive(subscription: any Subscription) {
      box.put(subscription)
      subscription.request(.unlimited)
    }
    func receive(_ input: String) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
  }
#endif
