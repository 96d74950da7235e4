// swift-tools-version: 6.0

import PackageDescription

let package = Package(
  name: "Tempo",
  platforms: [
    .iOS(.v15),
    .macOS(.v13),
    .tvOS(.v15),
    .watchOS(.v9),
  ],
  products: [
    .library(name: "TempoSchedulers", targets: ["TempoSchedulers"]),
    .library(name: "TempoClocks", targets: ["TempoClocks"]),
    .library(name: "TempoTestSupport", targets: ["TempoTestSupport"]),
    .library(name: "TempoTesting", targets: ["TempoTesting"]),
    .executable(name: "tempo-demo", targets: ["tempo-demo"]),
  ],
  dependencies: [
    .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
  ],
  targets: [
    // The virtual timeline shared by the test schedulers and the test clocks. Package-internal:
    // its API is `package`, so it is never part of Tempo's public surface.
    .target(
      name: "TempoCore",
      dependencies: [
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay")
      ]
    ),
    .target(
      name: "TempoSchedulers",
      dependencies: [
        "TempoClocks",
        "TempoCore",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(
          name: "OpenCombineShim",
          package: "OpenCombine",
          condition: .when(platforms: [.linux, .android, .windows, .wasi, .openbsd])
        ),
      ]
    ),
    .target(
      name: "TempoClocks",
      dependencies: [
        "TempoCore",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    // Link this from test targets: it brings the piece of IssueReporting that lets a reported
    // issue fail a Swift Testing test (on Linux it is otherwise only printed).
    .target(
      name: "TempoTestSupport",
      dependencies: [
        "TempoCore",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    // Recorded events, scripted publishers and marble diagrams in virtual time, for test targets.
    .target(
      name: "TempoTesting",
      dependencies: [
        "TempoClocks",
        "TempoSchedulers",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .executableTarget(
      name: "tempo-demo",
      dependencies: ["TempoSchedulers", "TempoClocks", "TempoTestSupport"]
    ),
    // Helpers shared by the test targets below (issue expectations, waiting on a state).
    .target(
      name: "TempoTestHelpers",
      dependencies: [
        "TempoTestSupport",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ],
      path: "Tests/TempoTestHelpers"
    ),
    // Async features driven by a test clock, shared with the stress run in Benchmarks/.
    .target(name: "TempoScenarios", path: "Tests/TempoScenarios"),
    .testTarget(
      name: "TempoCoreTests",
      dependencies: ["TempoCore", "TempoTestHelpers"]
    ),
    .testTarget(
      name: "TempoSchedulersTests",
      dependencies: ["TempoSchedulers", "TempoCore", "TempoTestHelpers"]
    ),
    .testTarget(
      name: "TempoTestingTests",
      dependencies: ["TempoTesting", "TempoTestHelpers"]
    ),
    // The README examples of combine-schedulers and swift-clocks, with only the import changed.
    .testTarget(
      name: "TempoSourceCompatibilityTests",
      dependencies: ["TempoSchedulers", "TempoClocks", "TempoTestSupport"]
    ),
    .testTarget(
      name: "TempoClocksTests",
      dependencies: ["TempoClocks", "TempoCore", "TempoScenarios", "TempoTestHelpers"]
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("InternalImportsByDefault"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
