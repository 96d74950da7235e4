public import Foundation
import TempoCore
import TempoTimeline

extension TestClock where Duration == Swift.Duration {
  /// The wall-clock date, moving with the clock: the date it started at (the 1970 epoch unless
  /// set with ``setDate(_:)``) plus the time it has advanced since. On a shared `TestTimeline`,
  /// the timeline's date, the same for every source of it.
  ///
  /// Code that reads the date beside a clock (a token that expires, "saved 5 s ago") sees both
  /// move together:
  ///
  /// ```swift
  /// let clock = TestClock()
  /// clock.setDate(Date(timeIntervalSince1970: 1_800_000_000))
  /// let model = SessionModel(clock: clock, now: clock.dateGenerator)
  /// await clock.advance(by: .seconds(3_600))
  /// #expect(clock.date == Date(timeIntervalSince1970: 1_800_003_600))
  /// ```
  ///
  /// The clock keeps the date exactly, as a `Duration`; a `Date` holds it in a `Double`, good
  /// to about a tenth of a microsecond today.
  public var date: Date {
    Date(tempoSince1970: timeline.wallDate { [origin] in origin.duration(to: $0) })
  }

  /// Sets the wall-clock date, as a device whose clock is changed: no virtual time passes and no
  /// sleeper wakes. Later advances move the date on from there; a date before the current one is
  /// allowed (wall clocks do go back). On a shared `TestTimeline`, it sets the date of every
  /// source of it.
  ///
  /// ```swift
  /// clock.setDate(Date(timeIntervalSince1970: 1_800_000_000))
  /// ```
  public func setDate(_ date: Date) {
    timeline.setWallDate(date.tempoSince1970) { [origin] in origin.duration(to: $0) }
  }

  /// A function that answers ``date``, for code that takes the date as a closure, such as
  /// swift-dependencies' `DateGenerator` (`DateGenerator(clock.dateGenerator)`).
  public var dateGenerator: @Sendable () -> Date { { [self] in date } }
}
