import Foundation
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

/// `expect` compares every record at every tick, and prints what differs.
@Suite struct ExpectationTests {
  @Test func aWrongValueAtTheSubscriptionTickIsReported() {
    let test = MarbleTest()
    let output = test.start { Just("a") }
    expectIssues(
      """
      differ from the marble diagram at tick 0.
      expected: (a|)
      recorded: (?|)
                ^
      expected a = "Alice" at tick 0, recorded "a" at tick 0
      """
    ) {
      test.expect(output, "(a|)", values: ["a": "Alice"])
    }
  }

  @Test func aWrongValueAtALaterSubscriptionTickIsReported() {
    let test = MarbleTest()
    let input = test.cold("(a|)")
    let output = test.start(subscribed: 3) { input }
    expectIssues("differ from the marble diagram at tick 3.") {
      test.expect(output, "---(a|)", values: ["a": "Alice"])
    }
  }

  @Test func aRightValueAtTheSubscriptionTickPasses() {
    let test = MarbleTest()
    test.expect(test.start { Just("Alice") }, "(a|)", values: ["a": "Alice"])
  }

  @Test func aListExpectationComparesValuesAndCompletions() {
    let test = MarbleTest()
    let input = test.hot("-a-b----c--|")
    let output = test.start { input.debounce(for: test.ticks(2), scheduler: test.scheduler) }
    test.expect(output, [.value(5, "b"), .value(10, "c"), .finished(11)])
  }

  @Test func aListExpectationComparesSubscriptionsDemandAndCancellationWhenItListsThem() {
    let test = MarbleTest()
    let output = test.start(subscribed: 2, cancelled: 4) { test.cold("-a--b|") }
    test.expect(
      output,
      [.subscribed(2), .requested(2, .unlimited), .value(3, "a"), .cancelled(4)])
  }

  @Test func aListMismatchNamesTheFirstRecordThatDiffers() {
    let test = MarbleTest()
    let output = test.start { test.hot("-a-b|") }
    expectIssues(
      """
      The recorded events differ from the expected list at record 2 (tick 3).
      expected: 1: value("a"), 3: value("c"), 4: finished
      recorded: 1: value("a"), 3: value("b"), 4: finished
      expected 3: value("c"), recorded 3: value("b")
      """
    ) {
      test.expect(output, [.value(1, "a"), .value(3, "c"), .finished(4)])
    }
  }

  @Test func aListComparesFailuresByTheirErrors() {
    struct Oops: Error, Equatable { let code: Int }
    let test = MarbleTest()
    let recorded: [Recorded<Int, Oops>] = [.value(1, 7), .failed(2, Oops(code: 1))]
    test.expect(recorded, [.value(1, 7), .failed(2, Oops(code: 1))])
    expectIssues("expected 2: failed(") {
      test.expect(recorded, [.value(1, 7), .failed(2, Oops(code: 2))])
    }
  }

  @Test func aMissingRecordIsReported() {
    let test = MarbleTest()
    let recorded: [Recorded<String, Never>] = [.value(1, "a")]
    expectIssues("expected 2: finished, recorded nothing more") {
      test.expect(recorded, [.value(1, "a"), .finished(2)])
    }
  }
}
