import TempoCore

extension Clock {
  /// An async sequence of this clock's time, one element every `interval`.
  ///
  /// ```swift
  /// for await _ in clock.timer(interval: .seconds(1)) {
  ///   count += 1
  /// }
  /// ```
  ///
  /// Ticks are due at fixed instants (`start + interval`, `start + 2 × interval`, …), so a late
  /// consumer never makes later ticks drift. The sequence ends when its task is cancelled. An
  /// interval of zero or less is reported as an issue and the sequence ends at once instead of
  /// spinning.
  public func timer(
    interval: Duration,
    tolerance: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> ClockTimer<Self> {
    ClockTimer(
      clock: self, interval: interval, tolerance: tolerance,
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The ticks of a clock's `timer(interval:tolerance:)`.
///
/// ```swift
/// let ticks: ClockTimer<TestClock<Duration>> = clock.timer(interval: .seconds(1))
/// ```
public struct ClockTimer<C: Clock>: AsyncSequence, Sendable {
  /// The instant of each tick, read from the clock when it fires.
  public typealias Element = C.Instant

  let clock: C
  let interval: C.Duration
  let tolerance: C.Duration?
  let location: SourceLocation

  /// Starts the ticks: the first is due one interval from now.
  public func makeAsyncIterator() -> Iterator {
    Iterator(timer: self)
  }

  /// Sleeps until each tick is due.
  public struct Iterator: AsyncIteratorProtocol {
    private let timer: ClockTimer
    private var deadline: C.Instant?

    init(timer: ClockTimer) {
      self.timer = timer
      if timer.interval > .zero {
        self.deadline = timer.clock.now.advanced(by: timer.interval)
      } else {
        timer.location.report(
          "A clock timer was asked to tick every \(timer.interval). The interval must be "
            + "greater than zero, so the timer ends at once."
        )
      }
    }

    /// The instant of the next tick, or `nil` once the task is cancelled.
    public mutating func next() async -> C.Instant? {
      guard let due = deadline else { return nil }
      do {
        try await timer.clock.sleep(until: due, tolerance: timer.tolerance)
      } catch {
        deadline = nil
        return nil
      }
      deadline = due.advanced(by: timer.interval)
      return timer.clock.now
    }
  }
}
