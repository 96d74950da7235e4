import Foundation
import Testing

@testable import TempoSchedulers

/// Runs `body` when the last reference to it goes away.
///
/// The tests below hand one to an operator and make `body` call the same operator again. If the
/// operator released it while holding its lock, `body` would try to take that lock a second
/// time on the same thread and the test would never finish: the lock is not recursive.
private final class OnDeinit {
  private let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
  deinit { body() }
}

/// A publisher whose subscription runs `onRelease` when its subscriber lets go of it. It keeps
/// its subscriber, so a test can complete it, but not the subscription.
private final class ReleasingPublisher: Publisher {
  typealias Output = Int
  typealias Failure = Never

  private(set) var subscriber: AnySubscriber<Int, Never>?
  private let onRelease: () -> Void

  init(onRelease: @escaping () -> Void) { self.onRelease = onRelease }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = AnySubscriber(subscriber)
    subscriber.receive(subscription: Handle(onRelease: onRelease))
  }

  private final class Handle: Subscription {
    let combineIdentifier = CombineIdentifier()
    private let probe: OnDeinit
    init(onRelease: @escaping () -> Void) { probe = OnDeinit(onRelease) }
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
  }
}

@Suite struct ReleaseAfterUnlockingTests {
  @Test func cancellingReleasesTheStepperAfterUnlocking() {
    let upstream = ManualPublisher<Int, Never>()
    var subscriber: SteppingSubscriber<Int, Never>?
    var reentered = false
    subscriber = SteppingSubscriber {
      [
        probe = OnDeinit {
          subscriber?.cancel(); reentered = true
        }
      ] _ in
      withExtendedLifetime(probe) {}
    }
    upstream.subscribe(subscriber!)
    subscriber?.cancel()
    #expect(reentered, "the stepper was released by cancel")
    #expect(upstream.isCancelled)
  }

  @Test func cancellingThroughThePromiseReleasesTheStepperAfterUnlocking() {
    let upstream = ManualPublisher<Int, Never>()
    var subscriber: SteppingSubscriber<Int, Never>?
    var promises: [SteppingSubscriber<Int, Never>.Promise] = []
    var reentered = false
    subscriber = SteppingSubscriber {
      [
        probe = OnDeinit {
          subscriber?.cancel(); reentered = true
        }
      ] event in
      withExtendedLifetime(probe) {}
      if case .input(_, let promise) = event { promises.append(promise) }
    }
    upstream.subscribe(subscriber!)
    upstream.send(1)
    promises[0](.cancel)
    #expect(reentered, "the stepper was released by the cancelling promise")
    #expect(upstream.isCancelled)
  }

  @Test func completionReleasesTheUpstreamSubscriptionAfterUnlocking() {
    var subscriber: SteppingSubscriber<Int, Never>?
    var reentered = false
    var completions = 0
    let upstream = ReleasingPublisher {
      subscriber?.cancel(); reentered = true
    }
    subscriber = SteppingSubscriber { event in
      if case .completion = event { completions += 1 }
    }
    upstream.subscribe(subscriber!)
    #expect(!reentered, "the subscriber holds the subscription")
    upstream.subscriber?.receive(completion: .finished)
    #expect(reentered, "the subscription was released on completion")
    #expect(completions == 1)
  }

  @Test func cancellingPaceReleasesTheValueWaitingForDemandAfterUnlocking() {
    let scheduler = DispatchQueue.test
    let upstream = ManualPublisher<OnDeinit, Never>()
    let subscriber = DemandingSubscriber<OnDeinit>()
    var reentered = false
    upstream.pace(.seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(
      OnDeinit {
        subscriber.request(.max(1)); reentered = true
      })
    #expect(!reentered, "the value waits for demand")
    subscriber.cancel()
    #expect(reentered, "the waiting value was released by cancel")
    #expect(subscriber.received.isEmpty)
    #expect(upstream.isCancelled)
  }

  @Test func paceReleasesAValueAfterDeliveringIt() {
    let scheduler = DispatchQueue.test
    let upstream = ManualPublisher<OnDeinit, Never>()
    var subscription: (any Subscription)?
    var received = 0
    var reentered = false
    let cancellable = upstream.pace(.seconds(1), scheduler: scheduler)
      .handleEvents(receiveSubscription: { subscription = $0 })
      .sink { _ in received += 1 }
    upstream.send(
      OnDeinit {
        subscription?.request(.max(1)); reentered = true
      })
    #expect(received == 1)
    #expect(reentered, "the delivered value is not kept")
    cancellable.cancel()
  }

  #if !canImport(Combine)
    @Test func cancellingMergeReleasesBufferedValuesAfterUnlocking() {
      let upstream = ManualPublisher<OnDeinit, Never>()
      let subscriber = DemandingSubscriber<OnDeinit>()
      var reentered = false
      upstream.merge(with: Empty(completeImmediately: false)).subscribe(subscriber)
      // Sent without demand, so the merge keeps it in its buffer.
      upstream.send(
        OnDeinit {
          subscriber.request(.max(1)); reentered = true
        })
      #expect(!reentered, "the value waits in the buffer")
      subscriber.cancel()
      #expect(reentered, "the buffered value was released by cancel")
      #expect(subscriber.received.isEmpty)
      #expect(upstream.isCancelled)
    }

    @Test func aSideThatFinishesHasItsSubscriptionReleasedAfterUnlocking() {
      let subscriber = DemandingSubscriber<Int>()
      var reentered = false
      let upstream = ReleasingPublisher {
        subscriber.request(.max(1)); reentered = true
      }
      upstream.merge(with: Empty(completeImmediately: false)).subscribe(subscriber)
      #expect(!reentered, "the merge holds the subscription")
      upstream.subscriber?.receive(completion: .finished)
      #expect(reentered, "the finished side's subscription was released")
      #expect(!subscriber.completed, "the other side has not finished")
    }
  #endif
}
