import TempoCore
import TempoTimeline

extension TestScheduler where SchedulerTimeType: _TempoEpochTime {
  /// The wall-clock date, moving with the scheduler: the date it started at (the 1970 epoch
  /// unless set with ``setDate(_:)``) plus the time it has advanced since. On a shared
  /// `TestTimeline`, the timeline's date, the same for every source of it.
  ///
  /// A feature that stamps events with the date while it debounces on a scheduler sees both
  /// move together:
  ///
  /// ```swift
  /// let mainQueue = DispatchQueue.test
  /// mainQueue.setDate(Date(timeIntervalSince1970: 1_800_000_000))
  /// let model = NotesModel(mainQueue: mainQueue.eraseToAnyScheduler(), now: mainQueue.dateGenerator)
  /// mainQueue.advance(by: .seconds(2))
  /// XCTAssertEqual(mainQueue.date, Date(timeIntervalSince1970: 1_800_000_002))
  /// ```
  ///
  /// `RunLoop.test` and `OperationQueue.test` start at the 1970 epoch, so by default their
  /// `date` is their `now.date`. The scheduler keeps its position exactly, as its start plus a
  /// `Duration`, and derives `now` and `date` from it with one rounding, so neither drifts
  /// however many steps a test takes (a `Date` holds its time in a `Double`, good to about a
  /// tenth of a microsecond today; `RunLoop` and `OperationQueue` time is kept to the
  /// microsecond).
  public var date: Date {
    Date(tempoSince1970: timeline.wallDate { [start] in elapsed(from: start, to: $0) })
  }

  /// Sets the wall-clock date, as a device whose clock is changed: no virtual time passes and
  /// nothing runs. Later advances move the date on from there; a date before the current one is
  /// allowed (wall clocks do go back). On a shared `TestTimeline`, it sets the date of every
  /// source of it.
  ///
  /// ```swift
  /// scheduler.setDate(Date(timeIntervalSince1970: 1_800_000_000))
  /// ```
  public func setDate(_ date: Date) {
    timeline.setWallDate(date.tempoSince1970) { [start] in elapsed(from: start, to: $0) }
  }
}

// A `@Sendable` closure that reads a generic scheduler's date uses its time type's metatype,
// which Swift 6.2 and later check for `SendableMetatype` (every concrete time type is one).
#if compiler(>=6.2)
  extension TestScheduler where SchedulerTimeType: _TempoEpochTime & SendableMetatype {
    /// A function that answers ``date``, for code that takes the date as a closure, such as
    /// swift-dependencies' `DateGenerator` (`DateGenerator(scheduler.dateGenerator)`).
    public var dateGenerator: @Sendable () -> Date { { [self] in date } }
  }
#else
  extension TestScheduler where SchedulerTimeType: _TempoEpochTime {
    /// A function that answers ``date``, for code that takes the date as a closure, such as
    /// swift-dependencies' `DateGenerator` (`DateGenerator(scheduler.dateGenerator)`).
    public var dateGenerator: @Sendable () -> Date { { [self] in date } }
  }
#endif

/// The virtual time from `start` to `now`.
private func elapsed<Time: _TempoEpochTime>(from start: Time, to now: Time) -> Duration {
  now._tempoElapsed - start._tempoElapsed
}
