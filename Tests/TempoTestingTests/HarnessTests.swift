import Foundation
import TempoClocks
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

@Suite struct HarnessTests {
  @Test func aMismatchPrintsBothTimelinesAlignedWithTheFirstDifference() {
    let test = MarbleTest()
    let input = test.hot("-a-b-|")
    let output = test.start { input.delay(for: test.ticks(1), scheduler: test.scheduler) }
    // `delay` delays the completion too, so it comes at tick 6, not 5.
    expectIssues(
      """
      differ from the marble diagram at tick 5.
      expected: --a-b|
      recorded: --a-b-|
                     ^
      expected the finish (|) at tick 5, recorded the finish at tick 6
      """
    ) {
      test.expect(output, "--a-b|")
    }
  }

  @Test func aMatchReportsNothing() {
    let test = MarbleTest()
    let input = test.cold("a-(b|)")
    test.expect(test.start { input }, "a-(b|)")
  }

  @Test func theHarnessCreatesSubscribesAndCancelsAtTheGivenTicks() {
    let test = MarbleTest()
    let input = test.hot("-a-b-c-d-e-|")
    let output = test.start(created: 1, subscribed: 2, cancelled: 7) { input }
    // At tick 7, `d` comes before the cancellation: the hot publisher scheduled it first.
    test.expect(output, "---b-c-d")
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 2, cancelled: 7)])
    #expect(output.first == Recorded(2, .subscribed))
    #expect(output.last == Recorded(7, .cancelled))
  }

  @Test func aColdPublisherPlaysItsDiagramForEachSubscriber() {
    let test = MarbleTest()
    let input = test.cold("-a|")
    let first = test.record(input)
    test.advance(ticks: 3)
    let second = test.record(input)
    test.advance(ticks: 3)
    test.expect(first.records, "-a|")
    test.expect(second.records, "----a|")
    #expect(
      input.subscriptions == [SubscriptionRecord(subscribed: 0), SubscriptionRecord(subscribed: 3)])
  }

  @Test func aRecorderLogsItsDemandWithTheTickOfEachEvent() {
    let test = MarbleTest()
    let subscriber = test.record(test.cold("-a-b|"), demand: .initial(1, thenAfter: 1))
    test.advance(ticks: 10)
    #expect(
      subscriber.records == [
        Recorded(0, .subscribed), Recorded(0, .requested(.max(1))), Recorded(1, .value("a")),
        Recorded(2, .requested(.max(1))), Recorded(3, .value("b")), Recorded(4, .finished),
      ])
  }

  @Test func theSubscriptionMarkerIsComparedWhenTheDiagramHasOne() {
    let test = MarbleTest()
    let input = test.hot("---a-|")
    let output = test.start(subscribed: 2) { input }
    test.expect(output, "--^a-|")
  }

  @Test func aPublisherThatIgnoresDemandIsReported() {
    let test = MarbleTest()
    let subscriber = test.record(
      String.self, failure: Never.self, demand: .initial(1, thenAfter: nil))
    expectIssues("delivered a value that was not requested, at tick 0") {
      ["a", "b"].publisher.subscribe(OverEager(subscriber))
    }
  }

  @Test func malformedDiagramsAreReported() {
    let test = MarbleTest()
    expectIssues("is malformed: a group is not closed") {
      test.expect([Recorded<String, Never>](), "-(ab")
    }
  }
}

/// A subscriber wrapper that delivers every value whatever the demand, to check the recorder.
struct OverEager<Inner: Subscriber>: Subscriber where Inner: Sendable {
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

/// An `AsyncStream`-based debounce over a clock, the async counterpart of Combine's.
struct AsyncDebounce<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element: Sendable {
  typealias Element = Base.Element
  let base: Base
  let interval: Duration
  let clock: any Clock<Duration>

  func makeAsyncIterator() -> AsyncThrowingStream<Element, any Error>.Iterator {
    let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
    let task = Task { [base, interval, clock] in
      let pending = PendingValue<Element>()
      do {
        for try await element in base {
          pending.replace(with: element, interval: interval, clock: clock) {
            continuation.yield($0)
          }
        }
        pending.flush { continuation.yield($0) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream.makeAsyncIterator()
  }
}

/// The value a debounce holds and the sleep that will emit it.
final class PendingValue<Element: Sendable>: @unchecked Sendable {
  // Invariant: `lock` guards both `var`s.
  private let lock = NSLock()
  private var value: Element?
  private var timer: Task<Void, Never>?

  func replace(
    with element: Element, interval: Duration, clock: any Clock<Duration>,
    emit: @escaping @Sendable (Element) -> Void
  ) {
    lock.withLock {
      timer?.cancel()
      value = element
      timer = Task {
        do { try await clock.sleep(for: interval) } catch { return }
        if let value = self.take() { emit(value) }
      }
    }
  }

  func flush(_ emit: (Element) -> Void) {
    if let value = take() { emit(value) }
  }

  private func take() -> Element? {
    lock.withLock {
      defer { value = nil }
      return value
    }
  }
}

@Suite(.testExecutor) struct AsyncMarbleTests {
  @Test func anAsyncDebounceOverATestClock() async {
    let test = MarbleTest()
    let input = test.stream("-a-b----c--|")
    let debounced = AsyncDebounce(
      base: input, interval: test.duration(ofTicks: 2), clock: test.clock)
    let output = await test.record(debounced, forTicks: 20)
    test.expect(output, "-----b----c|")
  }

  @Test func aStreamFailsAtTheHash() async {
    let test = MarbleTest()
    let input = test.stream("-a-#")
    let output = await test.record(input, forTicks: 5)
    test.expect(output, "-a-#")
    #expect(output.last.map { "\($0.event)" }?.contains("MarbleFailure") == true)
  }
}
