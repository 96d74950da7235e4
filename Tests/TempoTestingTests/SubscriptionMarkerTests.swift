import Foundation
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

/// `^` in a hot input is where the harness subscribes; earlier ticks are in the past.
@Suite struct SubscriptionMarkerTests {
  @Test func theHarnessSubscribesAtTheHotInputsMarker() {
    let test = MarbleTest()
    let input = test.hot("-a^-b-|")
    let output = test.start { input }
    test.expect(output, "--^-b-|")
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 2)])
  }

  @Test func aHotInputMadeInsideTheHarnessSetsItsSubscriptionTick() {
    let test = MarbleTest()
    let output = test.start { test.hot("-a^-b-|") }
    test.expect(output, "----b-|")
    #expect(output.first == Recorded(2, .subscribed))
  }

  @Test func aTestReadsTheSubscriptionAndCancellationTicks() {
    let test = MarbleTest()
    let input = test.hot("-a-^-b-c-d-|")
    let output = test.start(cancelled: 7) { input }
    test.expect(output, "-----b-c")  // `c` comes before the cancellation at tick 7
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 3, cancelled: 7)])
    #expect(input.subscriptions.first?.subscribed == 3)
    #expect(input.subscriptions.first?.cancelled == 7)
  }
}

/// Marks that cannot be followed are reported.
@Suite struct SubscriptionMarkerMisuseTests {
  @Test func anExplicitSubscriptionThatDisagreesWithTheMarkIsReported() {
    let test = MarbleTest()
    let input = test.hot("-a^-b-|")
    expectIssues(#"start subscribes at tick 4, but the marble diagram "-a^-b-|" marks"#) {
      let output = test.start(subscribed: 4) { input }
      test.expect(output, "------|")  // `b`, at tick 4, comes before the subscription
    }
  }

  @Test func twoHotInputsThatMarkDifferentTicksAreReported() {
    let test = MarbleTest()
    let first = test.hot("-a^-b-|")
    let second = test.hot("---^c-|")
    expectIssues(
      #"The marble diagram "-a^-b-|" marks the subscription at tick 2, but "#
        + #"the marble diagram "---^c-|" marks it at tick 3"#
    ) {
      let output = test.start { first.merge(with: second) }
      test.expect(output, "----(bc)-|")
    }
  }

  @Test func aMarkAtOrAfterTheCancellationIsReported() {
    let test = MarbleTest()
    let input = test.hot("-----^-a|")
    expectIssues("marks the subscription at tick 5, but start cancels at tick 5") {
      let output = test.start(cancelled: 5) { input }
      #expect(output.isEmpty)
    }
  }

  @Test func aMarkInAColdDiagramIsReported() {
    let test = MarbleTest()
    expectIssues("a cold publisher's ticks count from each subscription") {
      _ = test.cold("-^a|")
    }
  }

  @Test func aMarkInAStreamIsReported() {
    let test = MarbleTest()
    expectIssues("but a stream plays at the ticks written") {
      _ = test.stream("-^a|")
    }
  }

  @Test func aSecondStartWithLaterTicksRuns() {
    let test = MarbleTest()
    test.expect(test.start(cancelled: 10) { test.hot("-a^-b-|") }, "----b-|")
    let output = test.start(created: 10, cancelled: 20) { test.hot("-----------^-c|") }
    test.expect(output, "-------------c|")
    #expect(output.first == Recorded(11, .subscribed))
  }
}
