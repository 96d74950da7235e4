@_spi(TempoInternals) import TempoSupport
public import Testing

/// The trait that runs a test, or every test of a suite, inside ``withTestExecutor(isolation:includingMainQueueBlocks:leftoverWork:fileID:filePath:line:column:_:)``.
///
/// ```swift
/// @Test(.testExecutor)
/// func welcome() async {
///   let clock = TestClock()
///   let model = FeatureModel(clock: clock)
///   Task { await model.onAppear() }
///   await clock.advance(by: .seconds(5))
///   #expect(model.message == "Welcome!")
/// }
/// ```
///
/// At the end of each test it looks for work the test left behind (see ``LeftoverWork``) and
/// reports it at the test's declaration: `.testExecutor(leftoverWork: .fail)` makes that a
/// failure, `.testExecutor(leftoverWork: .ignore)` turns it off.
@available(TempoTestExecutor 1.0, *)
public struct TestExecutorTrait: TestTrait, SuiteTrait, TestScoping {
  /// What the end of each test does with work it leaves behind.
  public var leftoverWork: LeftoverWork

  /// A trait that checks for leftover work as `leftoverWork` says.
  public init(leftoverWork: LeftoverWork = .warn) {
    self.leftoverWork = leftoverWork
  }

  /// Applied to a suite, the trait applies to every test in it.
  public var isRecursive: Bool { true }

  /// Runs each test case inside ``withTestExecutor(isolation:includingMainQueueBlocks:leftoverWork:fileID:filePath:line:column:_:)``.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    guard testCase != nil else { return try await function() }
    let declaration = test.sourceLocation
    let (_, leftover) = try await withTestScope(
      includingMainQueueBlocks: false, leftoverWork: leftoverWork,
      at: SourceLocation(fileID: #fileID, filePath: #filePath, line: #line, column: #column),
      reportInScope: { Issue.record(Comment(rawValue: $0), sourceLocation: declaration) },
      function)
    guard let leftover else { return }
    let comment = Comment(rawValue: leftover.message + leftover.hint(for: ".testExecutor"))
    #if compiler(>=6.2)
      Issue.record(
        comment, severity: leftover.isWarning ? .warning : .error,
        sourceLocation: test.sourceLocation)
    #else
      if !leftover.isWarning { Issue.record(comment, sourceLocation: test.sourceLocation) }
    #endif
  }
}

@available(TempoTestExecutor 1.0, *)
extension Trait where Self == TestExecutorTrait {
  /// Runs the test, or each test of the suite, on its own test executor (see
  /// ``withTestExecutor(isolation:includingMainQueueBlocks:leftoverWork:fileID:filePath:line:column:_:)``),
  /// and warns about work it leaves behind.
  public static var testExecutor: Self { Self() }

  /// Runs the test, or each test of the suite, on its own test executor, and handles work it
  /// leaves behind as `leftoverWork` says.
  ///
  /// ```swift
  /// @Suite(.testExecutor(leftoverWork: .fail))
  /// struct TimerTests { … }
  /// ```
  public static func testExecutor(leftoverWork: LeftoverWork) -> Self {
    Self(leftoverWork: leftoverWork)
  }
}
