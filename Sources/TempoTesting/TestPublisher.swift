import IssueReporting
public import TempoSchedulers

/// A publisher scripted by a marble diagram.
///
/// A *hot* one plays its diagram once, at the ticks written, to whoever is subscribed at the
/// time; a *cold* one plays it for each subscriber, counting ticks from its subscription. Both
/// honour demand: a value that arrives while a subscriber has asked for none is dropped for that
/// subscriber and counted in ``droppedValues``. Both record ``subscriptions``.
///
/// ```swift
/// let test = MarbleTest()
/// let input = test.hot("-a-b-|")                       // values are the characters
/// let numbers = test.cold("-1-2|", values: ["1": 1, "2": 2])
/// ```
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
  // Invariant: `lock` guards every `var`; subscribers are called only after unlocking.
  private let lock = TempoTestingLock()
  private let test: MarbleTest
  private let marbles: Marbles
  private let values: [Character: Output]
  private let error: Failure?
  private let isHot: Bool
  private var records: [SubscriptionRecord] = []
  private var dropped = 0
  private var live: [Conduit] = []

  init(
    test: MarbleTest, diagram: String, values: [Character: Output], error: Failure?, hot: Bool
  ) {
    self.test = test
    self.marbles = Marbles(diagram)
    self.values = values
    self.error = error
    self.isHot = hot
    if let problem = marbles.problem {
      reportIssue("The marble diagram \"\(diagram)\" is malformed: \(problem).")
    }
    for (_, symbol) in marbles.events {
      if case .value(let character) = symbol, values[character] == nil {
        reportIssue("The marble diagram \"\(diagram)\" uses '\(character)', which has no value.")
      }
      if symbol == .failed, error == nil {
        reportIssue("The marble diagram \"\(diagram)\" fails ('#') but no error was given.")
      }
    }
    if hot { schedule(from: 0, to: nil) }
  }

  /// When each subscriber subscribed and cancelled.
  public var subscriptions: [SubscriptionRecord] { lock.withLock { records } }

  /// How many values were dropped because a subscriber had not asked for them.
  public var droppedValues: Int { lock.withLock { dropped } }

  /// Subscribes `subscriber`: records the subscription, and for a cold publisher starts its
  /// diagram from now.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    let conduit = Conduit(AnySubscriber(subscriber), owner: self)
    let index = lock.withLock {
      live.append(conduit)
      records.append(SubscriptionRecord(subscribed: test.currentTick))
      return records.count - 1
    }
    conduit.recordIndex = index
    subscriber.receive(subscription: conduit)
    if !isHot { schedule(from: test.currentTick, to: conduit) }
  }

  /// Schedules the diagram's events from tick `start`, for one conduit (cold; the events keep
  /// the publisher alive, as a subscription keeps its upstream) or for all (hot).
  private func schedule(from start: Int, to conduit: Conduit?) {
    for (tick, symbol) in marbles.events {
      if let conduit {
        test.at(start + tick) { self.deliver(symbol, to: conduit) }
      } else {
        test.at(start + tick) { [weak self] in
          guard let self else { return }
          for target in self.lock.withLock({ self.live }) { self.deliver(symbol, to: target) }
        }
      }
    }
  }

  private func deliver(_ symbol: Marbles.Symbol, to conduit: Conduit) {
    switch symbol {
    case .value(let character):
      guard let value = values[character] else { return }
      if !conduit.send(value) { lock.withLock { dropped += 1 } }
    case .finished:
      conduit.complete(.finished)
    case .failed:
      if let error { conduit.complete(.failure(error)) }
    case .subscribed:
      break
    }
  }

  fileprivate func ended(_ conduit: Conduit, cancelled: Bool) {
    lock.withLock {
      live.removeAll { $0 === conduit }
      if cancelled, let index = conduit.recordIndex { records[index].cancelled = test.currentTick }
    }
  }

  /// One subscriber's subscription: its demand and whether it is over.
  fileprivate final class Conduit: Subscription, @unchecked Sendable {
    // Invariant: `lock` guards every `var`; the subscriber is called only after unlocking.
    private let lock = TempoTestingLock()
    private var subscriber: AnySubscriber<Output, Failure>?
    private var demand: Subscribers.Demand = .none
    /// The publisher, kept alive while the subscription lasts.
    private var owner: TestPublisher?
    var recordIndex: Int?

    init(_ subscriber: AnySubscriber<Output, Failure>, owner: TestPublisher) {
      self.subscriber = subscriber
      self.owner = owner
    }

    func request(_ demand: Subscribers.Demand) {
      lock.withLock { self.demand += demand }
    }

    /// Sends `value` if it was asked for; answers false if it was dropped.
    func send(_ value: Output) -> Bool {
      lock.lock()
      guard let subscriber else {
        lock.unlock()
        return true  // over: not a drop
      }
      guard demand > .none else {
        lock.unlock()
        return false
      }
      demand -= 1
      lock.unlock()
      let more = subscriber.receive(value)
      lock.withLock { demand += more }
      return true
    }

    func complete(_ completion: Subscribers.Completion<Failure>) {
      lock.lock()
      let subscriber = self.subscriber
      let owner = self.owner
      (self.subscriber, self.owner) = (nil, nil)
      lock.unlock()
      guard let subscriber else { return }
      owner?.ended(self, cancelled: false)
      subscriber.receive(completion: completion)
    }

    func cancel() {
      lock.lock()
      let wasLive = subscriber != nil
      let owner = self.owner
      (subscriber, self.owner) = (nil, nil)
      lock.unlock()
      if wasLive { owner?.ended(self, cancelled: true) }
    }
  }
}

extension MarbleTest {
  /// A hot publisher of the diagram's characters, as strings.
  public func hot(_ diagram: String) -> TestPublisher<String, Never> {
    TestPublisher(
      test: self, diagram: diagram, values: characters(of: diagram), error: nil, hot: true)
  }

  /// A hot publisher whose diagram's characters stand for `values`.
  public func hot<Output>(
    _ diagram: String, values: [Character: Output]
  ) -> TestPublisher<Output, Never> {
    TestPublisher(test: self, diagram: diagram, values: values, error: nil, hot: true)
  }

  /// A hot publisher that can fail with `error` (`#` in the diagram).
  public func hot<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], error: Failure
  ) -> TestPublisher<Output, Failure> {
    TestPublisher(test: self, diagram: diagram, values: values, error: error, hot: true)
  }

  /// A cold publisher of the diagram's characters, as strings.
  public func cold(_ diagram: String) -> TestPublisher<String, Never> {
    TestPublisher(
      test: self, diagram: diagram, values: characters(of: diagram), error: nil, hot: false)
  }

  /// A cold publisher whose diagram's characters stand for `values`.
  public func cold<Output>(
    _ diagram: String, values: [Character: Output]
  ) -> TestPublisher<Output, Never> {
    TestPublisher(test: self, diagram: diagram, values: values, error: nil, hot: false)
  }

  /// A cold publisher that can fail with `error` (`#` in the diagram).
  public func cold<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], error: Failure
  ) -> TestPublisher<Output, Failure> {
    TestPublisher(test: self, diagram: diagram, values: values, error: error, hot: false)
  }

  func characters(of diagram: String) -> [Character: String] {
    var values: [Character: String] = [:]
    for (_, symbol) in Marbles(diagram).events {
      if case .value(let character) = symbol { values[character] = String(character) }
    }
    return values
  }
}
