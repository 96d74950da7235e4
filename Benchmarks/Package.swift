// swift-tools-version: 6.1

// Benchmarks of Tempo side by side with the libraries whose API it follows. A package of its own,
// so that users of Tempo never fetch the peers. Run from this directory:
//
//   swift package --allow-writing-to-package-directory benchmark
//
// and see Thresholds/ and Results.md.

import Foundation
import PackageDescription

// A package that depends on another by path refers to it by the name of its directory.
let tempo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent.lowercased()

let benchmark: Target.Dependency = .product(name: "Benchmark", package: "benchmark")
let plugins: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "benchmark")]

let package = Package(
  name: "TempoBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/pointfreeco/combine-schedulers", exact: "1.2.2"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", exact: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    // Whole tests only: the async-algorithms operators on a test clock, and a model that reads
    // `\.continuousClock` through swift-dependencies. With its default traits, swift-dependencies
    // declares `\.continuousClock` itself (an `any Clock<Duration>`), which both Tempo's and
    // swift-clocks' `TestClock` fill; Tempo's own declaration (TempoDependencies, behind the
    // root package's SwiftDependencies trait) cannot be in the same build.
    .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
  ],
  targets: [
    // The workloads, written once against Combine's `Scheduler` and Swift's `Clock`, so that
    // every implementation runs exactly the same code.
    .target(
      name: "Workloads",
      dependencies: [
        benchmark,
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ]
    ),
    // The floor behind Combine's `Scheduler` API: a scheduler that is only a heap.
    .target(
      name: "CombineFloor",
      dependencies: [
        .product(name: "TempoSchedulers", package: tempo),
        .product(name: "HeapModule", package: "swift-collections"),
      ]
    ),
    // Tempo's scheduler for the workloads, and the floors they are measured against.
    .target(
      name: "TempoUnderTest",
      dependencies: [
        "Workloads", "CombineFloor",
        .product(name: "TempoSchedulers", package: tempo),
        .product(name: "HeapModule", package: "swift-collections"),
      ]
    ),
    .executableTarget(
      name: "TempoBenchmarks",
      dependencies: [
        "Workloads", "TempoUnderTest", benchmark,
        .product(name: "TempoClocks", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
      ],
      path: "Benchmarks/TempoBenchmarks",
      plugins: plugins
    ),
    // The async scenarios of the root package's tests (a symbolic link to
    // Tests/TempoScenarios), and the stress run that repeats them on Tempo and swift-clocks.
    .target(name: "AsyncScenarios"),
    .executableTarget(
      name: "AsyncStress",
      dependencies: [
        "AsyncScenarios",
        .product(name: "TempoClocks", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "Clocks", package: "swift-clocks"),
      ]
    ),
    // One whole test run 2,000 and 200,000 times in one process, with the peak resident size
    // read after each: memory that a test leaves behind.
    .executableTarget(
      name: "MemoryGrowth",
      dependencies: [
        .product(name: "TempoClocks", package: tempo),
        .product(name: "TempoSchedulers", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
      ]
    ),
    // Whole test iterations on Tempo, its peers (swift-clocks and combine-schedulers, plain and
    // on the main serial executor) and the floors, in one run.
    .executableTarget(
      name: "WholeTests",
      dependencies: [
        "AsyncScenarios",
        .product(name: "TempoClocks", package: tempo),
        .product(name: "TempoSchedulers", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
        "CombineFloor",
      ],
      // Each file sees the members of the modules it imports only, so that `DispatchQueue.test`
      // is Tempo's in Tempo.swift and combine-schedulers' in Peers.swift.
      swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
    ),
    // One scheduler workload run once, for instructions.sh to count under Valgrind.
    .executableTarget(
      name: "ClockSteps",
      dependencies: [
        .product(name: "TempoClocks", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ]),
    .executableTarget(
      name: "InstructionCounts",
      dependencies: [
        "Workloads", "TempoUnderTest",
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      // Only what this file imports: TempoSchedulers' and combine-schedulers' timer publishers
      // have the same names.
      swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
    ),
    // Thousands of parameterized Swift Testing cases on a test clock, and the same without time
    // control, in one debug process (suite-scale.sh).
    .testTarget(
      name: "SuiteScale",
      dependencies: [.product(name: "TempoClocks", package: tempo)]
    ),
    // The same for a Combine search test on Tempo's test scheduler, on combine-schedulers', and
    // on an immediate scheduler with no time control.
    .testTarget(
      name: "SuiteScaleCombine",
      dependencies: [
        .product(name: "TempoSchedulers", package: tempo),
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
    ),
    .executableTarget(
      name: "PeerBenchmarks",
      dependencies: [
        "Workloads", benchmark,
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      path: "Benchmarks/PeerBenchmarks",
      plugins: plugins
    ),
  ],
  swiftLanguageModes: [.v6]
)
