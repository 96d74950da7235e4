/// When a ``TestPublisher`` plays its script: ``HotPlayback`` schedules it once, when the
/// publisher is made, for whoever is subscribed at each tick; ``ColdPlayback`` schedules it for
/// each subscription, from the tick it subscribed.
///
/// ```swift
/// let playback: any ScriptPlayback<String, Never> = HotPlayback(test: test, events: events)
/// playback.start(publisher)                      // schedules the script
/// playback.play(to: subscription, of: publisher) // nothing more to do
/// ```
protocol ScriptPlayback<Output, Failure> {
  associatedtype Output
  associatedtype Failure: Error

  /// `publisher` has just been made.
  func start(_ publisher: TestPublisher<Output, Failure>)

  /// `subscription`'s subscriber has just received it from `publisher`.
  func play(
    to subscription: ScriptedSubscription<Output, Failure>,
    of publisher: TestPublisher<Output, Failure>)
}

/// A hot publisher's playback: the script plays once, at the ticks written, to the
/// subscriptions open at each tick.
struct HotPlayback<Output, Failure: Error>: ScriptPlayback {
  let test: MarbleTest
  let events: [(tick: Int, event: PublisherScript<Output, Failure>.Event)]

  /// Schedules the events from now on (those before now are in the past). They hold the
  /// publisher weakly: its subscriptions keep it alive, or whoever made it.
  func start(_ publisher: TestPublisher<Output, Failure>) {
    let now = test.currentTick
    for (tick, event) in events where tick >= now {
      test.at(tick) { [weak publisher] in publisher?.broadcast(event) }
    }
  }

  /// Nothing to do: the new subscription hears the events still to come.
  func play(
    to subscription: ScriptedSubscription<Output, Failure>,
    of publisher: TestPublisher<Output, Failure>
  ) {}
}

/// A cold publisher's playback: the script plays for each subscription alone, its ticks counted
/// from the subscription.
struct ColdPlayback<Output, Failure: Error>: ScriptPlayback {
  let test: MarbleTest
  let events: [(tick: Int, event: PublisherScript<Output, Failure>.Event)]

  /// Nothing to do until someone subscribes.
  func start(_ publisher: TestPublisher<Output, Failure>) {}

  /// Schedules the events for `subscription`, from now. They hold the publisher, as a
  /// subscription keeps its upstream alive.
  func play(
    to subscription: ScriptedSubscription<Output, Failure>,
    of publisher: TestPublisher<Output, Failure>
  ) {
    let start = test.currentTick
    for (tick, event) in events {
      test.at(start + tick) { publisher.deliver(event, to: subscription) }
    }
  }
}
