import TempoCore
import TempoSupport

extension Clock {
  /// An async sequence of this clock's time, one element every `interval`.
  ///
  /// ```swift
  /// for await _ in clock.timer(interval: .seconds(1)) {
  ///   count += 1
  /// }
  /// ```
  ///
  /// Ticks are due at fixed instants (`start + interval`, `start + 2 × interval`, …), each
  /// computed from the start rather than from the previous tick, so neither a late consumer nor
  /// the rounding of a floating-point duration type makes later ticks drift; one that missed
  /// several instants gets the next one on the grid, without a burst of catch-up ticks. The
  /// sequence ends when its task is cancelled. An
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

extension Clock where Duration == Swift.Duration {
  /// An async sequence of this clock's time, one element every `interval`, for a clock held as
  /// `any Clock<Duration>`.
  ///
  /// ```swift
  /// let clock: any Clock<Duration> = TestClock()
  /// for await _ in clock.timer(interval: .seconds(1)) {
  ///   count += 1
  /// }
  /// ```
  ///
  /// The ticks are those of ``timer(interval:tolerance:fileID:filePath:line:column:)``, read
  /// through an ``AnyClock``: due at fixed instants, never bunched to catch up. Called on a
  /// clock of a known type, that method is the one chosen.
  @_disfavoredOverload
  public func timer(
    interval: Duration,
    tolerance: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> ClockTimer<AnyClock<Duration>> {
    ClockTimer(
      clock: AnyClock(self), interval: interval, tolerance: tolerance,
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
    /// When the timer started, or nil once it has ended.
    private var start: C.Instant?
    /// The number of the next tick: it is due at `start + ticks × interval`.
    private var ticks = 1

    init(timer: ClockTimer) {
      self.timer = timer
      if timer.interval > .zero {
        self.start = timer.clock.now
      } else {
        timer.location.report(
          "A clock timer was asked to tick every \(timer.interval). The interval must be "
            + "greater than zero, so the timer ends at once."
        )
      }
    }

    /// The instant of the next tick, or `nil` once the task is cancelled.
    ///
    /// A consumer that comes back after several ticks were due gets one tick, at the first due
    /// instant of the grid that has not passed yet, and none for the instants it missed: a late
    /// consumer never receives a burst of ticks to catch up.
    public mutating func next() async -> C.Instant? {
      guard let start else { return nil }
      var due = start.advanced(by: timer.interval * ticks)
      let now = timer.clock.now
      if due < now {
        // Skip the missed instants, staying on the grid `start + k × interval`.
        ticks += Int((due.duration(to: now) / timer.interval).rounded(.down))
        due = start.advanced(by: timer.interval * ticks)
        while due < now {
          ticks += 1
          due = start.advanced(by: timer.interval * ticks)
        }
      }
      do {
        try await timer.clock.sleep(until: due, tolerance: timer.tolerance)
      } catch {
        self.start = nil
        return nil
      }
      ticks += 1
      return timer.clock.now
    }
  }
}
