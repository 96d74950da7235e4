import Foundation
import TempoClocks
import TempoTestSupport
import Testing

// P1, P2, P4, P5 and P7 of the research note, under Swift Testing.

@Suite(.timeLimit(.minutes(1))) struct SwiftTestingProbes {
  /// P1: what the main thread is doing while a Swift Testing test runs.
  @Test func p1MainThreadStack() async {
    let stack = await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume(returning: Thread.callStackSymbols) }
    }
    report("P1", "the main thread drains the main queue with \(drainLoop(in: stack))")
    for frame in stack { print("P1 | \(frame)") }
  }

  /// P2: the main queue drains while a `@MainActor` async test is suspended.
  @MainActor @Test func p2MainQueueDrainsWhileAwaiting() async {
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    report("P2", "the main queue drained while a @MainActor Swift Testing test awaited")
  }

  /// P4: a nested run loop inside a main-actor job drains the main queue, or not (a test body
  /// that is itself a main-queue callout does not).
  @MainActor @Test func p4NestedRunLoopInsideAMainActorJob() {
    nonisolated(unsafe) var ran = false
    DispatchQueue.main.async { ran = true }
    RunLoop.current.run(until: Date().addingTimeInterval(0.5))
    report("P4", "a nested run loop in a @MainActor test drained the main queue: \(ran)")
  }

  /// P5: every way onto the main actor reaches Tempo's main executor, so that an advance waits
  /// for what it released there.
  @MainActor @Test func p5MainActorHopsAreCounted() async {
    guard #available(macOS 15.4, iOS 18.4, tvOS 18.4, watchOS 11.4, visionOS 2.4, *) else {
      return report("P5", "not run: the test executor needs macOS 15.4 or iOS 18.4")
    }
    await withTestExecutor {
      let clock = TestClock()
      let model = HopModel()
      Task { await model.run(clock: clock) }
      await clock.advance(by: .seconds(1))
      let seen = model.steps
      report(
        "P5",
        seen == HopModel.allSteps
          ? "every main-actor hop ran before the advance returned (\(seen.count) of \(seen.count))"
          : "the advance returned with \(seen) of \(HopModel.allSteps)")
    }
  }

  /// P7: the scenario Tempo exists for, 1,000 times: a main-actor model sleeps 5 s on a test
  /// clock, the test advances 5 s and expects the effect.
  @MainActor @Test func p7WelcomeAThousandTimes() async {
    var wrong = 0
    for _ in 0..<1_000 {
      let clock = TestClock()
      let model = WelcomeModel()
      Task { await model.appear(clock: clock) }
      await clock.advance(by: .seconds(5))
      if model.message != "Welcome!" { wrong += 1 }
    }
    report("P7", "a @MainActor model advanced 5 s: \(wrong) wrong in 1,000")
  }
}

/// Goes onto the main actor every way the runtime offers, noting each step.
@MainActor final class HopModel {
  static let allSteps = ["task", "run", "assumeIsolated", "awaited"]
  var steps: [String] = []

  nonisolated func run(clock: TestClock<Duration>) async {
    try? await clock.sleep(for: .seconds(1))
    await Task { @MainActor in self.steps.append("task") }.value
    await MainActor.run { self.steps.append("run") }
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async {
        MainActor.assumeIsolated { self.steps.append("assumeIsolated") }
        continuation.resume()
      }
    }
    await note("awaited")
  }

  func note(_ step: String) { steps.append(step) }
}

/// Shows a welcome message five seconds after it appears.
@MainActor final class WelcomeModel {
  var message: String?

  func appear(clock: TestClock<Duration>) async {
    do {
      try await clock.sleep(for: .seconds(5))
      message = "Welcome!"
    } catch {}
  }
}
