import Foundation
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

/// Test publishers from explicit lists of events at ticks, with any value.
@Suite struct EventListTests {
  struct User: Equatable { let name: String }

  @Test func aHotListPlaysAnyValueAtItsTicks() {
    let test = MarbleTest()
    let input = test.hot([.value(2, User(name: "Ann")), .value(5, User(name: "Bo")), .finished(7)])
    let output = test.start { input.map(\.name) }
    test.expect(output, [.value(2, "Ann"), .value(5, "Bo"), .finished(7)])
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 0)])
  }

  @Test func aHotListMarksTheSubscriptionLikeACaret() {
    let test = MarbleTest()
    let input = test.hot([.value(1, 10), .subscribed(2), .value(4, 20), .finished(6)])
    let output = test.start { input.map { $0 * 2 } }
    test.expect(output, [.subscribed(2), .value(4, 40), .finished(6)])
    #expect(input.markedSubscription == 2)
  }

  @Test func theArticlesExample() {
    let test = MarbleTest()
    let input = test.hot([
      .value(1, User(name: "Ann")),
      .subscribed(2),
      .value(4, User(name: "Bo")),
      .finished(6),
    ])
    let output = test.start { input.map(\.name) }
    test.expect(output, [.value(4, "Bo"), .finished(6)])
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 2)])
  }

  @Test func aColdListCountsFromEachSubscription() {
    let test = MarbleTest()
    let input = test.cold([.value(0, 1.5), .value(2, 2.5), .finished(3)])
    let output = test.start(subscribed: 4) { input }
    test.expect(output, [.value(4, 1.5), .value(6, 2.5), .finished(7)])
  }

  @Test func aListFailsWithItsError() {
    struct Broken: Error, Equatable {}
    let test = MarbleTest()
    let input = test.hot([.value(1, "a"), .failed(3, Broken())])
    let output = test.start { input }
    test.expect(output, [.value(1, "a"), .failed(3, Broken())])
    test.expect(output, "-a-#")
  }

  @Test func eventsAtOneTickPlayInListOrder() {
    let test = MarbleTest()
    let input = test.cold([.value(1, "x"), .value(1, "y"), .finished(1)])
    test.expect(test.start { input }, "-(xy|)")
  }

  @Test func whatAPublisherCannotDoIsReportedAndLeftOut() {
    let test = MarbleTest()
    expectIssues(
      "has -1: value(0), at a tick before 0",
      "has 2: requested(max(1)), which only a subscriber does",
      "has 3: cancelled, which only a subscriber does",
      "has 6: value(9) after its completion (5: finished)"
    ) {
      let input = test.hot([
        .value(-1, 0), .value(1, 1), .requested(2, .max(1)), .cancelled(3), .finished(5),
        .value(6, 9),
      ])
      test.expect(test.start { input }, [.value(1, 1), .finished(5)])
    }
  }

  @Test func anOutOfOrderListIsReportedAndPlaysInTickOrder() {
    let test = MarbleTest()
    expectIssues("has 1: value(\"a\") after 3: value(\"b\"): list events in tick order") {
      let input = test.cold([.value(3, "b"), .value(1, "a"), .finished(4)])
      test.expect(test.start { input }, "-a-b|")
    }
  }

  @Test func aColdListCannotMarkASubscription() {
    let test = MarbleTest()
    expectIssues("a cold publisher's ticks count from each subscription") {
      _ = test.cold([.subscribed(2), .value(3, "a")])
    }
  }
}
