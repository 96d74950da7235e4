import Foundation
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

/// Misuse of the bench gets a clear issue, and the bench keeps going safely.
@Suite struct BenchMisuseTests {
  @Test func aSecondStartWithTicksAlreadyPastIsReported() {
    let test = MarbleTest()
    test.expect(test.start { Just("a") }, "(a|)")
    expectIssues("the bench is already at tick 1000") {
      let second = test.start { Just("b") }
      #expect(second.isEmpty)
    }
    #expect(test.currentTick == 1_000)
  }

  @Test func subscribingBeforeCreatingIsReported() {
    let test = MarbleTest()
    let input = test.hot("-a-b-c-|")
    expectIssues("subscribes at tick 2, before it creates the publisher at tick 5") {
      let output = test.start(created: 5, subscribed: 2) { input }
      #expect(output.isEmpty)
    }
    #expect(input.subscriptions.isEmpty)
  }

  @Test func cancellingBeforeSubscribingIsReported() {
    let test = MarbleTest()
    expectIssues("cancels at tick 3, before it subscribes at tick 4") {
      let output = test.start(subscribed: 4, cancelled: 3) { Just("a") }
      #expect(output.isEmpty)
    }
  }

  @Test func aTickOfZeroIsReportedAndOneSecondIsUsed() {
    expectIssues("A marble tick must last longer than zero, not 0") {
      let test = MarbleTest(tick: .zero)
      #expect(test.tick == .seconds(1))
      test.expect(test.start { test.hot("-a|") }, "-a|")
    }
  }

  @Test func aNegativeTickIsReported() {
    expectIssues("must last longer than zero") {
      #expect(MarbleTest(tick: .milliseconds(-5)).tick == .seconds(1))
    }
  }

  @Test func aTickInFractionsOfANanosecondIsReportedAndRoundedDown() {
    expectIssues("must be a whole number of nanoseconds, not 1.5e-09 seconds; the bench uses 1 ns")
    {
      let tick = Duration(secondsComponent: 0, attosecondsComponent: 1_500_000_000)
      #expect(MarbleTest(tick: tick).tick == .nanoseconds(1))
    }
  }

  @Test func aMarkBeforeTheCreationIsReportedAndTheHarnessSubscribesAtTheCreation() {
    let test = MarbleTest()
    let input = test.hot("-a^-b-c-|")
    expectIssues("marks the subscription at tick 2, before start creates the publisher at tick 3") {
      let output = test.start(created: 3) { input }
      test.expect(output, "---^b-c-|")
    }
  }
}
