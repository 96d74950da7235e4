import TempoCore
@_spi(TempoInternals) import TempoSupport

/// A subscriber that asks its upstream for the next input only when a stepper says so.
///
/// Combine's backpressure lets a subscriber decide when more input may come. This subscriber
/// hands each input to a *stepper* closure together with a *promise*; the next input is requested
/// only when the stepper completes the promise with ``Request/more``. Completing it with
/// ``Request/cancel`` cancels the upstream. The stepper can complete the promise at once, or
/// later, from any thread:
///
/// ```swift
/// let cancellable = numbers.step { event in
///   switch event {
///   case .input(let number, let promise):
///     print(number)
///     scheduler.schedule(after: scheduler.now.advanced(by: 1)) { promise(.more) }
///   case .completion(let completion):
///     print(completion)
///   }
/// }
/// ```
///
/// The subscriber follows the Reactive Streams rules: it asks for one input at subscription and
/// one per `.more`, so upstream never sends more than the stepper asked for. Each promise has an
/// id of its own: completing a promise twice, completing a stale one, or completing one after
/// cancellation does nothing. A `.more` given while the stepper is still running becomes the
/// demand returned from `receive(_:)`. Nothing is called out while the subscriber's lock is held.
public final class SteppingSubscriber<Input, Failure: Error>: Subscriber, Cancellable,
  @unchecked Sendable
{
  // Invariant: `lock` guards `machine`, the only state; the stepper and the upstream
  // subscription are called, and the stepper released, only after unlocking.

  /// Receives each input with its promise, and the completion.
  public typealias Stepper = (Event) -> Void

  /// What the stepper is told.
  public enum Event {
    /// An input from upstream, and the promise to complete when the stepper wants more.
    case input(Input, Promise)
    /// Upstream finished or failed; no promise comes with it.
    case completion(Completion)
  }

  /// Completes the step that came with an input: `.more` for the next input, `.cancel` to stop.
  /// Any thread may call it.
  public typealias Promise = @Sendable (Request) -> Void

  /// What the stepper asks for when it completes a promise.
  public enum Request: Sendable {
    /// Deliver the next input.
    case more
    /// Cancel the upstream subscription.
    case cancel
  }

  /// How upstream ended.
  public typealias Completion = Subscribers.Completion<Failure>

  private let lock = Lock()
  private var machine: SteppingStateMachine<Input, Failure>

  /// Creates a subscriber that calls `stepper` with each input and with the completion.
  ///
  /// ```swift
  /// let subscriber = SteppingSubscriber<Int, Never> { event in … }
  /// publisher.subscribe(subscriber)
  /// ```
  public init(stepper: @escaping Stepper) {
    machine = SteppingStateMachine(stepper: stepper)
  }

  /// Cancels the upstream subscription; the stepper is not called again.
  public func cancel() {
    let cancelled = lock.withLock { machine.cancel() }
    cancelled.subscription?.cancel()
    withExtendedLifetime(cancelled.stepper) {}
  }

  /// Requests the first input, or cancels a subscription that arrives after cancellation.
  public func receive(subscription: any Subscription) {
    switch lock.withLock({ machine.receive(subscription: subscription) }) {
    case .requestFirst: subscription.request(.max(1))
    case .cancel: subscription.cancel()
    }
  }

  /// Hands `input` to the stepper with a fresh promise; returns one more demand if the stepper
  /// completed that promise with `.more` before returning.
  public func receive(_ input: Input) -> Subscribers.Demand {
    guard let (stepper, id) = lock.withLock({ machine.receiveInput() }) else { return .none }
    stepper(.input(input, { [weak self] request in self?.completePromise(id, with: request) }))
    return lock.withLock { machine.finishStepping() }
  }

  /// Tells the stepper that upstream ended.
  public func receive(completion: Completion) {
    guard let ended = lock.withLock({ machine.receiveCompletion() }) else { return }
    ended.stepper(.completion(completion))
  }

  private func completePromise(_ id: UInt64, with request: Request) {
    switch lock.withLock({ machine.completePromise(id, with: request) }) {
    case .requestMore(let subscription): subscription.request(.max(1))
    case .cancel(let subscription, let stepper):
      subscription.cancel()
      withExtendedLifetime(stepper) {}
    case nil: break
    }
  }
}

extension Publisher {
  /// Subscribes with a stepper that decides when the next input may come.
  ///
  /// ```swift
  /// let cancellable = upstream.step { event in
  ///   if case .input(let value, let promise) = event {
  ///     handle(value) { promise(.more) }   // ask for the next one when done
  ///   }
  /// }
  /// ```
  ///
  /// See ``SteppingSubscriber``.
  ///
  /// - Returns: A cancellable that cancels the subscription.
  public func step(
    with stepper: @escaping (SteppingSubscriber<Output, Failure>.Event) -> Void
  ) -> AnyCancellable {
    let subscriber = SteppingSubscriber<Output, Failure>(stepper: stepper)
    subscribe(subscriber)
    return AnyCancellable(subscriber)
  }

  /// Republishes this publisher's values through `subject`, no faster than one per `pace`,
  /// asking upstream for each next value only when the interval since the last one has passed.
  ///
  /// ```swift
  /// let subject = PassthroughSubject<String, Never>()
  /// let cancellable = erratic
  ///   .buffer(size: 1_000, prefetch: .byRequest, whenFull: .dropOldest)
  ///   .pace(.seconds(1), scheduler: DispatchQueue.main, subject: subject)
  /// ```
  ///
  /// Upstream is asked for one value at a time, so put a `buffer` in front of an upstream that
  /// does not wait to be asked. The completion is sent through `subject` as soon as upstream
  /// delivers it. ``Publishers/Pace`` (`pace(_:scheduler:)`) is the same operator as a publisher.
  public func pace<Context: Scheduler, PacedSubject: Subject>(
    _ pace: Context.SchedulerTimeType.Stride,
    scheduler: Context,
    subject: PacedSubject
  ) -> AnyCancellable where PacedSubject.Output == Output, PacedSubject.Failure == Failure {
    step { event in
      switch event {
      case .input(let input, let promise):
        subject.send(input)
        scheduler.schedule(after: scheduler.now.advanced(by: pace)) { promise(.more) }
      case .completion(let completion):
        subject.send(completion: completion)
      }
    }
  }
}
