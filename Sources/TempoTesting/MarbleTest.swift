import IssueReporting
public import TempoClocks
public import TempoSchedulers
@_spi(TempoInternals) import TempoSupport

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
/// Everything runs on the test's thread when you call
/// ``start(created:subscribed:cancelled:demand:fileID:filePath:line:column:_:)`` or
/// `advance(ticks:)`; nothing waits for real time.
///
/// A bench runs one test: its ticks only move forward, so make a new one for each run.
public final class MarbleTest: Sendable {
  /// The duration of one tick.
  public let tick: Duration
  /// The shared timeline of ``scheduler`` and ``clock``.
  public let timeline: TestTimeline
  /// A test scheduler on the timeline, with dispatch-queue time.
  public let scheduler: TestSchedulerOf<DispatchQueue>
  /// A test clock on the timeline.
  public let clock: TestClock<Duration>
  /// The subscriptions that hot inputs mark (`^`), not yet taken by the harness.
  private let marks = Marks()

  /// Creates a bench at tick 0.
  ///
  /// A tick must last at least a nanosecond, in whole nanoseconds; otherwise the bench reports
  /// an issue and uses the nearest tick that works (one second for a tick of zero or less).
  public init(
    tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    let site = CallSite(fileID, filePath, line, column)
    let whole = nanoseconds(of: tick)
    if whole < 1 {
      site.report(
        "A marble tick must last longer than zero, not \(tick); the bench uses one second.")
      self.tick = .seconds(1)
    } else if tick != .nanoseconds(whole) {
      site.report(
        "A marble tick must be a whole number of nanoseconds, not \(tick); the bench uses "
          + "\(whole) ns.")
      self.tick = .nanoseconds(whole)
    } else {
      self.tick = tick
    }
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
  ///
  /// The issues it reports (a value it did not ask for, anything after the end) point at the
  /// line that made it.
  public func record<Input, Failure: Error>(
    _: Input.Type = Input.self, failure _: Failure.Type = Failure.self,
    demand: RecordingDemand = .unlimited,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> RecordingSubscriber<Input, Failure> {
    RecordingSubscriber(
      test: self, demand: demand, site: CallSite(fileID, filePath, line, column))
  }

  /// Subscribes a recording subscriber to `publisher` now and returns it.
  public func record<P: Publisher>(
    _ publisher: P, demand: RecordingDemand = .unlimited,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> RecordingSubscriber<P.Output, P.Failure> {
    let subscriber = RecordingSubscriber<P.Output, P.Failure>(
      test: self, demand: demand, site: CallSite(fileID, filePath, line, column))
    publisher.subscribe(subscriber)
    return subscriber
  }

  /// Creates the publisher at `created`, subscribes a recording subscriber at `subscribed`,
  /// cancels it at `cancelled`, advances to `cancelled`, and returns what it recorded.
  ///
  /// ```swift
  /// let output = test.start(cancelled: 20) {
  ///   input.delay(for: test.ticks(2), scheduler: test.scheduler)
  /// }
  /// ```
  ///
  /// Without `subscribed`, the harness subscribes where a hot input marks the subscription
  /// (`^` in its diagram, `.subscribed(tick)` in its list), or else when it creates the
  /// publisher:
  ///
  /// ```swift
  /// let input = test.hot("-a^-b-|")
  /// let output = test.start { input }      // subscribes at tick 2; `a` is in the past
  /// test.expect(output, "--^-b-|")
  /// ```
  ///
  /// The ticks must come in order (`created` ≤ `subscribed` ≤ `cancelled`) and not be past: a
  /// second `start` on a bench that has already run to tick 1,000 reports an issue and runs
  /// nothing. So do marks that disagree with each other or with `subscribed`.
  public func start<P: Publisher>(
    created: Int = 0,
    subscribed: Int? = nil,
    cancelled: Int = 1_000,
    demand: RecordingDemand = .unlimited,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ makePublisher: @escaping () -> P
  ) -> [Recorded<P.Output, P.Failure>] {
    let site = CallSite(fileID, filePath, line, column)
    let now = currentTick
    let problem: String? =
      if created < now {
        "start creates the publisher at tick \(created), but the bench is already at tick "
          + "\(now): a bench runs one test, and its ticks only move forward. Use a new "
          + "MarbleTest, or give start ticks from \(now) on."
      } else if let subscribed, subscribed < created {
        "start subscribes at tick \(subscribed), before it creates the publisher at tick "
          + "\(created)."
      } else if cancelled < (subscribed ?? created) {
        "start cancels at tick \(cancelled), before it subscribes at tick "
          + "\(subscribed ?? created)."
      } else {
        nil
      }
    if let problem {
      site.report(problem + " Nothing was run.")
      return []
    }
    let subscriber = RecordingSubscriber<P.Output, P.Failure>(
      test: self, demand: demand, site: site)
    let made = Made<P>()
    let subscribe: () -> Void = { made.publisher?.subscribe(subscriber) }
    at(created) { made.publisher = makePublisher() }
    at(subscribed ?? created) {
      guard
        let tick = self.subscriptionTick(
          subscribed: subscribed, created: created, cancelled: cancelled, site: site)
      else { return }
      if tick == self.currentTick { subscribe() } else { self.at(tick, subscribe) }
    }
    at(cancelled) { subscriber.cancel() }
    advance(ticks: max(cancelled - currentTick, 0))
    return subscriber.records
  }

  /// Where the harness subscribes: at `subscribed` if given, else where the hot inputs mark it,
  /// else at `created`; nil (after reporting why) if that is too late.
  private func subscriptionTick(
    subscribed: Int?, created: Int, cancelled: Int, site: CallSite
  ) -> Int? {
    let marks = marks.take()
    guard let first = marks.first else { return subscribed ?? created }
    if let other = marks.first(where: { $0.tick != first.tick }) {
      site.report(
        "\(first.source.capitalizedFirst) marks the subscription at tick \(first.tick), but "
          + "\(other.source) marks it at tick \(other.tick); the harness follows the first.")
    }
    if let subscribed {
      if subscribed != first.tick {
        site.report(
          "start subscribes at tick \(subscribed), but \(first.source) marks the subscription "
            + "at tick \(first.tick).")
      }
      return subscribed
    }
    if first.tick < created {
      site.report(
        "\(first.source.capitalizedFirst) marks the subscription at tick \(first.tick), before "
          + "start creates the publisher at tick \(created); the harness subscribes at "
          + "\(created).")
      return created
    }
    if first.tick >= cancelled {
      site.report(
        "\(first.source.capitalizedFirst) marks the subscription at tick \(first.tick), but "
          + "start cancels at tick \(cancelled); nothing was subscribed.")
      return nil
    }
    return first.tick
  }

  /// Notes that a hot input marks the subscription at `tick`.
  func markSubscription(at tick: Int, by source: String) {
    marks.add(tick: tick, source: source)
  }

  private final class Made<P>: @unchecked Sendable {
    // Invariant: written and read only by actions of the bench's scheduler, one at a time.
    var publisher: P?
  }
}

/// The subscriptions that hot inputs mark, in the order they were made.
private final class Marks: Sendable {
  private let state = LockedBox<[(tick: Int, source: String)]>([])

  func add(tick: Int, source: String) { state.withLock { $0.append((tick, source)) } }

  /// The marks made so far, which the harness now follows.
  func take() -> [(tick: Int, source: String)] {
    state.withLock { marks in
      defer { marks = [] }
      return marks
    }
  }
}

extension String {
  /// The string with its first letter capitalized, to start a sentence.
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// The duration in whole nanoseconds.
func nanoseconds(of duration: Duration) -> Int64 {
  let (seconds, attoseconds) = duration.components
  return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
}
