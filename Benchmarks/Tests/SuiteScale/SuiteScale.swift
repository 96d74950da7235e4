// A suite as users run it: three Swift Testing tests with many parameterized cases each, in one
// debug process, in parallel. Each case makes its own clock, drives a model and checks it.
//
//   SUITE_SCALE_CASES=6000 SUITE_SCALE_CLOCK=test|immediate \
//     .build/debug/TempoBenchmarksPackageTests.xctest --testing-library swift-testing
//
// With `test`, each case uses Tempo's `TestClock` and advances it; with `immediate`, an
// `ImmediateClock` and no advancing: the same tests without time control, the baseline. The
// script suite-scale.sh runs both and prints the ratio. (100 cases when the variable is unset,
// so that a plain `swift test` here stays short.)

import Foundation
import TempoClocks
import Testing

let cases = Int(ProcessInfo.processInfo.environment["SUITE_SCALE_CASES"] ?? "") ?? 100
let controlsTime = ProcessInfo.processInfo.environment["SUITE_SCALE_CLOCK"] != "immediate"

/// A screen that greets the user five seconds after it appears.
@MainActor final class WelcomeModel {
  var message: String?
  let clock: any Clock<Duration>

  init(clock: any Clock<Duration>) { self.clock = clock }

  func appear() async {
    guard (try? await clock.sleep(for: .seconds(5))) != nil else { return }
    message = "Welcome!"
  }
}

/// Counts ticks of a one-second loop.
actor Ticks {
  private(set) var count = 0
  func tick() { count += 1 }

  func run(_ ticks: Int, on clock: any Clock<Duration>) async throws {
    for _ in 0..<ticks {
      try await clock.sleep(for: .seconds(1))
      tick()
    }
  }
}

/// A counter that takes a second to count.
actor SlowCounter {
  private(set) var value = 0
  let clock: any Clock<Duration>

  init(clock: any Clock<Duration>) { self.clock = clock }

  func increment() async throws {
    try await clock.sleep(for: .seconds(1))
    value += 1
  }
}

@MainActor @Test(arguments: 0..<cases)
func welcome(_ run: Int) async {
  if controlsTime {
    let clock = TestClock()
    let model = WelcomeModel(clock: clock)
    let task = Task { await model.appear() }
    await clock.advance(by: .seconds(5))
    #expect(model.message == "Welcome!")
    await task.value
  } else {
    let model = WelcomeModel(clock: ImmediateClock())
    await model.appear()
    #expect(model.message == "Welcome!")
  }
}

@Test(arguments: 0..<cases)
func timerLoop(_ run: Int) async throws {
  let ticks = Ticks()
  if controlsTime {
    let clock = TestClock()
    let task = Task { try await ticks.run(3, on: clock) }
    await clock.advance(by: .seconds(3))
    try await task.value
  } else {
    try await ticks.run(3, on: ImmediateClock())
  }
  #expect(await ticks.count == 3)
}

@Test(arguments: 0..<cases)
func actorCounter(_ run: Int) async throws {
  let clock: any Clock<Duration> = controlsTime ? TestClock() : ImmediateClock()
  let counter = SlowCounter(clock: clock)
  async let first: Void = counter.increment()
  async let second: Void = counter.increment()
  if let clock = clock as? TestClock<Duration> { await clock.advance(by: .seconds(1)) }
  _ = try await (first, second)
  #expect(await counter.value == 2)
}
