import TempoCore
@_spi(TempoInternals) import TempoSupport

extension Scheduler {
  /// A publisher that emits this scheduler's current time every `interval`.
  ///
  /// ```swift
  /// scheduler.timerPublisher(every: .seconds(1))
  ///   .autoconnect()
  ///   .sink { print("tick at", $0) }
  /// ```
  ///
  /// See ``Publishers/Timer``.
  public func timerPublisher(
    every interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride? = nil,
    options: SchedulerOptions? = nil
  ) -> Publishers.Timer<Self> {
    Publishers.Timer(every: interval, tolerance: tolerance, scheduler: self, options: options)
  }
}

extension Publishers {
  /// A publisher that emits a scheduler's current time every interval.
  ///
  /// Foundation's `Timer.publish` only runs on a run loop, which a test cannot control. This
  /// timer runs on any scheduler, so on a ``TestScheduler`` a thousand seconds of ticks take no
  /// time at all:
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// var output: [Int] = []
  /// let cancellable = Publishers.Timer(every: 1, scheduler: scheduler)
  ///   .autoconnect()
  ///   .sink { _ in output.append(output.count) }
  ///
  /// scheduler.advance(by: 1_000)
  /// XCTAssertEqual(output, Array(0..<1_000))
  /// ```
  ///
  /// Like Foundation's timer it is a connectable publisher: it starts ticking on `connect()` (or
  /// on the first subscription, behind `autoconnect()`), and the first tick comes one interval
  /// after that. Every subscriber gets each tick it has demand for; a subscriber without demand
  /// misses the tick. Cancelling the connection stops the ticks.
  public final class Timer<Scheduler: _CombineScheduler>: ConnectablePublisher,
    @unchecked Sendable
  {
    // Invariant: the `let`s are immutable; `lock` guards `subscriptions` and `connection`, and
    // nothing is called out or released while it is held.

    /// The times of the ticks.
    public typealias Output = Scheduler.SchedulerTimeType
    /// A timer never fails.
    public typealias Failure = Never

    /// The time between ticks.
    public let interval: Scheduler.SchedulerTimeType.Stride
    /// The scheduler options the ticks are scheduled with.
    public let options: Scheduler.SchedulerOptions?
    /// The scheduler the timer runs on.
    public let scheduler: Scheduler
    /// The tolerance the ticks are scheduled with; the scheduler's minimum when `nil`.
    public let tolerance: Scheduler.SchedulerTimeType.Stride?

    private let lock = Lock()
    /// The subscriptions, in the order they were made. An array rather than a dictionary: a
    /// tick copies it, and copying a dictionary's values in unspecialized code costs several
    /// runtime metadata lookups per tick; subscribing and cancelling are rare and O(n).
    private var subscriptions: [Inner] = []
    private var connection: Connection?

    /// Creates a timer that ticks every `interval` on `scheduler` once connected.
    ///
    /// ```swift
    /// let timer = Publishers.Timer(every: .seconds(1), scheduler: DispatchQueue.main)
    /// ```
    public init(
      every interval: Scheduler.SchedulerTimeType.Stride,
      tolerance: Scheduler.SchedulerTimeType.Stride? = nil,
      scheduler: Scheduler,
      options: Scheduler.SchedulerOptions? = nil
    ) {
      self.interval = interval
      self.tolerance = tolerance
      self.scheduler = scheduler
      self.options = options
    }

    /// Attaches `subscriber`; it receives ticks for as long as it has demand.
    public func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Failure {
      let subscription = Inner(timer: self, downstream: AnySubscriber(subscriber))
      lock.withLock { subscriptions.append(subscription) }
      subscriber.receive(subscription: subscription)
    }

    /// Starts the ticks. Connecting again while connected returns the same connection.
    public func connect() -> any Cancellable {
      if let existing = lock.withLock({ connection }) { return existing }
      let scheduled = scheduler.schedule(
        after: scheduler.now.advanced(by: interval),
        interval: interval,
        tolerance: tolerance ?? scheduler.minimumTolerance,
        options: options
      ) { [weak self] in self?.tick() }
      let candidate = Connection(timer: self, scheduled: scheduled)
      let winner = lock.withLock { () -> Connection in
        if let connection { return connection }
        connection = candidate
        return candidate
      }
      // Another thread connected first: keep its connection and drop this one's ticks.
      if winner !== candidate { scheduled.cancel() }
      return winner
    }

    private func tick() {
      let time = scheduler.now
      lock.lock()
      let receivers = subscriptions
      lock.unlock()
      for receiver in receivers { receiver.deliver(time) }
    }

    fileprivate func disconnect(_ connection: Connection) {
      let current: Connection? = lock.withLock {
        guard self.connection === connection else { return nil }
        self.connection = nil
        return connection
      }
      current?.scheduled.cancel()
    }

    fileprivate func remove(_ subscription: Inner) {
      let removed = lock.withLock { () -> Inner? in
        guard let index = subscriptions.firstIndex(where: { $0 === subscription }) else {
          return nil
        }
        return subscriptions.remove(at: index)
      }
      withExtendedLifetime(removed) {}
    }

    fileprivate final class Connection: Cancellable, @unchecked Sendable {
      // Invariant: both references are immutable.
      private weak var timer: Timer?
      let scheduled: any Cancellable

      init(timer: Timer, scheduled: any Cancellable) {
        self.timer = timer
        self.scheduled = scheduled
      }

      func cancel() {
        if let timer { timer.disconnect(self) } else { scheduled.cancel() }
      }
    }

    fileprivate final class Inner: Subscription, @unchecked Sendable {
      // Invariant: `lock` guards `demand` and `downstream`; the downstream is called only after
      // unlocking. `timer` is set once.
      private let lock = Lock()
      private var demand = Subscribers.Demand.none
      private var downstream: AnySubscriber<Output, Failure>?
      private weak var timer: Timer?

      init(timer: Timer, downstream: AnySubscriber<Output, Failure>) {
        self.timer = timer
        self.downstream = downstream
      }

      func request(_ demand: Subscribers.Demand) {
        lock.withLock { self.demand += demand }
      }

      func cancel() {
        let released = lock.withLock { () -> AnySubscriber<Output, Failure>? in
          defer { downstream = nil }
          return downstream
        }
        withExtendedLifetime(released) {}
        timer?.remove(self)
      }

      func deliver(_ time: Output) {
        let receiver: AnySubscriber<Output, Failure>? = lock.withLock {
          guard demand > 0, let downstream else { return nil }
          demand -= 1
          return downstream
        }
        guard let receiver else { return }
        let more = receiver.receive(time)
        lock.withLock { demand += more }
      }
    }
  }
}
