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
  // Invariant: `lock` guards `machine`, the only `var`; the other properties are set in `init`
  // and never change. Subscriptions and subscribers are called, and anything the machine lets go
  // of is released, only after unlocking.
  private let lock = Lock()
  private var machine = TestPublisherStateMachine<ScriptedSubscription<Output, Failure>>()
  private let test: MarbleTest
  /// Hot or cold: when the script is scheduled, and for whom.
  private let playback: any ScriptPlayback<Output, Failure>

  /// The tick a hot script marks for the subscription (`^` or `.subscribed(tick)`), if any.
  public let markedSubscription: Int?

  init(
    test: MarbleTest, script: [Recorded<Output, Failure>], hot: Bool, source: String,
    location: CallSite
  ) {
    let checked = PublisherScript(checking: script, hot: hot, source: source)
    for problem in checked.problems { location.report(problem) }
    self.test = test
    self.markedSubscription = checked.marker
    self.playback =
      if hot {
        HotPlayback(test: test, events: checked.events)
      } else {
        ColdPlayback(test: test, events: checked.events)
      }
    // Only a hot script has a mark.
    if let marker = checked.marker { test.markSubscription(at: marker, by: source) }
    playback.start(self)
  }

  /// When each subscriber subscribed and cancelled, in ticks.
  ///
  /// ```swift
  /// let output = test.start(cancelled: 7) { input }
  /// #expect(input.subscriptions == [SubscriptionRecord(subscribed: 3, cancelled: 7)])
  /// ```
  public var subscriptions: [SubscriptionRecord] { lock.withLock { machine.records } }

  /// How many values were dropped because a subscriber had not asked for them.
  public var droppedValues: Int { lock.withLock { machine.droppedValues } }

  /// Subscribes `subscriber`: records the subscription, and for a cold publisher starts its
  /// script from now.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    let subscription = ScriptedSubscription(AnySubscriber(subscriber), publisher: self)
    let tick = test.currentTick
    lock.withLock { machine.subscribe(subscription, at: tick) }
    subscriber.receive(subscription: subscription)
    playback.play(to: subscription, of: self)
  }

  /// Plays `event` to every subscription open now, in the order they came.
  func broadcast(_ event: PublisherScript<Output, Failure>.Event) {
    let open = lock.withLock { machine.openSubscriptions }
    for subscription in open { deliver(event, to: subscription) }
  }

  /// Plays `event` to `subscription`, counting a value it did not ask for as dropped.
  func deliver(
    _ event: PublisherScript<Output, Failure>.Event,
    to subscription: ScriptedSubscription<Output, Failure>
  ) {
    switch event {
    case .value(let value):
      if subscription.send(value) == .dropped { lock.withLock { machine.dropValue() } }
    case .completion(let completion):
      subscription.complete(completion)
    }
  }

  /// `subscription` ended: its subscriber cancelled it, or the script completed it.
  func subscriptionEnded(_ subscription: ScriptedSubscription<Output, Failure>, cancelled: Bool) {
    let tick = cancelled ? test.currentTick : nil
    let removed = lock.withLock { machine.end(subscription, cancelledAt: tick) }
    withExtendedLifetime(removed) {}
  }
}
