import IssueReporting
public import TempoSchedulers
@_spi(TempoInternals) import TempoSupport

/// A publisher scripted by a marble diagram or by a list of events at ticks.
///
/// A *hot* one plays its script once, at the ticks written, to whoever is subscribed at the
/// time; a *cold* one plays it for each subscriber, counting ticks from its subscription. Both
/// honour demand: a value that arrives while a subscriber has asked for none is dropped for that
/// subscriber and counted in ``droppedValues``. Both record ``subscriptions``.
///
/// ```swift
/// let test = MarbleTest()
/// let input = test.hot("-a^-b-|")                      // values are the characters
/// let numbers = test.cold("-1-2|", values: ["1": 1, "2": 2])
/// let users = test.hot([.value(2, User(name: "Ann")), .value(5, User(name: "Bo")), .finished(7)])
/// ```
///
/// A hot script may mark a subscription: `^` in a diagram, `.subscribed(tick)` in a list. The
/// harness subscribes there, so the events before it are in the past (see
/// ``MarbleTest/start(created:subscribed:cancelled:demand:fileID:filePath:line:column:_:)``).
///
/// - Complexity: O(*n* log *m*) to schedule a script of *n* events on a timeline holding *m*
///   actions; O(*s*) per event for *s* subscribers of a hot publisher.
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
  // Invariant: `lock` guards every `var`; subscribers are called, and anything they gave us is
  // released, only after unlocking.
  private let lock = Lock()
  private let test: MarbleTest
  private let script: PublisherScript<Output, Failure>
  private let isHot: Bool
  private var records: [SubscriptionRecord] = []
  private var dropped = 0
  private var live: [Conduit] = []

  /// The tick a hot script marks for the subscription (`^` or `.subscribed(tick)`), if any.
  public let markedSubscription: Int?

  init(
    test: MarbleTest, script: [Recorded<Output, Failure>], hot: Bool, source: String,
    location: CallSite
  ) {
    self.test = test
    self.isHot = hot
    let checked = PublisherScript(checking: script, hot: hot, source: source)
    for problem in checked.problems { location.report(problem) }
    self.script = checked
    self.markedSubscription = checked.marker
    if hot {
      if let marker = checked.marker { test.markSubscription(at: marker, by: source) }
      schedule(from: 0, to: nil)
    }
  }

  /// When each subscriber subscribed and cancelled, in ticks.
  ///
  /// ```swift
  /// let output = test.start(cancelled: 7) { input }
  /// #expect(input.subscriptions == [SubscriptionRecord(subscribed: 3, cancelled: 7)])
  /// ```
  public var subscriptions: [SubscriptionRecord] { lock.withLock { records } }

  /// How many values were dropped because a subscriber had not asked for them.
  public var droppedValues: Int { lock.withLock { dropped } }

  /// Subscribes `subscriber`: records the subscription, and for a cold publisher starts its
  /// script from now.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    let conduit = Conduit(AnySubscriber(subscriber), owner: self)
    lock.withLock {
      live.append(conduit)
      records.append(SubscriptionRecord(subscribed: test.currentTick))
      conduit.recordIndex = records.count - 1
    }
    subscriber.receive(subscription: conduit)
    if !isHot { schedule(from: test.currentTick, to: conduit) }
  }

  /// Schedules the script's events from tick `start`, for one conduit (cold; the events keep
  /// the publisher alive, as a subscription keeps its upstream) or for all (hot, from now on:
  /// the events before now are in the past).
  private func schedule(from start: Int, to conduit: Conduit?) {
    let now = test.currentTick
    for (tick, event) in script.events {
      if let conduit {
        test.at(start + tick) { self.deliver(event, to: conduit) }
      } else if tick >= now {
        test.at(tick) { [weak self] in
          guard let self else { return }
          for target in self.lock.withLock({ self.live }) { self.deliver(event, to: target) }
        }
      }
    }
  }

  private func deliver(_ event: PublisherScript<Output, Failure>.Event, to conduit: Conduit) {
    switch event {
    case .value(let value):
      if !conduit.send(value) { lock.withLock { dropped += 1 } }
    case .completion(let completion):
      conduit.complete(completion)
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
    // Invariant: `lock` guards `subscriber`, `demand` and `owner`; the subscriber is called, and
    // `subscriber` and `owner` released, only after unlocking. The owner's lock guards
    // `recordIndex`.
    private let lock = Lock()
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

    /// What to do with a value.
    private enum Decision {
      case over, drop
      case send(AnySubscriber<Output, Failure>)
    }

    /// Sends `value` if it was asked for; answers false if it was dropped.
    func send(_ value: Output) -> Bool {
      let decision = lock.withLock { () -> Decision in
        guard let subscriber else { return .over }
        guard demand > .none else { return .drop }
        demand -= 1
        return .send(subscriber)
      }
      switch decision {
      case .over: return true  // not a drop
      case .drop: return false
      case .send(let subscriber):
        let more = subscriber.receive(value)
        lock.withLock { demand += more }
        return true
      }
    }

    func complete(_ completion: Subscribers.Completion<Failure>) {
      let (subscriber, owner) = end()
      guard let subscriber else { return }
      owner?.ended(self, cancelled: false)
      subscriber.receive(completion: completion)
    }

    func cancel() {
      let (subscriber, owner) = end()
      if subscriber != nil { owner?.ended(self, cancelled: true) }
    }

    /// Ends the subscription and hands back what it held, to be released after unlocking.
    private func end() -> (AnySubscriber<Output, Failure>?, TestPublisher?) {
      lock.withLock {
        defer { (subscriber, owner) = (nil, nil) }
        return (subscriber, owner)
      }
    }
  }
}
