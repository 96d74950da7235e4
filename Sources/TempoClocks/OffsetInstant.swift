package import TempoCore

/// An instant of a Tempo clock: a duration since the clock's origin.
///
/// ``TestClock``, ``ImmediateClock`` and ``AnyClock`` measure time this way, each from its own
/// origin; their `Instant` is this type.
///
/// ```swift
/// let clock = TestClock(now: .init(offset: .seconds(10)))
/// clock.now.offset   // 10 seconds
/// ```
public struct OffsetInstant<Duration: DurationProtocol & Hashable>: InstantProtocol,
  CustomStringConvertible
{
  /// The time since the clock's origin.
  public let offset: Duration

  /// Creates the instant `offset` after the clock's origin.
  public init(offset: Duration = .zero) {
    self.offset = offset
  }

  /// The instant `duration` after this one.
  public func advanced(by duration: Duration) -> Self {
    .init(offset: offset + duration)
  }

  /// The duration from this instant to `other`.
  public func duration(to other: Self) -> Duration {
    other.offset - offset
  }

  /// Whether `lhs` comes before `rhs`.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.offset < rhs.offset
  }

  /// The offset from the clock's origin, such as `"5.0 seconds"`.
  public var description: String { "\(offset)" }
}

extension OffsetInstant: TimelineKeyed where Duration: TimelineKeyed {
  package var timelineKey: TimelineKey { offset.timelineKey }

  package init(timelineKey: TimelineKey) {
    self.init(offset: Duration(timelineKey: timelineKey))
  }
}
