import Foundation
import TempoClocks
import TempoSchedulers
import TempoTestHelpers
import TempoTestSupport
import TempoTesting
import Testing

/// The time-based operators, each as a marble test: one tick is one second of the bench's
/// scheduler.
@Suite struct OperatorMarbleTests {
  @Test func debounce() {
    let test = MarbleTest()
    let input = test.hot("-a-b----c--|")
    let output = test.start { input.debounce(for: test.ticks(2), scheduler: test.scheduler) }
    test.expect(output, "-----b----c|")
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 0)])
  }

  @Test func throttleLatest() {
    let test = MarbleTest()
    let input = test.hot("-abc--de----f-|")
    let output = test.start {
      input.throttle(for: test.ticks(3), scheduler: test.scheduler, latest: true)
    }
    test.expect(output, "-a--c--e----f-|")
  }

  @Test func throttleFirst() {
    let test = MarbleTest()
    let input = test.hot("-abc--de----f-|")
    let output = test.start {
      input.throttle(for: test.ticks(3), scheduler: test.scheduler, latest: false)
    }
    test.expect(output, "-a--b--d----f-|")
  }

  @Test func delay() {
    let test = MarbleTest()
    let input = test.cold("-a-b-|")
    let output = test.start(subscribed: 2) {
      input.delay(for: test.ticks(2), scheduler: test.scheduler)
    }
    test.expect(output, "-----a-b-|")
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 2)])
  }

  @Test func timeoutFinishesWhenTheGapIsTooLong() {
    let test = MarbleTest()
    let input = test.hot("-a-b------c-|")
    let output = test.start { input.timeout(test.ticks(3), scheduler: test.scheduler) }
    test.expect(output, "-a-b--|")
    #expect(input.subscriptions == [SubscriptionRecord(subscribed: 0, cancelled: 6)])
  }

  @Test func timeoutFailsWithTheGivenError() {
    struct TimedOut: Error, Equatable {}
    let test = MarbleTest()
    let input = test.hot("-a-----b-|", values: ["a": 1, "b": 2], error: TimedOut())
    let output = test.start {
      input.timeout(test.ticks(2), scheduler: test.scheduler, customError: { TimedOut() })
    }
    test.expect(output, "-a-#", values: ["a": 1])
    #expect(output.last?.event == .failed(TimedOut()))
  }

  @Test func measureInterval() {
    let test = MarbleTest()
    let input = test.hot("-a---b-c|")
    let output = test.start { input.measureInterval(using: test.scheduler) }
    let seconds = output.compactMap { record -> Int? in
      guard case .value(let stride) = record.event else { return nil }
      return stride.magnitude / 1_000_000_000
    }
    #expect(seconds == [1, 4, 2])
    let ticks = output.filter {
      switch $0.event {
      case .value, .finished: true
      default: false
      }
    }.map(\.tick)
    #expect(ticks == [1, 5, 7, 8])
  }

  @Test func receiveOn() {
    let test = MarbleTest()
    let input = test.hot("-a-(bc)-|")
    let output = test.start { input.receive(on: test.scheduler) }
    test.expect(output, "-a-(bc)-|")
  }

  @Test func timerPublisher() {
    let test = MarbleTest()
    let output = test.start(cancelled: 7) {
      Publishers.Timer(every: test.ticks(2), scheduler: test.scheduler)
        .autoconnect()
        .map { _ in "t" }
    }
    test.expect(output, "--t-t-t")
  }

  @Test func paceSpacesOutABurst() {
    let test = MarbleTest()
    let input = test.hot("-(abc)----d-e-|")
    let output = test.start {
      input
        .buffer(size: 10, prefetch: .byRequest, whenFull: .dropOldest)
        .pace(test.ticks(2), scheduler: test.scheduler)
    }
    test.expect(output, "-a-b-c-d-e-|")
    #expect(input.droppedValues == 0)
  }

  @Test func aHotPublisherDropsWhatWasNotRequested() {
    let test = MarbleTest()
    let input = test.hot("-(abc)----d-e-|")
    let output = test.start { input.pace(test.ticks(2), scheduler: test.scheduler) }
    test.expect(output, "-a----d---|")
    #expect(input.droppedValues == 3)
  }

  @Test func aRecordingSubscriberWithLimitedDemandAndReplenishment() {
    let test = MarbleTest()
    let input = test.cold("abcd|")
    let output = test.start(demand: .initial(1, thenAfter: 2)) {
      input.buffer(size: 10, prefetch: .byRequest, whenFull: .dropOldest)
    }
    // `buffer` passes the completion on only when asked for more after its last value.
    test.expect(output, "a-b-c-d-|")
    let requests = output.filter {
      if case .requested = $0.event { return true } else { return false }
    }
    #expect(requests.map(\.tick) == [0, 2, 4, 6, 8])
  }
}
