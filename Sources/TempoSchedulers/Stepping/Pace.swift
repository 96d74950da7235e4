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
      let storage = PaceStorage<Output, Failure, Context>(
        downstream: AnySubscriber(subscriber), interval: interval, scheduler: scheduler)
      subscriber.receive(subscription: storage)
      upstream.subscribe(storage.stepping)
    }
  }
}
