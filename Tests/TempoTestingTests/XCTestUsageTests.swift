import TempoSchedulers
import TempoTesting
import XCTest

/// The bench from XCTest: `expect` reports through IssueReporting, which fails XCTest too.
final class XCTestUsageTests: XCTestCase {
  func testDebounceFromXCTest() {
    let test = MarbleTest()
    let input = test.hot("-a-b----c--|")
    let output = test.start { input.debounce(for: test.ticks(2), scheduler: test.scheduler) }
    test.expect(output, "-----b----c|")
    XCTAssertEqual(input.subscriptions, [SubscriptionRecord(subscribed: 0)])
  }
}
