// swift-tools-version: 6.1

// Tempo for users of swift-dependencies: `TempoDependencies` declares the `\.mainQueue`,
// `\.mainRunLoop`, `\.continuousClock` and `\.suspendingClock` dependencies with Tempo's
// schedulers and clocks. A package of its own, so that users of Tempo's core libraries never
// fetch swift-dependencies or swift-syntax. See the article "Using Tempo with swift-dependencies"
// in TempoSchedulers' documentation.

import Foundation
import PackageDescription

// A package that depends on another by path refers to it by the name of its directory.
let tempo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "TempoInterop",
  platforms: [
    .iOS(.v15),
    .macOS(.v13),
    .tvOS(.v15),
    .watchOS(.v9),
  ],
  products: [
    .library(name: "TempoDependencies", targets: ["TempoDependencies"])
  ],
  dependencies: [
    .package(path: ".."),
    // Without its `Clocks` and `CombineSchedulers` traits, swift-dependencies neither brings nor
    // re-exports swift-clocks and combine-schedulers, whose names are Tempo's too.
    .package(
      url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1",
      traits: ["Foundation", "FoundationNetworking"]
    ),
  ],
  targets: [
    .target(
      name: "TempoDependencies",
      dependencies: [
        .product(name: "TempoSchedulers", package: tempo),
        .product(name: "TempoClocks", package: tempo),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // The same tests twice: with the `MemberImportVisibility` upcoming feature (as in this
    // package's other targets) and without it (a target sees every member of every module it
    // links). TempoDependenciesTestsWithoutMemberImportVisibility holds a link to the sources.
    .testTarget(
      name: "TempoDependenciesTests",
      dependencies: [
        "TempoDependencies",
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ],
      swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
    ),
    .testTarget(
      name: "TempoDependenciesTestsWithoutMemberImportVisibility",
      dependencies: [
        "TempoDependencies",
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // The README examples of combine-schedulers and swift-clocks (the root package's
    // Tests/TempoSourceCompatibilityTests, linked), compiled with `import Dependencies` too.
    .testTarget(
      name: "SourceCompatibilityWithDependenciesTests",
      dependencies: [
        "TempoDependencies",
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
