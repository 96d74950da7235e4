import Foundation
import XCTest

// P3 and P6 of the research note, under XCTest.

/// P3: the main queue drains during an XCTest test: async, `@MainActor` async, and synchronous
/// with a wait.
final class P3MainQueueUnderXCTest: XCTestCase {
  func testAsync() async {
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    report("P3 async", "the main queue drained while an async XCTest test awaited")
  }

  @MainActor func testMainActorAsync() async {
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    report("P3 @MainActor async", "the main queue drained while the test awaited")
  }

  func testSynchronousWait() {
    let drained = expectation(description: "main queue")
    DispatchQueue.main.async { drained.fulfill() }
    let result = XCTWaiter().wait(for: [drained], timeout: 5)
    report("P3 sync wait", "waiting 5 s for a main-queue block: \(result)")
  }

  /// Whether the body of a `@MainActor` async test is itself a main-queue callout.
  @MainActor func testMainActorAsyncStack() async {
    let stack = Thread.callStackSymbols
    report("P3 stack", "a @MainActor async test body runs under \(drainLoop(in: stack))")
    for frame in stack { print("P3 | \(frame)") }
  }
}

/// P6: the known deadlock: a synchronous wait inside a `@MainActor` async test, for a main-actor
/// task (expected: times out after 2 s).
final class P6WaitInsideMainActorTest: XCTestCase {
  @MainActor func testWaitInsideMainActorAsync() async {
    let fulfilled = expectation(description: "main-actor task")
    Task { @MainActor in fulfilled.fulfill() }
    let result = { XCTWaiter().wait(for: [fulfilled], timeout: 2) }()
    report("P6", "a synchronous wait inside a @MainActor async test: \(result)")
  }
}
