import TempoCore
import TempoSupport

/// A scheduler that fails the current test whenever it is used.
///
/// Give a feature an unimplemented scheduler in a test of a path that should not schedule
/// anything. The test then documents that the path is free of asynchrony, and fails the day
/// that stops being true:
///
/// ```swift
/// func testFavoriteButton() {
///   let model = CurrencyViewModel(apiClient: .mock, mainQueue: .unimplemented)
///   model.currency = .mock
///   model.favoriteButtonTapped()
///   XCTAssertEqual(model.currency?.isFavorite, true)
/// }
/// ```
///
/// Each use (reading `now` or `minimumTolerance`, or scheduling) reports an issue through
/// IssueReporting, which fails XCTest and Swift Testing tests alike. Scheduled actions never
/// run. `now` answers the instant the scheduler was created with, so that code reading it can
/// go on after the report.
public struct UnimplementedScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler,
  Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // Invariant: `storedNow` is set once in `init` and only copied out by `now`; the time value
  // itself is never mutated or shared by reference.
  private let storedNow: UncheckedSendable<SchedulerTimeType>
  /// Where the scheduler was created, when the factory could know it.
  private let location: SourceLocation?

  /// A word that starts every issue this scheduler reports, to tell several apart.
  public let prefix: String

  /// The minimum tolerance; reading it reports an issue.
  public var minimumTolerance: SchedulerTimeType.Stride {
    report("A scheduler's minimum tolerance was read.")
    return .zero
  }

  /// The scheduler's time; reading it reports an issue.
  public var now: SchedulerTimeType {
    report("A scheduler's current time was read.")
    return storedNow.value
  }

  /// Creates an unimplemented scheduler.
  ///
  /// ```swift
  /// let scheduler = UnimplementedSchedulerOf<DispatchQueue>(
  ///   "mainQueue", now: .init(.init(uptimeNanoseconds: 1))
  /// )
  /// ```
  ///
  /// - Parameters:
  ///   - prefix: A word that starts each issue, such as the name of the dependency.
  ///   - now: The time to answer when `now` is read.
  ///   - fileID: The file issues point at; by default the caller's.
  ///   - filePath: The file path issues point at; by default the caller's.
  ///   - line: The line issues point at; by default the caller's.
  ///   - column: The column issues point at; by default the caller's.
  public init(
    _ prefix: String = "",
    now: SchedulerTimeType,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.prefix = prefix
    self.storedNow = UncheckedSendable(now)  // Invariant: see `storedNow`.
    self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Creates an unimplemented scheduler for a factory that cannot know its caller.
  init(_ prefix: String, now: SchedulerTimeType, location: SourceLocation?) {
    self.prefix = prefix
    self.storedNow = UncheckedSendable(now)  // Invariant: see `storedNow`.
    self.location = location
  }

  /// Reports an issue; `action` never runs.
  public func schedule(options _: SchedulerOptions?, _ action: @escaping () -> Void) {
    report("An action was scheduled.")
  }

  /// Reports an issue; `action` never runs.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance _: SchedulerTimeType.Stride,
    options _: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    report("An action was scheduled after \(readable(date)).")
  }

  /// Reports an issue; `action` never runs.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance _: SchedulerTimeType.Stride,
    options _: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    report(
      "An action was scheduled after \(readable(date)), repeating every \(readable(interval)).")
    return AnyCancellable {}
  }

  private func report(_ what: String) {
    let name = prefix.isEmpty ? "Unimplemented scheduler" : "Unimplemented scheduler: \(prefix)"
    let message =
      "\(name) - \(what) This scheduler stands in for code that should not use a scheduler; "
      + "give the feature a test or immediate scheduler if it is meant to."
    if let location {
      location.report(message)
    } else {
      // A factory that takes no source location made this scheduler: see `Factories.swift`.
      reportTempoIssue(
        message + " (It was created by a factory that cannot know the line that called it; "
          + "`AnySchedulerOf<…>.unimplemented(\"name\")` or `UnimplementedScheduler(\"name\", "
          + "now:)` points its issues at the line that creates it.)")
    }
  }
}

/// An unimplemented scheduler with the same time and options types as `Scheduler`.
///
/// ```swift
/// let scheduler: UnimplementedSchedulerOf<DispatchQueue> = .unimplemented("mainQueue")
/// ```
public typealias UnimplementedSchedulerOf<Scheduler> = UnimplementedScheduler<
  Scheduler.SchedulerTimeType, Scheduler.SchedulerOptions
> where Scheduler: _CombineScheduler

extension AnyScheduler where SchedulerTimeType: _TempoEpochTime {
  /// An unimplemented scheduler with these time and options types, type-erased.
  ///
  /// ```swift
  /// let model = CurrencyViewModel(scheduler: .unimplemented)   // AnySchedulerOf<DispatchQueue>
  /// ```
  public static var unimplemented: Self {
    UnimplementedScheduler("", now: SchedulerTimeType._tempoEpoch, location: nil)
      .eraseToAnyScheduler()
  }

  /// An unimplemented scheduler with these time and options types whose issues start with
  /// `prefix`, type-erased.
  public static func unimplemented(
    _ prefix: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    UnimplementedScheduler(
      prefix, now: SchedulerTimeType._tempoEpoch,
      fileID: fileID, filePath: filePath, line: line, column: column
    ).eraseToAnyScheduler()
  }
}
