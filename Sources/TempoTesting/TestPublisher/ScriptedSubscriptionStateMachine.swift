import TempoSchedulers

/// The decisions of one subscription to a ``TestPublisher``, free of locks and call-outs.
///
/// A subscription is active until the script completes it or its subscriber cancels it. While
/// active it holds the subscriber, the demand not yet met, and the publisher, kept alive while
/// the subscription lasts as a subscription keeps its upstream. Each event moves the state and
/// answers what the subscription must do once unlocked, or what it took out of the state, to
/// call or release after unlocking.
struct ScriptedSubscriptionStateMachine<Output, Failure: Error> {
  typealias Downstream = AnySubscriber<Output, Failure>

  enum State {
    /// Completed or cancelled: every event is ignored.
    case ended
    /// The subscriber is listening.
    case active(Active)
  }

  struct Active {
    var downstream: Downstream
    /// What the subscriber asked for and has not received yet.
    var demand: Subscribers.Demand
    var publisher: TestPublisher<Output, Failure>
  }

  private(set) var state: State

  init(downstream: Downstream, publisher: TestPublisher<Output, Failure>) {
    state = .active(Active(downstream: downstream, demand: .none, publisher: publisher))
  }

  /// The subscriber asked for `more`, when it subscribed or when it took a value.
  mutating func request(_ more: Subscribers.Demand) {
    guard case .active(var active) = state else { return }
    active.demand += more
    state = .active(active)
  }

  /// What to do with a value the script plays.
  enum Offer {
    /// Hand the value to `downstream`, then ``request(_:)`` what it answers.
    case deliver(to: Downstream)
    /// Drop the value: the subscriber has not asked for it.
    case drop
    /// Ignore the value: the subscription has ended.
    case ignore
  }

  /// The script plays a value.
  mutating func offer() -> Offer {
    guard case .active(var active) = state else { return .ignore }
    guard active.demand > .none else { return .drop }
    active.demand -= 1
    state = .active(active)
    return .deliver(to: active.downstream)
  }

  /// What ending took out of the state: the subscriber, to complete or just release, and the
  /// publisher, to tell.
  struct Ended {
    let downstream: Downstream
    let publisher: TestPublisher<Output, Failure>
  }

  /// The script completed the subscription, or its subscriber cancelled it. Returns nil if it
  /// had already ended.
  mutating func end() -> Ended? {
    guard case .active(let active) = state else { return nil }
    state = .ended
    return Ended(downstream: active.downstream, publisher: active.publisher)
  }
}
