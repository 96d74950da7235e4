// Members that only Tempo's own tests use.

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Whether a test executor's runtime hooks are installed now.
  package static var hooksAreInstalled: Bool { TestRegistry.hooksAreInstalled }
}
