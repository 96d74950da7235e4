import IssueReporting
public import TempoSchedulers

/// A subscriber that records, with the tick of each: its subscription, every value, the
/// completion or failure, every demand it sends, and its cancellation.
///
/// It reports an issue when a publisher delivers a value it did not ask for, or anything after
/// it completed.
///
/// ```swift
/// let test = MarbleTest()
/// let subscriber = test.record(test.cold("-a-b|"), demand: .initial(1, thenAfter: 1))
/// test.advance(ticks: 10)
/// subscriber.records
/// // subscribed and requested 1 at 0, a at 1, requested 1 at 2, b at 3, finished at 4
/// ``` Make one with ``MarbleTest/record(_:demand:)`` or use ``MarbleTest/start(created:subscribed:cancelled:demand:_:)``.
///
/// - Complexity: O(1) per event.
public final class RecordingSubscriber<Input, Failure: Error>: Subscriber, Cancellable,
  @unchecked Sendable
{
  // Invariant: `lock` guards every `var`; the subscription is called and issues reported only
  // after unlocking.
  private let lock = TempoTestingLock()
  private let demand: RecordingDemand
  private let test: MarbleTest
  private var subscription: (any Subscription)?
  private var outstanding: Subscribers.Demand = .none
  private var isDone = false
  private var recorded: [Recorded<Input, Failure>] = []

  init(test: MarbleTest, demand: RecordingDemand) {
    self.test = test
    self.demand = demand
  }

  /// What the subscriber has recorded so far.
  public var records: [Recorded<Input, Failure>] { lock.withLock { recorded } }

  /// Records the subscription and sends the initial demand.
  public func receive(subscription: any Subscription) {
    let initial: Subscribers.Demand =
      switch demand {
      case .unlimited: .unlimited
      case .initial(let count, _): .max(count)
      }
    let accepted = lock.withLock { () -> Bool in
      guard self.subscription == nil, !isDone else { return false }
      self.subscription = subscription
      outstanding = initial
      recorded.append(Recorded(test.currentTick, .subscribed))
      if initial > .none { recorded.append(Recorded(test.currentTick, .requested(initial))) }
      return true
    }
    guard accepted else {
      subscription.cancel()
      reportIssue("RecordingSubscriber received a second subscription; it was cancelled.")
      return
    }
    if initial > .none { subscription.request(initial) }
  }

  /// Records the value; reports it if it was not requested.
  public func receive(_ input: Input) -> Subscribers.Demand {
    let problem = lock.withLock { () -> String? in
      let tick = test.currentTick
      if isDone { return "a value after the subscription ended, at tick \(tick)" }
      recorded.append(Recorded(tick, .value(input)))
      guard outstanding > .none else {
        return "a value that was not requested, at tick \(tick)"
      }
      outstanding -= 1
      return nil
    }
    if let problem { reportIssue("The publisher under test delivered \(problem).") }
    if case .initial(_, let after?) = demand {
      test.scheduler.schedule(after: test.scheduler.now.advanced(by: test.ticks(after))) {
        [weak self] in self?.request(1)
      }
    }
    return .none
  }

  /// Records the completion or failure.
  public func receive(completion: Subscribers.Completion<Failure>) {
    let problem = lock.withLock { () -> String? in
      let tick = test.currentTick
      if isDone { return "a completion after the subscription ended, at tick \(tick)" }
      isDone = true
      subscription = nil
      switch completion {
      case .finished: recorded.append(Recorded(tick, .finished))
      case .failure(let error): recorded.append(Recorded(tick, .failed(error)))
      }
      return nil
    }
    if let problem { reportIssue("The publisher under test delivered \(problem).") }
  }

  /// Asks for `count` more values.
  public func request(_ count: Int) {
    guard let subscription = takeSubscription(recording: .requested(.max(count)), count: count)
    else { return }
    subscription.request(.max(count))
  }

  /// The live subscription, after recording `event` (and adding `count` to the demand); nil
  /// once the subscription has ended.
  private func takeSubscription(
    recording event: Recorded<Input, Failure>.Event, count: Int
  ) -> (any Subscription)? {
    lock.lock()
    defer { lock.unlock() }
    guard !isDone, let subscription else { return nil }
    outstanding += count
    recorded.append(Recorded(test.currentTick, event))
    return subscription
  }

  /// Cancels the subscription and records it.
  public func cancel() {
    let subscription = takeSubscription(recording: .cancelled, count: 0)
    lock.lock()
    isDone = true
    self.subscription = nil
    lock.unlock()
    subscription?.cancel()
  }
}
