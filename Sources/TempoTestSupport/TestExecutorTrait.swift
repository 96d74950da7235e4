public import Testing

/// The trait that runs a test, or every test of a suite, inside ``withTestExecutor(isolation:includingMainQueueBlocks:_:)``.
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
@available(TempoTestExecutor 1.0, *)
public struct TestExecutorTrait: TestTrait, SuiteTrait, TestScoping {
  /// Applied to a suite, the trait applies to every test in it.
  public var isRecursive: Bool { true }

  /// Runs each test case inside ``withTestExecutor(isolation:includingMainQueueBlocks:_:)``.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    guard testCase != nil else { return try await function() }
    try await withTestExecutor { try await function() }
  }
}

@available(TempoTestExecutor 1.0, *)
extension Trait where Self == TestExecutorTrait {
  /// Runs the test, or each test of the suite, on its own test executor (see
  /// ``withTestExecutor(isolation:includingMainQueueBlocks:_:)``).
  public static var testExecutor: Self { Self() }
}
