import IssueReporting
public import TempoClocks
public import TempoSchedulers

/// A virtual-time test bench for publishers and async sequences, written as marble diagrams.
///
/// A tick is a fixed duration (one second by default). The bench has a test scheduler and a
/// test clock on one `TestTimeline`, scripted hot and cold publishers and async streams, a
/// recording subscriber, a one-call harness, and a comparison that prints both timelines when
/// they differ:
///
/// ```swift
/// let test = MarbleTest()
/// let input = test.hot("-a-b----c--|")
/// let output = test.start {
///   input.debounce(for: test.ticks(2), scheduler: test.scheduler)
/// }
/// test.expect(output, "-----b----c|")
/// ```
///
/// Everything runs on the test's thread when you call ``start(created:subscribed:cancelled:demand:_:)``
/// or `advance(ticks:)`; nothing waits for real time.
public final class MarbleTest: Sendable {
  /// The duration of one tick.
  public let tick: Duration
  /// The shared timeline of ``scheduler`` and ``clock``.
  public let timeline: TestTimeline
  /// A test scheduler on the timeline, with dispatch-queue time.
  public let scheduler: TestSchedulerOf<DispatchQueue>
  /// A test clock on the timeline.
  public let clock: TestClock<Duration>

  /// Creates a bench at tick 0.
  public init(tick: Duration = .seconds(1)) {
    precondition(tick > .zero, "a tick must last longer than zero")
    self.tick = tick
    self.timeline = TestTimeline()
    self.scheduler = DispatchQueue.test(timeline: timeline)
    self.clock = TestClock(timeline: timeline)
  }

  /// The scheduler's stride for `count` ticks, for operators that take one.
  public func ticks(_ count: Int) -> DispatchQueue.SchedulerTimeType.Stride {
    .nanoseconds(Int(nanoseconds(of: tick * count)))
  }

  /// The clock's duration of `count` ticks.
  public func duration(ofTicks count: Int) -> Duration { tick * count }

  /// The tick the bench is at now.
  public var currentTick: Int { Int(nanoseconds(of: timeline.now) / nanoseconds(of: tick)) }

  /// Runs `action` at `tick` (or now, if that has passed).
  public func at(_ tick: Int, _ action: @escaping () -> Void) {
    scheduler.schedule(
      after: DispatchQueue.SchedulerTimeType._tempoInstant(elapsed: self.tick * tick), action)
  }

  /// Advances the bench by `count` ticks, running everything due.
  public func advance(ticks count: Int = 1) {
    timeline.advance(by: tick * count)
  }

  /// ``advance(ticks:)`` for async code: after each event, the work it released goes quiet
  /// before the next (deterministically inside a test executor).
  public func advance(ticks count: Int = 1) async {
    await timeline.advance(by: tick * count)
  }

  // MARK: - Recording

  /// A recording subscriber on this bench's ticks; subscribe it to the publisher under test.
  public func record<Input, Failure: Error>(
    _: Input.Type = Input.self, failure _: Failure.Type = Failure.self,
    demand: RecordingDemand = .unlimited
  ) -> RecordingSubscriber<Input, Failure> {
    RecordingSubscriber(test: self, demand: demand)
  }

  /// Subscribes a recording subscriber to `publisher` now and returns it.
  public func record<P: Publisher>(
    _ publisher: P, demand: RecordingDemand = .unlimited
  ) -> RecordingSubscriber<P.Output, P.Failure> {
    let subscriber = RecordingSubscriber<P.Output, P.Failure>(test: self, demand: demand)
    publisher.subscribe(subscriber)
    return subscriber
  }

  /// Creates the publisher at `created`, subscribes a recording subscriber at `subscribed`,
  /// cancels it at `cancelled`, advances to `cancelled`, and returns what it recorded.
  ///
  /// ```swift
  /// let output = test.start(cancelled: 20) { input.delay(for: test.ticks(2), scheduler: test.scheduler) }
  /// ```
  public func start<P: Publisher>(
    created: Int = 0,
    subscribed: Int = 0,
    cancelled: Int = 1_000,
    demand: RecordingDemand = .unlimited,
    _ makePublisher: @escaping () -> P
  ) -> [Recorded<P.Output, P.Failure>] {
    let subscriber = RecordingSubscriber<P.Output, P.Failure>(test: self, demand: demand)
    let made = Made<P>()
    at(created) { made.publisher = makePublisher() }
    at(subscribed) { made.publisher?.subscribe(subscriber) }
    at(cancelled) { subscriber.cancel() }
    let remaining = cancelled - currentTick
    if remaining > 0 { advance(ticks: remaining) } else { advance(ticks: 0) }
    return subscriber.records
  }

  private final class Made<P>: @unchecked Sendable {
    // Invariant: written and read only by actions of the bench's scheduler, one at a time.
    var publisher: P?
  }
}

/// The duration in whole nanoseconds.
func nanoseconds(of duration: Duration) -> Int64 {
  let (seconds, attoseconds) = duration.components
  return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
}
