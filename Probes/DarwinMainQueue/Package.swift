// swift-tools-version: 6.1

import PackageDescription

// What drains the main queue while a test runs, and whether Tempo sees every main-actor job
// there: the probes of the research note on Darwin's main queue, for a runner with a Mac (the
// job "Darwin main-queue probes" of .github/workflows/apple.yml). Each probe prints one line,
// `PROBE <name>: <what it found>`, and fails nothing: a probe reports, it does not judge. They
// build and run on Linux too (.ci/run builds them), where they describe Linux's main queue.
let package = Package(
  name: "DarwinMainQueueProbes",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  dependencies: [.package(name: "Tempo", path: "../..")],
  targets: [
    .testTarget(
      name: "MainQueueProbes",
      dependencies: [
        .product(name: "TempoClocks", package: "Tempo"),
        .product(name: "TempoTestSupport", package: "Tempo"),
      ]
    )
  ]
)
