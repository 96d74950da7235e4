// swift-tools-version: 6.1

import PackageDescription

// Where the test executor runs, written once: `@available(TempoTestExecutor 1.0, *)` in the code.
// It needs the runtime's main-executor hooks, which first shipped with the Swift 6.1 runtime
// (macOS 15.4, iOS and tvOS 18.4, watchOS 11.4, visionOS 2.4); earlier systems settle by the
// fallback. Everything else needs only `Clock` and `Duration` (iOS 16), the minimums below.
let testExecutorAvailability =
  "AvailabilityMacro=TempoTestExecutor 1.0:macOS 15.4, iOS 18.4, tvOS 18.4, watchOS 11.4, visionOS 2.4"
// The first systems whose Swift runtime may sign its executor hooks with a schema of their own
// (swiftlang/swift#91738), which Tempo cannot verify: in an arm64e process there, the test
// executor installs no hook and falls back (`RuntimeHooks.signing`).
let unverifiedHookSigning =
  "AvailabilityMacro=TempoUnverifiedHookSigning 1.0:macOS 27, iOS 27, tvOS 27, watchOS 27, visionOS 27"
// The first systems whose runtime hands the system clocks' sleeps to a task executor
// (`SchedulingExecutor`): where `TestClock.controlSystemSleeps()` can take them.
let systemSleepsAvailability =
  "AvailabilityMacro=TempoSystemSleeps 1.0:macOS 26.4, iOS 26.4, tvOS 26.4, watchOS 26.4, visionOS 26.4"

