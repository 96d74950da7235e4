// swift-tools-version: 6.1

// Tempo beside swift-dependencies with its default traits, which bring and re-export
// combine-schedulers and swift-clocks (as in a project that uses the Composable Architecture).
// Checks that every spelling of a test, immediate or unimplemented scheduler or clock either
// means Tempo's type or fails to compile: the tests compile the spellings that must mean Tempo's,
// and check-ambiguities.sh builds each file of MustNotCompile/ in the Snippet targets and expects the
// compile error written at its top. Run by ../../.ci/run.

import Foundation
import PackageDescription

// A package that depends on another by path refers to it by the name of its directory.
let tempo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let tempoProducts: [Target.Dependency] = [
  .product(name: "TempoSchedulers", package: tempo),
  .product(name: "TempoClocks", package: tempo),
  .product(name: "TempoTestSupport", package: tempo),
  .product(name: "Dependencies", package: "swift-dependencies"),
]

let package = Package(
  name: "TempoDefaultTraitsChecks",
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
  dependencies: [
    .package(path: "../.."),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
  ],
  targets: [
    .testTarget(
      name: "DefaultTraitsTests",
      dependencies: tempoProducts,
      swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
    ),
    // One snippet at a time is copied into each of these by check-ambiguities.sh.
    .target(
      name: "Snippet",
      dependencies: tempoProducts,
      swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
    ),
    .target(name: "SnippetWithoutMemberImportVisibility", dependencies: tempoProducts),
  ],
  swiftLanguageModes: [.v6]
)
