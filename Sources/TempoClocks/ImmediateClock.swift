import TempoCore
@_spi(TempoInternals) import TempoSupport

/// A clock that does not suspend when asked to sleep: time jumps to the deadline at once.
///
/// Use it where a test does not care how much time passes, only that the work behind a sleep
/// gets done:
///
/// ```swift
/// func testWelcome() async {
///   let model = FeatureModel(clock: ImmediateClock())
///   await model.task()   // sleeps 5 s, returns at once
///   XCTAssertEqual(model.message, "Welcome!")
/// }
/// ```
///
/// `now` moves to each deadline a sleeper asks for, but never backwards: sleeping until an
/// earlier instant leaves `now` where it is. A sleep lets other tasks take a turn (one
/// `Task.yield()`), so a loop of sleeps cannot starve the rest of the test, and it throws
/// `CancellationError` once its task is cancelled.
public final class ImmediateClock<Duration: DurationProtocol & Hashable>: Clock,
  @unchecked Sendable
{
  /// An instant of the clock: the duration since its origin.
  public typealias Instant = OffsetInstant<Duration>

  // Invariant: `lock` guards `currentNow`.
  private let lock = Lock()
  private var currentNow: Instant

  /// The clock's current time: the latest deadline any sleeper asked for.
  public var now: Instant { lock.withLock { currentNow } }

  /// Zero.
  public let minimumResolution: Duration = .zero

  /// Creates an immediate clock starting at `now`.
  ///
  /// ```swift
  /// let clock = ImmediateClock(now: .init(offset: .seconds(100)))
  /// ```
  public init(now: Instant = .init()) {
    self.currentNow = now
  }

  /// Moves `now` to `deadline` (if later) and returns after letting other tasks take a turn.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    lock.withLock {
      if currentNow < deadline { currentNow = deadline }
    }
    await Task.yield()
    try Task.checkCancellation()
  }
}

extension ImmediateClock where Duration == Swift.Duration {
  /// Creates an immediate clock of `Swift.Duration`, starting at its origin.
  public convenience init() {
    self.init(now: .init())
  }
}

extension Clock where Self == ImmediateClock<Swift.Duration> {
  /// A new immediate clock.
  ///
  /// ```swift
  /// let model = FeatureModel(clock: .immediate)
  /// ```
  public static var immediate: Self { ImmediateClock() }
}
