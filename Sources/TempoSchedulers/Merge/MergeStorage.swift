#if !canImport(Combine)
  import TempoCore
  @_spi(TempoInternals) import TempoSupport

  /// One ``Publishers/Merge`` subscription: a ``MergeStateMachine`` behind a lock, shared by the
  /// two sides.
  ///
  /// Every event runs the machine under the lock, then does what it answered after unlocking:
  /// calls to the downstream and the upstream subscriptions, and the release of anything the
  /// machine let go of (buffered elements, the downstream), which may run user code in a `deinit`.
  final class MergeStorage<Output, Failure: Error>: Subscription, @unchecked Sendable {
    typealias Side = MergeStateMachine<Output, Failure>.Side

    // Invariant: `lock` guards `machine`. Nothing is called or released while it is held.
    private let lock = Lock()
    private var machine: MergeStateMachine<Output, Failure>

    init(downstream: AnySubscriber<Output, Failure>) {
      machine = MergeStateMachine(downstream: downstream)
    }

    func attach(_ subscription: any Subscription, to side: Side) {
      guard let demand = lock.withLock({ machine.attach(subscription, to: side) }) else {
        return subscription.cancel()
      }
      if demand > 0 { subscription.request(demand) }
    }

    func request(_ more: Subscribers.Demand) {
      let upstreams = lock.withLock { machine.request(more) }
      for upstream in upstreams { upstream?.request(more) }
      drain()
    }

    func cancel() {
      let cancelled = lock.withLock { machine.cancel() }
      for upstream in cancelled.upstreams { upstream?.cancel() }
      withExtendedLifetime(cancelled) {}
    }

    func receive(_ value: Output) -> Subscribers.Demand {
      lock.withLock { machine.receive(value) }
      drain()
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>, from side: Side) {
      let ended = lock.withLock { machine.receive(completion: completion, from: side) }
      for other in ended.toCancel { other?.cancel() }
      withExtendedLifetime(ended) {}
      drain()
    }

    /// Delivers buffered elements while there is demand, then the completion once the buffer is
    /// empty. Only one thread delivers at a time; the others leave their elements in the buffer.
    private func drain() {
      while true {
        switch lock.withLock({ machine.next() }) {
        case .deliver(let value, let downstream):
          let more = downstream.receive(value)
          let upstreams = lock.withLock { machine.didDeliver(demanding: more) }
          for upstream in upstreams { upstream?.request(more) }
        case .complete(let completion, let downstream):
          downstream.receive(completion: completion)
          return
        case .none:
          return
        }
      }
    }
  }

  /// One side of a merge: forwards what its publisher sends to the shared storage.
  struct MergeSide<Output, Failure: Error>: Subscriber, CustomCombineIdentifierConvertible {
    let storage: MergeStorage<Output, Failure>
    let side: MergeStorage<Output, Failure>.Side
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: any Subscription) { storage.attach(subscription, to: side) }
    func receive(_ input: Output) -> Subscribers.Demand { storage.receive(input) }
    func receive(completion: Subscribers.Completion<Failure>) {
      storage.receive(completion: completion, from: side)
    }
  }
#endif
