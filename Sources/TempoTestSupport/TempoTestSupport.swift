// Linking this module is what matters: it brings IssueReporting's test support, which lets an
// issue that Tempo reports fail a Swift Testing test. Without it, on Linux, such an issue is
// only printed ("An issue was recorded without linking the Testing framework") and the test
// passes. Add `TempoTestSupport` to the dependencies of every test target that uses Tempo.

/// A marker for the module that test targets link to make Tempo's reported issues fail
/// Swift Testing tests.
///
/// ```swift
/// .testTarget(
///   name: "FeatureTests",
///   dependencies: ["Feature", .product(name: "TempoTestSupport", package: "Tempo")]
/// )
/// ```
public enum TempoTestSupport {}
