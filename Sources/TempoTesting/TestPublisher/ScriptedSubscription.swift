import TempoSchedulers
@_spi(TempoInternals) import TempoSupport

/// One subscriber's subscription to a ``TestPublisher``: a ``ScriptedSubscriptionStateMachine``
/// behind a lock.
///
/// The publisher plays its script into it (``send(_:)``, ``complete(_:)``); the subscriber asks
/// for values and cancels. Every event runs the machine under the lock, then calls the
/// subscriber or the publisher, and releases what the machine let go of, after unlocking.
final class ScriptedSubscription<Output, Failure: Error>: Subscription, @unchecked Sendable {
  // Invariant: `lock` guards `machine`, the only other stored property. Nothing is called or
  // released while `lock` is held.
  private let lock = Lock()
  private var machine: ScriptedSubscriptionStateMachine<Output, Failure>

  init(_ downstream: AnySubscriber<Output, Failure>, publisher: TestPublisher<Output, Failure>) {
    machine = ScriptedSubscriptionStateMachine(downstream: downstream, publisher: publisher)
  }

  func request(_ demand: Subscribers.Demand) {
    lock.withLock { machine.request(demand) }
  }

  /// What became of a value.
  enum Delivery {
    /// The subscriber received it.
    case delivered
    /// The subscriber had not asked for it.
    case dropped
    /// The subscription had ended: nobody was there to take it (not a drop).
    case ignored
  }

  /// Sends `value` to the subscriber if it asked for one.
  func send(_ value: Output) -> Delivery {
    switch lock.withLock({ machine.offer() }) {
    case .ignore:
      return .ignored
    case .drop:
      return .dropped
    case .deliver(let downstream):
      let more = downstream.receive(value)
      lock.withLock { machine.request(more) }
      return .delivered
    }
  }

  /// Ends the subscription with `completion`: the publisher notes the end, then the subscriber
  /// receives the completion.
  func complete(_ completion: Subscribers.Completion<Failure>) {
    guard let ended = lock.withLock({ machine.end() }) else { return }
    ended.publisher.subscriptionEnded(self, cancelled: false)
    ended.downstream.receive(completion: completion)
  }

  /// The subscriber cancelled: the publisher notes the cancellation.
  func cancel() {
    guard let ended = lock.withLock({ machine.end() }) else { return }
    ended.publisher.subscriptionEnded(self, cancelled: true)
  }
}
