/// The decisions of one ``Publishers/Pace`` subscription, free of locks and call-outs.
///
/// Each event is a `mutating` function that moves the state and answers what the subscription
/// must do once it has unlocked: deliver a value, complete, ask upstream for more, or release
/// what the event took out of the state. Its storage runs it under its lock; nothing here calls
/// out, and nothing is released here that could run user code in a `deinit`.
struct PaceStateMachine<Output, Failure: Error> {
  typealias Promise = SteppingSubscriber<Output, Failure>.Promise
  typealias Downstream = AnySubscriber<Output, Failure>

  enum State {
    /// Completed or cancelled: every event is ignored.
    case finished
    /// Subscribed downstream.
    case active(Active)
  }

  struct Active {
    var downstream: Downstream
    /// What downstream asked for and has not received yet.
    var demand: Subscribers.Demand
    var slot: Slot
    /// Upstream's completion, forwarded once no value waits for demand and none is delivered.
    var completion: Subscribers.Completion<Failure>?
    /// A value is being delivered downstream; calls to the downstream stay serial.
    var isDelivering: Bool
  }

  /// Where the value that upstream sent last is.
  enum Slot {
    /// Nothing is held: upstream was asked for a value, or has not sent its first.
    case empty
    /// A value waits for downstream demand, with the promise that asks for the next.
    case holding(Output, Promise)
    /// The last value was handed downstream; the promise waits for the interval to elapse (and
    /// for demand) before asking for the next.
    case pacing(Promise, intervalElapsed: Bool)
  }

  private(set) var state: State

  init(downstream: Downstream) {
    state = .active(
      Active(
        downstream: downstream, demand: .none, slot: .empty, completion: nil, isDelivering: false))
  }

  /// Runs `body` on the active state; does nothing once finished.
  private mutating func ifActive<R>(_ body: (inout Active) -> R?) -> R? {
    guard case .active(var active) = state else { return nil }
    // Leave `.finished` in place while `body` runs, so `active` is the only copy.
    state = .finished
    defer { state = .active(active) }
    return body(&active)
  }

  /// Downstream asked for `more`.
  mutating func request(_ more: Subscribers.Demand) {
    _ = ifActive { $0.demand += more }
  }

  /// Upstream sent `value` with the promise that asks for the next one. Returns a promise the
  /// new one replaced (only when upstream sent without being asked), to release after unlocking.
  mutating func receive(_ value: Output, promise: @escaping Promise) -> Promise? {
    ifActive { active in
      let replaced: Promise?
      switch active.slot {
      case .empty: replaced = nil
      case .holding(_, let old), .pacing(let old, _): replaced = old
      }
      active.slot = .holding(value, promise)
      return replaced
    }
  }

  /// Upstream completed. Later completions are ignored.
  mutating func receive(completion: Subscribers.Completion<Failure>) {
    _ = ifActive { active in
      if active.completion == nil { active.completion = completion }
    }
  }

  /// The interval since the last delivered value elapsed.
  mutating func intervalElapsed() {
    _ = ifActive { active in
      if case .pacing(let promise, intervalElapsed: false) = active.slot {
        active.slot = .pacing(promise, intervalElapsed: true)
      }
    }
  }

  /// What to do next, once unlocked.
  enum Action {
    /// Hand `value` to `downstream`, then report back with ``didDeliver(demanding:)``.
    case deliver(Output, to: Downstream)
    /// Send the completion to `downstream`; the promise, if any, is released after unlocking.
    case complete(Subscribers.Completion<Failure>, to: Downstream, releasing: Promise?)
    /// Complete `promise` with `.more`.
    case askForMore(Promise)
    /// Nothing to do until the next event.
    case none
  }

  /// The one thing the state allows now. Called in a loop until it answers ``Action/none``.
  mutating func next() -> Action {
    guard case .active(var active) = state, !active.isDelivering else { return .none }
    if case .holding(let value, let promise) = active.slot {
      guard active.demand > 0 else { return .none }
      active.demand -= 1
      active.slot = .pacing(promise, intervalElapsed: false)
      active.isDelivering = true
      state = .active(active)
      return .deliver(value, to: active.downstream)
    }
    if let completion = active.completion {
      state = .finished
      guard case .pacing(let promise, _) = active.slot else {
        return .complete(completion, to: active.downstream, releasing: nil)
      }
      return .complete(completion, to: active.downstream, releasing: promise)
    }
    if case .pacing(let promise, intervalElapsed: true) = active.slot, active.demand > 0 {
      active.slot = .empty
      state = .active(active)
      return .askForMore(promise)
    }
    return .none
  }

  /// Downstream received the value from ``Action/deliver(_:to:)`` and asked for `more`. Returns
  /// whether to start the interval: not when the subscription finished meanwhile.
  mutating func didDeliver(demanding more: Subscribers.Demand) -> Bool {
    ifActive { active in
      active.demand += more
      active.isDelivering = false
      return true
    } ?? false
  }

  /// What cancellation took out of the state, to release after unlocking.
  struct Cancelled {
    var downstream: Downstream?
    var value: Output?
    var promise: Promise?
  }

  /// Downstream cancelled.
  mutating func cancel() -> Cancelled {
    guard case .active(let active) = state else { return Cancelled() }
    state = .finished
    switch active.slot {
    case .empty:
      return Cancelled(downstream: active.downstream)
    case .holding(let value, let promise):
      return Cancelled(downstream: active.downstream, value: value, promise: promise)
    case .pacing(let promise, _):
      return Cancelled(downstream: active.downstream, promise: promise)
    }
  }
}
