import TempoCore

extension Publisher {
  /// Publishes this publisher's values no faster than one per `interval`, without dropping any.
  ///
  /// Upstream is asked for one value at a time: after each value, `pace` waits `interval` on
  /// `scheduler` and for downstream demand, and only then asks for the next. An upstream that
  /// produces values at an irregular rate keeps them (behind a `buffer`) until their turn:
  ///
  /// ```swift
  /// erratic
  ///   .buffer(size: 1_000, prefetch: .byRequest, whenFull: .dropOldest)
  ///   .pace(.seconds(1), scheduler: DispatchQueue.main)
  ///   .sink { print($0) }
  /// ```
  ///
  /// See ``Publishers/Pace``.
  public func pace<Context: Scheduler>(
    _ interval: Context.SchedulerTimeType.Stride,
    scheduler: Context
  ) -> Publishers.Pace<Self, Context> {
    Publishers.Pace(upstream: self, interval: interval, scheduler: scheduler)
  }
}

extension Publishers {
  /// A publisher that republishes its upstream's values no faster than one per interval.
  ///
  /// ```swift
  /// let paced = Publishers.Pace(upstream: values, interval: .seconds(1), scheduler: scheduler)
  /// ```
  ///
  /// - Values: the first value is published as soon as it arrives; each later one no sooner than
  ///   `interval` after the one before, and only while downstream has demand. Upstream is asked
  ///   for the next value when both hold, so it never sends more than one value ahead.
  /// - Completion and failure are published as soon as they arrive from upstream, after any
  ///   value still waiting for demand: they are not values, so they do not wait for the
  ///   interval. (An upstream that only delivers its completion when asked — such as `buffer`
  ///   with `.byRequest` — delivers it one interval after the last value, because that is when
  ///   `pace` asks.)
  /// - Cancelling the subscription cancels upstream and any pending interval.
  public struct Pace<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The upstream's values.
    public typealias Output = Upstream.Output
    /// The upstream's failure.
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are paced.
    public let upstream: Upstream
    /// The least time between two values.
    public let interval: Context.SchedulerTimeType.Stride
    /// The scheduler that measures the interval.
    public let scheduler: Context

    /// Creates a publisher that paces `upstream`'s values `interval` apart on `scheduler`.
    public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context)
    {
      self.upstream = upstream
      self.interval = interval
      self.scheduler = scheduler
    }

    /// Subscribes `subscriber` to the paced values.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = PaceInner<Upstream, Context>(
        downstream: AnySubscriber(subscriber), interval: interval, scheduler: scheduler)
      subscriber.receive(subscription: inner)
      upstream.subscribe(inner.stepping)
    }
  }
}

/// One pace subscription: a stepping subscriber upstream, demand and a one-value slot downstream.
private final class PaceInner<Upstream: Publisher, Context: Scheduler>: Subscription,
  @unchecked Sendable
{
  typealias Output = Upstream.Output
  typealias Failure = Upstream.Failure

  // Invariant: `lock` guards every `var`. The downstream, the promise and the scheduler are
  // called only after unlocking; `isDelivering` keeps calls to the downstream serial.
  private let lock = Lock()
  private var downstream: AnySubscriber<Output, Failure>?
  private var demand = Subscribers.Demand.none
  /// The value upstream delivered that waits for downstream demand.
  private var waiting: Output?
  private var completion: Subscribers.Completion<Failure>?
  /// The promise of the last delivered value, until both the interval and demand allow more.
  private var promise: SteppingSubscriber<Output, Failure>.Promise?
  private var intervalElapsed = false
  private var isDelivering = false
  private let interval: Context.SchedulerTimeType.Stride
  private let scheduler: Context
  private(set) var stepping: SteppingSubscriber<Output, Failure>!

  init(
    downstream: AnySubscriber<Output, Failure>,
    interval: Context.SchedulerTimeType.Stride,
    scheduler: Context
  ) {
    self.downstream = downstream
    self.interval = interval
    self.scheduler = scheduler
    self.stepping = SteppingSubscriber { [weak self] event in self?.step(event) }
  }

  func request(_ more: Subscribers.Demand) {
    lock.withLock { demand += more }
    pump()
  }

  func cancel() {
    let released = lock.withLock { () -> AnySubscriber<Output, Failure>? in
      defer {
        downstream = nil
        waiting = nil
        promise = nil
      }
      return downstream
    }
    withExtendedLifetime(released) {}
    stepping.cancel()
  }

  private func step(_ event: SteppingSubscriber<Output, Failure>.Event) {
    switch event {
    case .input(let value, let promise):
      lock.withLock {
        waiting = value
        self.promise = promise
        intervalElapsed = false
      }
    case .completion(let completion):
      lock.withLock { self.completion = completion }
    }
    pump()
  }

  private func intervalDidElapse() {
    lock.withLock { intervalElapsed = true }
    pump()
  }

  private enum Step {
    case deliver(Output, AnySubscriber<Output, Failure>)
    case complete(Subscribers.Completion<Failure>, AnySubscriber<Output, Failure>)
    case askForMore(SteppingSubscriber<Output, Failure>.Promise)
    case stop
  }

  /// Does whatever the state allows, one call-out at a time, until nothing is left to do.
  private func pump() {
    while true {
      let step: Step = lock.withLock {
        guard !isDelivering, let downstream else { return .stop }
        if let value = waiting {
          guard demand > 0 else { return .stop }
          demand -= 1
          waiting = nil
          isDelivering = true
          return .deliver(value, downstream)
        }
        if let completion {
          self.downstream = nil
          promise = nil
          return .complete(completion, downstream)
        }
        if intervalElapsed, demand > 0, let promise {
          self.promise = nil
          return .askForMore(promise)
        }
        return .stop
      }
      switch step {
      case .deliver(let value, let downstream):
        let more = downstream.receive(value)
        lock.withLock {
          demand += more
          isDelivering = false
        }
        // The interval is measured from the delivery of each value.
        scheduler.schedule(after: scheduler.now.advanced(by: interval)) { [weak self] in
          self?.intervalDidElapse()
        }
      case .complete(let completion, let downstream):
        downstream.receive(completion: completion)
        return
      case .askForMore(let promise):
        promise(.more)
      case .stop:
        return
      }
    }
  }
}
