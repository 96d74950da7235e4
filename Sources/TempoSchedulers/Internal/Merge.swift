#if !canImport(Combine)
  import TempoCore

  // OpenCombine 0.14.0 has no `merge`. This fills the gap on the platforms that use it, so that
  // code written for Combine (such as a `race` of two futures) compiles unchanged there.

  extension Publisher {
    /// Publishes the elements of this publisher and of `other` as they arrive.
    ///
    /// ```swift
    /// first.merge(with: second).prefix(1)   // whichever publishes first
    /// ```
    ///
    /// Finishes when both have finished; fails as soon as either fails.
    public func merge<Other: Publisher>(with other: Other) -> Publishers.Merge<Self, Other>
    where Other.Output == Output, Other.Failure == Failure {
      Publishers.Merge(self, other)
    }
  }

  extension Publishers {
    /// A publisher that interleaves the elements of two publishers, for OpenCombine, which
    /// lacks one.
    ///
    /// ```swift
    /// Publishers.Merge(Just(1), Just(2)).sink { print($0) }   // 1, 2
    /// ```
    ///
    /// It never delivers more than the downstream demanded: elements that arrive beyond the
    /// demand wait in a buffer until more is requested.
    public struct Merge<A: Publisher, B: Publisher>: Publisher
    where A.Output == B.Output, A.Failure == B.Failure {
      /// The elements of both publishers.
      public typealias Output = A.Output
      /// The failure of either publisher.
      public typealias Failure = A.Failure

      /// The first publisher.
      public let a: A
      /// The second publisher.
      public let b: B

      /// Creates a publisher that merges `a` and `b`.
      public init(_ a: A, _ b: B) {
        self.a = a
        self.b = b
      }

      /// Subscribes `subscriber` to both publishers.
      public func receive<S: Subscriber>(subscriber: S)
      where S.Input == Output, S.Failure == Failure {
        let inner = MergeInner<Output, Failure>(downstream: AnySubscriber(subscriber))
        subscriber.receive(subscription: inner)
        a.subscribe(MergeSide(inner: inner, index: 0))
        b.subscribe(MergeSide(inner: inner, index: 1))
      }
    }
  }

  /// The shared state of one merge subscription.
  private final class MergeInner<Output, Failure: Error>: Subscription, @unchecked Sendable {
    // Invariant: `lock` guards every `var`. The downstream and the upstream subscriptions are
    // called only after unlocking; `isDelivering` keeps deliveries to the downstream serial.
    private let lock = Lock()
    private var downstream: AnySubscriber<Output, Failure>?
    private var upstreams: [(any Subscription)?] = [nil, nil]
    private var demand = Subscribers.Demand.none
    private var buffer: [Output] = []
    private var finishedCount = 0
    private var completion: Subscribers.Completion<Failure>?
    private var isDelivering = false

    init(downstream: AnySubscriber<Output, Failure>) {
      self.downstream = downstream
    }

    func attach(_ subscription: any Subscription, index: Int) {
      let pending: Subscribers.Demand? = lock.withLock {
        guard downstream != nil else { return nil }
        upstreams[index] = subscription
        return demand
      }
      guard let pending else { return subscription.cancel() }
      if pending > 0 { subscription.request(pending) }
    }

    func request(_ more: Subscribers.Demand) {
      let upstreams = lock.withLock { () -> [(any Subscription)?] in
        demand += more
        return self.upstreams
      }
      for upstream in upstreams { upstream?.request(more) }
      drain()
    }

    func cancel() {
      let (upstreams, released) = lock.withLock {
        () -> ([(any Subscription)?], AnySubscriber<Output, Failure>?) in
        defer {
          self.upstreams = [nil, nil]
          downstream = nil
          buffer = []
        }
        return (self.upstreams, downstream)
      }
      withExtendedLifetime(released) {}
      for upstream in upstreams { upstream?.cancel() }
    }

    func receive(_ value: Output) -> Subscribers.Demand {
      lock.withLock { if downstream != nil { buffer.append(value) } }
      drain()
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>, index: Int) {
      let others: [(any Subscription)?] = lock.withLock {
        guard downstream != nil, self.completion == nil else { return [] }
        upstreams[index] = nil
        switch completion {
        case .finished:
          finishedCount += 1
          if finishedCount == 2 { self.completion = .finished }
          return []
        case .failure:
          self.completion = completion
          defer { upstreams = [nil, nil] }
          return upstreams
        }
      }
      for other in others { other?.cancel() }
      drain()
    }

    private enum Step {
      case value(Output, AnySubscriber<Output, Failure>)
      case complete(Subscribers.Completion<Failure>, AnySubscriber<Output, Failure>)
      case stop
    }

    /// Delivers buffered values while there is demand, then the completion once the buffer is
    /// empty. Only one thread delivers at a time; the others leave their values in the buffer.
    private func drain() {
      while true {
        let step: Step = lock.withLock {
          guard !isDelivering, let downstream else { return .stop }
          if !buffer.isEmpty, demand > 0 {
            demand -= 1
            isDelivering = true
            return .value(buffer.removeFirst(), downstream)
          }
          if buffer.isEmpty, let completion {
            self.downstream = nil
            return .complete(completion, downstream)
          }
          return .stop
        }
        switch step {
        case .value(let value, let downstream):
          let more = downstream.receive(value)
          lock.withLock {
            isDelivering = false
            demand += more
          }
          if more > 0 {
            let upstreams = lock.withLock { self.upstreams }
            for upstream in upstreams { upstream?.request(more) }
          }
        case .complete(let completion, let downstream):
          downstream.receive(completion: completion)
          return
        case .stop:
          return
        }
      }
    }
  }

  /// One side of a merge: forwards what its publisher sends to the shared state.
  private struct MergeSide<Output, Failure: Error>: Subscriber, CustomCombineIdentifierConvertible {
    let inner: MergeInner<Output, Failure>
    let index: Int
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: any Subscription) { inner.attach(subscription, index: index) }
    func receive(_ input: Output) -> Subscribers.Demand { inner.receive(input) }
    func receive(completion: Subscribers.Completion<Failure>) {
      inner.receive(completion: completion, index: index)
    }
  }
#endif
