import Foundation
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

/// Issues from the bench's inputs and recorders point at the line of the test that made them.
@Suite struct IssueLocationTests {
  @Test func aHotDiagramsIssuePointsAtTheCaller() {
    let test = MarbleTest()
    expectIssue(line: #line) { _ = test.hot("-a-(b") }
  }

  @Test func aColdDiagramsIssuePointsAtTheCaller() {
    let test = MarbleTest()
    expectIssue(line: #line) { _ = test.cold("-a-x|", values: ["a": 1]) }
  }

  @Test func aStreamsIssuePointsAtTheCaller() {
    let test = MarbleTest()
    expectIssue(line: #line) { _ = test.stream("-a-(b") }
  }

  @Test func aRecordersIssuePointsAtTheLineThatMadeIt() {
    let test = MarbleTest()
    let line = #line + 1
    let subscriber = test.record(
      String.self, failure: Never.self, demand: .initial(1, thenAfter: nil))
    expectIssue(line: line) { ["a", "b"].publisher.subscribe(OverEager(subscriber)) }
  }

  @Test func theHarnesssRecorderPointsAtTheStartCall() {
    let test = MarbleTest()
    let input = ["a", "b"].publisher.overEager()
    expectIssue(line: #line) { _ = test.start(demand: .initial(1, thenAfter: nil)) { input } }
  }
}

extension Publisher {
  /// Delivers every value whatever the subscriber asked for.
  func overEager() -> OverEagerPublisher<Self> { OverEagerPublisher(upstream: self) }
}

/// A publisher that delivers every value of `upstream` whatever its subscriber asked for.
struct OverEagerPublisher<Upstream: Publisher>: Publisher {
  typealias Output = Upstream.Output
  typealias Failure = Upstream.Failure
  let upstream: Upstream
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    upstream.subscribe(OverEagerAny(subscriber))
  }
}

/// An `OverEager` for any subscriber.
private struct OverEagerAny<Inner: Subscriber>: Subscriber {
  let inner: Inner
  init(_ inner: Inner) { self.inner = inner }
  var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
  func receive(subscription: any Subscription) {
    inner.receive(subscription: subscription)
    subscription.request(.unlimited)
  }
  func receive(_ input: Inner.Input) -> Subscribers.Demand { inner.receive(input) }
  func receive(completion: Subscribers.Completion<Inner.Failure>) {
    inner.receive(completion: completion)
  }
}

/// Expects `body` to report exactly one issue, located at `line` of this file.
private func expectIssue(
  line: Int, fileID: String = #fileID, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () -> Void
) {
  let locations = Log<SourceLocation?>()
  withKnownIssue(sourceLocation: sourceLocation) {
    body()
  } matching: { issue in
    locations.append(issue.sourceLocation)
    return true
  }
  let found = locations.values
  #expect(found.count == 1, "reported: \(found)", sourceLocation: sourceLocation)
  for location in found {
    #expect(location?.fileID == fileID, sourceLocation: sourceLocation)
    #expect(location?.line == line, sourceLocation: sourceLocation)
  }
}
