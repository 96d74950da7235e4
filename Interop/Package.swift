// swift-tools-version: 6.1

// The tests of Tempo beside swift-dependencies: the root package's TempoDependencies library
// (behind its SwiftDependencies trait), and the README examples of combine-schedulers and
// swift-clocks compiled with `import Dependencies`. A package of its own, so that the root
// package's tests build without swift-dependencies and swift-syntax. Run by ../.ci/run.

import Foundation
import PackageDescription

// A package that depends on another by path refers to it by the name of its directory.
let tempo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "TempoInteropTests",
  platforms: [
    .iOS(.v16),
    .macOS(.v13),
    .tvOS(.v16),
    .watchOS(.v9),
  ],
  dependencies: [
    .package(path: "..", traits: ["SwiftDependencies"]),
    // As in the root package: without the Clocks and CombineSchedulers traits.
    .package(
      url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1",
      traits: ["Foundation", "FoundationNetworking"]
    ),
  ],
  targets: [
    // The same tests twice: with the `MemberImportVisibility` upcoming feature (as in this
    // package's other targets) and without it (a target sees every member of every module it
    // links). TempoDependenciesTestsWithoutMemberImportVisibility holds a link to the sources.
    .testTarget(
      name: "TempoDependenciesTests",
      dependencies: [
        .product(name: "TempoDependencies", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ],
      swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
    ),
    .testTarget(
      name: "TempoDependenciesTestsWithoutMemberImportVisibility",
      dependencies: [
        .product(name: "TempoDependencies", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // The README examples of combine-schedulers and swift-clocks (the root package's
    // Tests/TempoSourceCompatibilityTests, linked), compiled with `import Dependencies` too.
    .testTarget(
      name: "SourceCompatibilityWithDependenciesTests",
      dependencies: [
        .product(name: "TempoDependencies", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ],
      swiftSettings: [.define("TEMPO_WITH_DEPENDENCIES")]
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
