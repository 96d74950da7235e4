#if !canImport(Combine)
  /// The decisions of one ``Publishers/Merge`` subscription, free of locks and call-outs.
  ///
  /// Each event is a `mutating` function that moves the state and answers what the subscription
  /// must do once it has unlocked: call the upstreams, deliver to the downstream, or release
  /// what the event took out of the state. Its storage runs it under its lock; nothing here
  /// calls out, and nothing is released here that could run user code in a `deinit`.
  struct MergeStateMachine<Output, Failure: Error> {
    typealias Downstream = AnySubscriber<Output, Failure>

    /// One of the two merged publishers.
    enum Side: Int {
      case a = 0
      case b = 1
    }

    enum State {
      /// Completed or cancelled: every event is ignored.
      case finished
      /// Subscribed downstream.
      case active(Active)
    }

    struct Active {
      var downstream: Downstream
      /// The subscriptions of the sides that have not ended, by ``Side``.
      var upstreams: [(any Subscription)?] = [nil, nil]
      /// What downstream asked for and has not received yet.
      var demand = Subscribers.Demand.none
      /// Elements that arrived beyond the demand, oldest first.
      var buffer: [Output] = []
      var finishedSides = 0
      /// How the merge ends, once the buffer is empty.
      var completion: Subscribers.Completion<Failure>?
      /// An element is being delivered downstream; deliveries stay serial.
      var isDelivering = false
    }

    private(set) var state: State

    init(downstream: Downstream) {
      state = .active(Active(downstream: downstream))
    }

    /// Runs `body` on the active state; answers `nil` once finished.
    private mutating func ifActive<R>(_ body: (inout Active) -> R?) -> R? {
      guard case .active(var active) = state else { return nil }
      // Leave `.finished` in place while `body` runs, so `active` is the only copy.
      state = .finished
      defer { state = .active(active) }
      return body(&active)
    }

    /// A side's subscription arrived: the demand to request from it (possibly none), or `nil`
    /// if the merge is over and the subscription must be cancelled.
    mutating func attach(_ subscription: any Subscription, to side: Side) -> Subscribers.Demand? {
      ifActive { active in
        active.upstreams[side.rawValue] = subscription
        return active.demand
      }
    }

    /// Downstream asked for `more`: the upstreams to pass it on to.
    mutating func request(_ more: Subscribers.Demand) -> [(any Subscription)?] {
      ifActive { active in
        active.demand += more
        return active.upstreams
      } ?? []
    }

    /// A side sent `value`. It waits in the buffer until ``next()`` hands it out.
    mutating func receive(_ value: Output) {
      _ = ifActive { $0.buffer.append(value) }
    }

    /// What a side's completion took out of the state: the subscriptions to cancel (the other
    /// side's, after a failure) and to release (the side's own), after unlocking.
    struct Ended {
      var toCancel: [(any Subscription)?] = []
      var released: (any Subscription)?
    }

    /// A side ended.
    mutating func receive(
      completion: Subscribers.Completion<Failure>, from side: Side
    ) -> Ended {
      ifActive { active in
        guard active.completion == nil else { return Ended() }
        var ended = Ended(released: active.upstreams[side.rawValue])
        active.upstreams[side.rawValue] = nil
        switch completion {
        case .finished:
          active.finishedSides += 1
          if active.finishedSides == 2 { active.completion = .finished }
        case .failure:
          active.completion = completion
          ended.toCancel = active.upstreams
          active.upstreams = [nil, nil]
        }
        return ended
      } ?? Ended()
    }

    /// What to do next, once unlocked.
    enum Action {
      /// Hand `value` to `downstream`, then report back with ``didDeliver(demanding:)``.
      case deliver(Output, to: Downstream)
      /// Send the completion to `downstream`.
      case complete(Subscribers.Completion<Failure>, to: Downstream)
      /// Nothing to do until the next event.
      case none
    }

    /// The one thing the state allows now. Called in a loop until it answers ``Action/none``.
    mutating func next() -> Action {
      guard case .active(var active) = state, !active.isDelivering else { return .none }
      if !active.buffer.isEmpty, active.demand > 0 {
        state = .finished  // `active` is the only copy of the buffer while it shrinks
        active.demand -= 1
        active.isDelivering = true
        let value = active.buffer.removeFirst()
        state = .active(active)
        return .deliver(value, to: active.downstream)
      }
      if active.buffer.isEmpty, let completion = active.completion {
        // Both sides have ended, so no subscription is left to release.
        state = .finished
        return .complete(completion, to: active.downstream)
      }
      return .none
    }

    /// Downstream received the element from ``Action/deliver(_:to:)`` and asked for `more`:
    /// the upstreams to pass it on to.
    mutating func didDeliver(demanding more: Subscribers.Demand) -> [(any Subscription)?] {
      ifActive { active in
        active.isDelivering = false
        active.demand += more
        return more > 0 ? active.upstreams : []
      } ?? []
    }

    /// What cancellation took out of the state: the subscriptions to cancel, and the downstream
    /// and the buffered elements to release, after unlocking.
    struct Cancelled {
      var upstreams: [(any Subscription)?] = []
      var downstream: Downstream?
      var buffer: [Output] = []
    }

    /// Downstream cancelled.
    mutating func cancel() -> Cancelled {
      guard case .active(let active) = state else { return Cancelled() }
      state = .finished
      return Cancelled(
        upstreams: active.upstreams, downstream: active.downstream, buffer: active.buffer)
    }
  }
#endif
