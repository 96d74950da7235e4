// swift-tools-version: 6.1

// The peers' own test suites, run against Tempo: swift-clocks' and combine-schedulers' tests,
// taken from the versions below with only their imports changed (`prepare.sh` writes them into
// Tests/, which git ignores: no code of theirs is committed here). A package of its own, so
// that users of Tempo never fetch the peers. Run from this directory:
//
//   bash prepare.sh && swift test

import Foundation
import PackageDescription

// A package that depends on another by path refers to it by the name of its directory.
let tempo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent.lowercased()
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

/// A suite's target, once `prepare.sh` has written its sources.
func suite(_ name: String, _ dependencies: [Target.Dependency]) -> [Target] {
  guard FileManager.default.fileExists(atPath: "\(here)/Tests/\(name)") else { return [] }
  return [.testTarget(name: name, dependencies: dependencies)]
}

let package = Package(
  name: "TempoPeerSuites",
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
  dependencies: [
    .package(path: ".."),
    // Their tests' sources, at the versions whose API Tempo follows (never linked).
    .package(url: "https://github.com/pointfreeco/swift-clocks", exact: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/combine-schedulers", exact: "1.2.2"),
    // What their tests import besides the library under test.
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
  ],
  targets:
    suite(
      "ClocksTests",
      [
        .product(name: "TempoClocks", package: tempo),
        // As a user links it: the end of each XCTest test is checked for leftover work.
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ])
    + suite(
      "CombineSchedulersTests",
      [
        .product(name: "TempoSchedulers", package: tempo),
        .product(name: "TempoTestSupport", package: tempo),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(
          name: "OpenCombineShim", package: "OpenCombine",
          condition: .when(platforms: [.linux, .android, .windows, .wasi, .openbsd])),
      ]),
  swiftLanguageModes: [.v6]
)
