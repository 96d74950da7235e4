/// A type-erased clock.
///
/// Hold an `AnyClock` where a stored property needs a concrete clock type but callers should
/// choose the clock:
///
/// ```swift
/// struct Dependencies {
///   var clock: AnyClock<Duration>
/// }
/// let live = Dependencies(clock: AnyClock(ContinuousClock()))
/// let test = Dependencies(clock: AnyClock(TestClock()))
/// ```
///
/// Its instants count from the moment it was created: `now` is the duration the wrapped clock
/// has moved since then, so clocks with different instant types look alike.
public final class AnyClock<Duration: DurationProtocol & Hashable>: Clock {
  /// An instant of the erased clock: the duration since it was wrapped.
  public typealias Instant = OffsetInstant<Duration>

  private let minimumResolutionGetter: @Sendable () -> Duration
  private let nowGetter: @Sendable () -> Instant
  private let sleepUntil: @Sendable (Instant, Duration?) async throws -> Void

  /// Wraps `clock`.
  public init<C: Clock>(_ clock: C) where C.Duration == Duration {
    let origin = clock.now
    self.minimumResolutionGetter = { clock.minimumResolution }
    self.nowGetter = { Instant(offset: origin.duration(to: clock.now)) }
    self.sleepUntil = { deadline, tolerance in
      try await clock.sleep(until: origin.advanced(by: deadline.offset), tolerance: tolerance)
    }
  }

  /// The wrapped clock's resolution.
  public var minimumResolution: Duration { minimumResolutionGetter() }

  /// The time since the clock was wrapped, on the wrapped clock.
  public var now: Instant { nowGetter() }

  /// Sleeps on the wrapped clock until `deadline`.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try await sleepUntil(deadline, tolerance)
  }
}
