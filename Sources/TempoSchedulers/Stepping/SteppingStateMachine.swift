/// The decisions of a ``SteppingSubscriber``, free of locks and call-outs.
///
/// Each event is a `mutating` function that moves the state and answers what the subscriber must
/// do once it has unlocked. The subscriber runs it under its lock; nothing here calls out, and an
/// event that removes the stepper hands it back, so that the subscriber drops it (and whatever the
/// closure holds) only after unlocking.
struct SteppingStateMachine<Input, Failure: Error> {
  typealias Stepper = SteppingSubscriber<Input, Failure>.Stepper
  typealias PromiseID = UInt64

  enum State {
    /// Completed or cancelled.
    case dead
    /// Waiting for the subscription from upstream.
    case subscribing(Stepper)
    /// Waiting for a signal from upstream, or for the latest promise to be completed.
    case subscribed(Subscribed)
    /// Calling out to the stepper with an input.
    case stepping(Subscribed, shouldRequestMore: Bool)
  }

  struct Subscribed {
    var stepper: Stepper
    var subscription: any Subscription
    /// The only promise whose completion counts; `nil` when none is outstanding.
    var validPromise: PromiseID?
  }

  private(set) var state: State
  private var nextPromise: PromiseID = 1

  init(stepper: @escaping Stepper) {
    state = .subscribing(stepper)
  }

  /// What cancellation took out of the state: the subscription to cancel, if any, and the
  /// stepper to release after unlocking.
  struct Cancelled {
    var subscription: (any Subscription)?
    var stepper: Stepper?
  }

  /// Cancellation from downstream.
  mutating func cancel() -> Cancelled {
    let cancelled: Cancelled
    switch state {
    case .dead: cancelled = Cancelled(subscription: nil, stepper: nil)
    case .subscribing(let stepper): cancelled = Cancelled(subscription: nil, stepper: stepper)
    case .subscribed(let subscribed), .stepping(let subscribed, _):
      cancelled = Cancelled(subscription: subscribed.subscription, stepper: subscribed.stepper)
    }
    state = .dead
    return cancelled
  }

  /// The subscription arrived: request the first input, or cancel it if it came too late.
  enum SubscriptionAction {
    case requestFirst
    case cancel
  }

  mutating func receive(subscription: any Subscription) -> SubscriptionAction {
    guard case .subscribing(let stepper) = state else { return .cancel }
    state = .subscribed(Subscribed(stepper: stepper, subscription: subscription, validPromise: nil))
    return .requestFirst
  }

  /// An input arrived: the stepper to call and the id of the promise to give it, or `nil` if the
  /// input is not allowed now (dead, not subscribed, or re-entered while stepping).
  mutating func receiveInput() -> (Stepper, PromiseID)? {
    guard case .subscribed(var subscribed) = state else { return nil }
    let id = nextPromise
    nextPromise += 1
    subscribed.validPromise = id
    state = .stepping(subscribed, shouldRequestMore: false)
    return (subscribed.stepper, id)
  }

  /// The stepper returned: the demand to return upstream (one more if the stepper completed the
  /// promise with `.more` while it ran).
  mutating func finishStepping() -> Subscribers.Demand {
    guard case .stepping(let subscribed, let shouldRequestMore) = state else { return .none }
    state = .subscribed(subscribed)
    return shouldRequestMore ? .max(1) : .none
  }

  /// Upstream completed: if the completion is allowed now, the stepper to tell, with the
  /// subscription that ended, to release after unlocking.
  mutating func receiveCompletion() -> Subscribed? {
    guard case .subscribed(let subscribed) = state else { return nil }
    state = .dead
    return subscribed
  }

  /// What completing a promise leads to once unlocked.
  enum PromiseAction {
    case requestMore(any Subscription)
    /// Cancel the subscription and release the stepper.
    case cancel(any Subscription, releasing: Stepper)
  }

  /// A promise was completed. Stale and repeated completions, and any after the subscriber
  /// died, do nothing.
  mutating func completePromise(
    _ id: PromiseID,
    with request: SteppingSubscriber<Input, Failure>.Request
  ) -> PromiseAction? {
    switch state {
    case .subscribed(var subscribed) where subscribed.validPromise == id:
      switch request {
      case .more:
        subscribed.validPromise = nil
        state = .subscribed(subscribed)
        return .requestMore(subscribed.subscription)
      case .cancel:
        state = .dead
        return .cancel(subscribed.subscription, releasing: subscribed.stepper)
      }
    case .stepping(var subscribed, _) where subscribed.validPromise == id:
      switch request {
      case .more:
        // Completed synchronously inside the stepper: becomes the demand `receive` returns.
        subscribed.validPromise = nil
        state = .stepping(subscribed, shouldRequestMore: true)
        return nil
      case .cancel:
        state = .dead
        return .cancel(subscribed.subscription, releasing: subscribed.stepper)
      }
    case .dead, .subscribing, .subscribed, .stepping:
      return nil
    }
  }
}
