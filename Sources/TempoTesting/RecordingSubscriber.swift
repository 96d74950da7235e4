public import TempoSchedulers
@_spi(TempoInternals) import TempoSupport

/// A subscriber that records, with the tick of each: its subscription, every value, the
/// completion or failure, every demand it sends, and its cancellation.
///
/// It reports an issue when a publisher delivers a value it did not ask for, or anything after
/// it completed; the issue points at the line that made the subscriber:
/// ``MarbleTest/record(_:demand:fileID:filePath:line:column:)`` or
/// ``MarbleTest/start(created:subscribed:cancelled:demand:fileID:filePath:line:column:_:)``.
///
/// ```swift
/// let test = MarbleTest()
/// let subscriber = test.record(test.cold("-a-b|"), demand: .initial(1, thenAfter: 1))
/// test.advance(ticks: 10)
/// subscriber.records
/// // subscribed and requested 1 at 0, a at 1, requested 1 at 2, b at 3, finished at 4
/// ```
///
/// - Complexity: O(1) per event.
public final class RecordingSubscriber<Input, Failure: Error>: Subscriber, Cancellable,
  @unchecked Sendable
{
  // Invariant: `lock` guards every `var`; the subscription is called, and released, and issues
  // reported, only after unlocking; the test's tick is read before locking (it takes the
  // timeline's lock).
  private let lock = Lock()
  private let demand: RecordingDemand
  private let test: MarbleTest
  private let site: CallSite
  private var subscription: (any Subscription)?
  private var outstanding: Subscribers.Demand = .none
  private var isDone = false
  private var recorded: [Recorded<Input, Failure>] = []

  init(test: MarbleTest, demand: RecordingDemand, site: CallSite) {
    self.test = test
    self.demand = demand
    self.site = site
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
    let tick = test.currentTick
    let accepted = lock.withLock { () -> Bool in
      guard self.subscription == nil, !isDone else { return false }
      self.subscription = subscription
      outstanding = initial
      recorded.append(Recorded(tick, .subscribed))
      if initial > .none { recorded.append(Recorded(tick, .requested(initial))) }
      return true
    }
    guard accepted else {
      subscription.cancel()
      site.report("RecordingSubscriber received a second subscription; it was cancelled.")
      return
    }
    if initial > .none { subscription.request(initial) }
  }

  /// Records the value; reports it if it was not requested.
  public func receive(_ input: Input) -> Subscribers.Demand {
    let tick = test.currentTick
    let problem = lock.withLock { () -> String? in
      if isDone { return "a value after the subscription ended, at tick \(tick)" }
      recorded.append(Recorded(tick, .value(input)))
      guard outstanding > .none else {
        return "a value that was not requested, at tick \(tick)"
      }
      outstanding -= 1
      return nil
    }
    if let problem { site.report("The publisher under test delivered \(problem).") }
    if case .initial(_, let after?) = demand {
      test.scheduler.schedule(after: test.scheduler.now.advanced(by: test.ticks(after))) {
        [weak self] in self?.request(1)
      }
    }
    return .none
  }

  /// Records the completion or failure.
  public func receive(completion: Subscribers.Completion<Failure>) {
    // The subscription is taken out under the lock and released after unlocking.
    let tick = test.currentTick
    let (problem, ended) = lock.withLock { () -> (String?, (any Subscription)?) in
      if isDone { return ("a completion after the subscription ended, at tick \(tick)", nil) }
      isDone = true
      switch completion {
      case .finished: recorded.append(Recorded(tick, .finished))
      case .failure(let error): recorded.append(Recorded(tick, .failed(error)))
      }
      let ended = subscription
      subscription = nil
      return (nil, ended)
    }
    withExtendedLifetime(ended) {}
    if let problem { site.report("The publisher under test delivered \(problem).") }
  }

  /// Asks for `count` more values.
  public func request(_ count: Int) {
    let tick = test.currentTick
    let live = lock.withLock { () -> (any Subscription)? in
      guard !isDone, let subscription else { return nil }
      outstanding += count
      recorded.append(Recorded(tick, .requested(.max(count))))
      return subscription
    }
    live?.request(.max(count))
  }

  /// Cancels the subscription and records it.
  public func cancel() {
    // The subscription is taken out under the lock, then cancelled and released after unlocking.
    let tick = test.currentTick
    let live = lock.withLock { () -> (any Subscription)? in
      let live = isDone ? nil : subscription
      isDone = true
      subscription = nil
      if live != nil { recorded.append(Recorded(tick, .cancelled)) }
      return live
    }
    live?.cancel()
  }
}
