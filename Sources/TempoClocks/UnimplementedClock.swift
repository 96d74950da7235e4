import TempoCore
import TempoSupport

/// A clock that fails the current test whenever it is used, and otherwise behaves like the
/// clock it wraps.
///
/// Give a feature an unimplemented clock in a test of a path that should not wait for time:
/// the test documents that, and fails the day it stops being true.
///
/// ```swift
/// func testFavorite() async {
///   let model = FeatureModel(clock: .unimplemented())
///   model.favoriteButtonTapped()   // any sleep, or read of `now`, fails the test
/// }
/// ```
///
/// Each use (`now`, `minimumResolution`, `sleep`) reports an issue through IssueReporting and is
/// then forwarded to the wrapped clock (an ``ImmediateClock`` by default), so that the code under
/// test can go on after the report.
public struct UnimplementedClock<Duration: DurationProtocol & Hashable>: Clock {
  /// An instant of the wrapped clock.
  public struct Instant: InstantProtocol {
    /// The wrapped clock's instant.
    public let rawValue: AnyClock<Duration>.Instant

    /// The instant `duration` after this one.
    public func advanced(by duration: Duration) -> Self {
      .init(rawValue: rawValue.advanced(by: duration))
    }

    /// The duration from this instant to `other`.
    public func duration(to other: Self) -> Duration {
      rawValue.duration(to: other.rawValue)
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Self, rhs: Self) -> Bool {
      lhs.rawValue < rhs.rawValue
    }
  }

  let base: AnyClock<Duration>
  private let name: String
  private let location: SourceLocation

  /// Wraps `base`, reporting every use.
  ///
  /// ```swift
  /// let clock = UnimplementedClock(ContinuousClock(), name: "feature.clock")
  /// ```
  public init<C: Clock>(
    _ base: C,
    name: String = "\(C.self)",
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where C.Duration == Duration {
    self.base = AnyClock(base)
    self.name = name
    self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Wraps an ``ImmediateClock`` starting at `now`, reporting every use.
  public init(
    name: String = "Clock",
    now: ImmediateClock<Duration>.Instant = .init(),
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      ImmediateClock(now: now), name: name,
      fileID: fileID, filePath: filePath, line: line, column: column
    )
  }

  /// The wrapped clock's time; reading it reports an issue.
  public var now: Instant {
    report("now")
    return Instant(rawValue: base.now)
  }

  /// The wrapped clock's resolution; reading it reports an issue.
  public var minimumResolution: Duration {
    report("minimumResolution")
    return base.minimumResolution
  }

  /// Reports an issue, then sleeps on the wrapped clock.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    report("sleep")
    try await base.sleep(until: deadline.rawValue, tolerance: tolerance)
  }

  private func report(_ member: String) {
    location.report(
      "Unimplemented: \(name).\(member) - this clock stands in for code that should not use a "
        + "clock; give the feature a test or immediate clock if it is meant to."
    )
  }
}

extension UnimplementedClock where Duration == Swift.Duration {
  /// An unimplemented clock of `Swift.Duration` named `name`.
  ///
  /// ```swift
  /// let model = FeatureModel(clock: UnimplementedClock(name: "FeatureModel.clock"))
  /// ```
  ///
  /// This initializer takes no source location, like swift-clocks' of the same shape, so that
  /// where both libraries are visible the call is ambiguous rather than quietly theirs (a
  /// function with fewer parameters wins the overload). Its issues point at this library's
  /// source; `.unimplemented("name")` and ``init(_:name:fileID:filePath:line:column:)`` point
  /// them at the line that creates the clock.
  public init(name: String = "Clock") {
    self.init(name: name, now: .init())
  }
}

extension Clock where Self == UnimplementedClock<Swift.Duration> {
  /// A new unimplemented clock.
  ///
  /// ```swift
  /// let model = FeatureModel(clock: .unimplemented("FeatureModel.clock"))
  /// ```
  public static func unimplemented(
    _ name: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    UnimplementedClock(name: name, fileID: fileID, filePath: filePath, line: line, column: column)
  }
  /// A new unimplemented clock whose issues point at the line that creates it.
  ///
  /// ```swift
  /// let model = FeatureModel(clock: .unimplemented())
  /// ```
  public static func unimplemented(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    UnimplementedClock(
      name: "Clock", now: .init(), fileID: fileID, filePath: filePath, line: line, column: column)
  }

}