let package = Package(
  name: "Tempo",
  platforms: [
    .iOS(.v16),
    .macOS(.v13),
    .tvOS(.v16),
    .watchOS(.v9),
  ],
  products: [
    .library(name: "TempoSchedulers", targets: ["TempoSchedulers"]),
    .library(name: "TempoClocks", targets: ["TempoClocks"]),
    .library(name: "TempoTestSupport", targets: ["TempoTestSupport"]),
    .library(name: "TempoTesting", targets: ["TempoTesting"]),
    // Tempo's schedulers and clocks as swift-dependencies' `\.mainQueue`, `\.mainRunLoop`,
    // `\.continuousClock` and `\.suspendingClock`: empty unless the SwiftDependencies trait is on.
    .library(name: "TempoDependencies", targets: ["TempoDependencies"]),
    .executable(name: "tempo-demo", targets: ["tempo-demo"]),
  ],
  traits: [
    .trait(
      name: "SwiftDependencies",
      description: """
        The TempoDependencies library, for users of swift-dependencies. It brings \
        swift-dependencies (without its Clocks and CombineSchedulers traits) and swift-syntax, \
        which nobody fetches unless this trait is on.
        """
    )
  ],
  dependencies: [
    .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    // `swift package generate-documentation`: a command plugin, never linked into a product.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    // Only for the SwiftDependencies trait. Without its Clocks and CombineSchedulers traits,
    // swift-dependencies neither brings nor re-exports swift-clocks and combine-schedulers, whose
    // names are Tempo's too (the article "Using Tempo with swift-dependencies").
    .package(
      url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1",
      traits: ["Foundation", "FoundationNetworking"]
    ),
  ],
  targets: [
    // Package-internal targets: their API is `package`, so it is never part of Tempo's public
    // surface. From the bottom up: support (lock, source locations, the platform's C library),
    // the test executor's runtime, and the virtual timeline shared by the test schedulers and the
    // test clocks.
    .target(
      name: "TempoSupport",
      dependencies: [
        "TempoFutex",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    // The futex lock TempoSupport's mutex is on Linux (empty elsewhere).
    .target(name: "TempoFutex"),
    // The runtime's executor hooks as C function pointer types, which Swift signs and calls as
    // the runtime expects under pointer authentication (arm64e).
    .target(name: "TempoRuntimeABI"),
    // The engine: heap, timeline, drive loop. It knows nothing of tasks or executors: it asks
    // for quiet through protocols of its own (`TestScope`, `Quiescence`), which the test
    // executor implements.
    .target(
      name: "TempoCore",
      dependencies: [
        "TempoSupport",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "TempoExecutor",
      dependencies: ["TempoCore", "TempoRuntimeABI", "TempoSupport"],
      // The contributor's page of the test executor, read on the repository, not built.
      exclude: ["README.md"]
    ),
    // `TestTimeline`, one virtual time for several test clocks and test schedulers: public, and
    // re-exported by both fronts.
    .target(
      name: "TempoTimeline",
      dependencies: ["TempoCore", "TempoExecutor", "TempoSupport"]
    ),
    .target(
      name: "TempoSchedulers",
      dependencies: [
        "TempoCore",
        "TempoExecutor",
        "TempoSupport",
        "TempoTimeline",
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
        "TempoExecutor",
        "TempoSupport",
        "TempoTimeline",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    // Link this from test targets: it brings the piece of IssueReporting that lets a reported
    // issue fail a Swift Testing test (on Linux it is otherwise only printed).
    // The load-time constructor that registers TempoTestSupport's XCTest observer before the
    // first test starts (C: Swift has no constructors).
    .target(name: "TempoTestSupportLoader"),
    .target(
      name: "TempoTestSupport",
      dependencies: [
        "TempoExecutor",
        "TempoTestSupportLoader",
        "TempoSupport",
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
        "TempoSupport",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "TempoDependencies",
      dependencies: [
        "TempoClocks",
        "TempoSchedulers",
        .product(
          name: "Dependencies", package: "swift-dependencies",
          condition: .when(traits: ["SwiftDependencies"])
        ),
      ]
    ),
    .executableTarget(
      name: "tempo-demo",
      // No TempoTestSupport: it imports Testing, and on Apple platforms an executable that
      // links a test framework may not launch outside a test bundle.
      dependencies: ["TempoSchedulers", "TempoClocks"]
    ),
    // Helpers shared by the test targets below (issue expectations, waiting on a state).
    .target(
      name: "TempoTestHelpers",
      dependencies: [
        "TempoCore",
        "TempoExecutor",
        "TempoTestSupport",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ],
      path: "Tests/TempoTestHelpers"
    ),
    // Async features driven by a test clock, shared with the stress run in Benchmarks/.
    .target(name: "TempoScenarios", path: "Tests/TempoScenarios"),
    // One test target per module, bottom up; a test that needs a front to drive the engine
    // depends on it.
    .testTarget(
      name: "TempoSupportTests",
      dependencies: ["TempoSupport", "TempoTestHelpers"]
    ),
    .testTarget(
      name: "TempoExecutorTests",
      dependencies: [
        "TempoClocks", "TempoCore", "TempoExecutor", "TempoScenarios", "TempoSupport",
        "TempoTestHelpers", "TempoTestSupport",
      ]
    ),
    .testTarget(
      name: "TempoCoreTests",
      dependencies: ["TempoCore", "TempoSchedulers", "TempoSupport", "TempoTestHelpers"]
    ),
    .testTarget(
      name: "TempoTimelineTests",
      dependencies: [
        "TempoClocks", "TempoSchedulers", "TempoTestHelpers", "TempoTestSupport", "TempoTimeline",
      ]
    ),
    .testTarget(
      name: "TempoSchedulersTests",
      dependencies: [
        "TempoClocks", "TempoCore", "TempoSchedulers", "TempoSupport", "TempoTestHelpers",
      ]
    ),
    .testTarget(
      name: "TempoClocksTests",
      dependencies: ["TempoClocks", "TempoTestHelpers", "TempoTestSupport"]
    ),
    .testTarget(
      name: "TempoTestSupportTests",
      dependencies: [
        "TempoClocks", "TempoExecutor", "TempoSchedulers", "TempoTestHelpers", "TempoTestSupport",
      ]
    ),
    .testTarget(
      name: "TempoTestingTests",
      dependencies: ["TempoSupport", "TempoTesting", "TempoTestHelpers"]
    ),
    // The README examples of combine-schedulers and swift-clocks, with only the import changed.
    .testTarget(
      name: "TempoSourceCompatibilityTests",
      dependencies: ["TempoSchedulers", "TempoClocks", "TempoTestSupport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// Tempo's checks of its own bugs (invariants after every event of a state machine, the order
// in which a thread takes locks, the count of locks it holds) run in Tempo's own tests and CI,
// never in a user's debug build: `TEMPO_INTERNAL_CHECKS=1 swift test` turns them on, as
// `.ci/run` does (ARCHITECTURE.md, "Internal checks").
let internalChecks: [SwiftSetting] =
  Context.environment["TEMPO_INTERNAL_CHECKS"].map { $0 != "0" && !$0.isEmpty } == true
  ? [.define("TEMPO_INTERNAL_CHECKS", .when(configuration: .debug))] : []

for target in package.targets where target.name != "TempoRuntimeABI" {
  target.swiftSettings =
    (target.swiftSettings ?? []) + internalChecks + [
      .enableExperimentalFeature(testExecutorAvailability),
      .enableExperimentalFeature(unverifiedHookSigning),
      .enableExperimentalFeature(systemSleepsAvailability),
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("InternalImportsByDefault"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
