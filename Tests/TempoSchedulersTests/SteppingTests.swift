import Foundation
import TempoTestHelpers
import Testing

@testable import TempoSchedulers

/// A publisher driven by hand: it records the demand it is asked for and whether it was
/// cancelled, and sends what the test tells it to.
final class ManualPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
  // Invariant: `lock` guards every `var`; the subscriber is called after unlocking.
  private let lock = NSLock()
  private var subscriber: AnySubscriber<Output, Failure>?
  private var requestLog: [Subscribers.Demand] = []
  private var outstanding = Subscribers.Demand.none
  private var wasCancelled = false
  private var overDelivered = 0

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    lock.withLock { self.subscriber = AnySubscriber(subscriber) }
    subscriber.receive(subscription: Handle(publisher: self))
  }

  var requests: [Subscribers.Demand] { lock.withLock { requestLog } }
  var isCancelled: Bool { lock.withLock { wasCancelled } }
  var demand: Subscribers.Demand { lock.withLock { outstanding } }
  /// Values sent without demand for them: must stay zero.
  var deliveriesWithoutDemand: Int { lock.withLock { overDelivered } }

  /// Sends `value` and returns the demand the subscriber answered with.
  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand {
    let target: AnySubscriber<Output, Failure>? = lock.withLock {
      if outstanding == 0 { overDelivered += 1 } else { outstanding -= 1 }
      return subscriber
    }
    let more = target?.receive(value) ?? .none
    lock.withLock { outstanding += more }
    return more
  }

  func send(completion: Subscribers.Completion<Failure>) {
    lock.withLock { subscriber }?.receive(completion: completion)
  }

  private final class Handle: Subscription, @unchecked Sendable {
    let publisher: ManualPublisher
    init(publisher: ManualPublisher) { self.publisher = publisher }
    func request(_ demand: Subscribers.Demand) {
      publisher.lock.withLock {
        publisher.requestLog.append(demand)
        publisher.outstanding += demand
      }
    }
    func cancel() { publisher.lock.withLock { publisher.wasCancelled = true } }
  }
}

@Suite struct SteppingSubscriberTests {
  typealias Event = SteppingSubscriber<Int, Never>.Event
  typealias Promise = SteppingSubscriber<Int, Never>.Promise

  @Test func asksForOneInputAtSubscriptionAndOneMorePerPromise() {
    let upstream = ManualPublisher<Int, Never>()
    var promises: [Promise] = []
    var inputs: [Int] = []
    let cancellable = upstream.step { event in
      if case .input(let input, let promise) = event {
        inputs.append(input)
        promises.append(promise)
      }
    }
    #expect(upstream.requests == [.max(1)])
    upstream.send(1)
    #expect(upstream.demand == 0, "no value without demand")
    promises[0](.more)
    #expect(upstream.requests == [.max(1), .max(1)])
    upstream.send(2)
    #expect(inputs == [1, 2])
    #expect(upstream.deliveriesWithoutDemand == 0)
    cancellable.cancel()
  }

  @Test func moreGivenInsideTheStepperBecomesTheReturnedDemand() {
    let upstream = ManualPublisher<Int, Never>()
    let cancellable = upstream.step { event in
      if case .input(_, let promise) = event { promise(.more) }
    }
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.requests == [.max(1)], "no separate request call")
    cancellable.cancel()
  }

  @Test func aPromiseCompletedTwiceOrStaleDoesNothing() {
    let upstream = ManualPublisher<Int, Never>()
    var promises: [Promise] = []
    let cancellable = upstream.step { event in
      if case .input(_, let promise) = event { promises.append(promise) }
    }
    upstream.send(1)
    promises[0](.more)
    promises[0](.more)  // repeated
    #expect(upstream.requests.count == 2)
    upstream.send(2)
    promises[0](.more)  // stale: the valid promise is now the second one
    promises[0](.cancel)  // stale cancel does nothing either
    #expect(upstream.requests.count == 2)
    #expect(!upstream.isCancelled)
    promises[1](.more)
    #expect(upstream.requests.count == 3)
    cancellable.cancel()
  }

  @Test func cancellationStopsUpstreamAndLaterPromisesDoNothing() {
    let upstream = ManualPublisher<Int, Never>()
    var promises: [Promise] = []
    var events = 0
    let cancellable = upstream.step { event in
      events += 1
      if case .input(_, let promise) = event { promises.append(promise) }
    }
    upstream.send(1)
    cancellable.cancel()
    #expect(upstream.isCancelled)
    promises[0](.more)
    #expect(upstream.requests.count == 1)
    upstream.send(completion: .finished)
    #expect(events == 1, "no completion after cancellation")
  }

  @Test func cancelFromThePromiseCancelsUpstream() {
    let upstream = ManualPublisher<Int, Never>()
    var completions = 0
    let cancellable = upstream.step { event in
      switch event {
      case .input(_, let promise): promise(.cancel)
      case .completion: completions += 1
      }
    }
    #expect(upstream.send(1) == .none)
    #expect(upstream.isCancelled)
    upstream.send(completion: .finished)
    #expect(completions == 0)
    cancellable.cancel()
  }

  @Test func completionReachesTheStepperOnce() {
    let upstream = ManualPublisher<Int, Never>()
    var completions: [Subscribers.Completion<Never>] = []
    let cancellable = upstream.step { event in
      if case .completion(let completion) = event { completions.append(completion) }
    }
    upstream.send(completion: .finished)
    upstream.send(completion: .finished)
    #expect(completions.count == 1)
    cancellable.cancel()
  }

  /// Waits for the completion itself, not polling against a minute of real time: beside the
  /// whole parallel suite with every core kept busy, 20,000 values took over a minute. A run
  /// that loses the completion fails at the time limit.
  @Test(.timeLimit(.minutes(5)))
  func promisesCompletedFromOtherThreadsLoseAndDuplicateNothing() async {
    // Each of half the values takes a trip through the system's queue: under a sanitizer, with
    // the whole suite beside it on two cores, 20,000 of them took over a minute.
    let sanitized = ProcessInfo.processInfo.environment.keys.contains {
      $0 == "TSAN_OPTIONS" || $0 == "ASAN_OPTIONS"
    }
    let count = sanitized ? 2_000 : 20_000
    let upstream = ManualPublisher<Int, Never>()
    let received = Log<Int>()
    let finished = Log<Bool>()
    let (completed, complete) = AsyncStream<Void>.makeStream()
    let cancellable = upstream.step { event in
      switch event {
      case .input(let input, let promise):
        received.append(input)
        // Half of the promises are completed on another thread, racing the next signal.
        if input % 2 == 0 {
          DispatchQueue.global().async { promise(.more) }
        } else {
          promise(.more)
        }
      case .completion:
        finished.append(true)
        complete.finish()
      }
    }
    // Upstream sends a value whenever it has demand, from its own thread.
    let sender = Thread {
      var next = 0
      while next < count {
        if upstream.demand > 0 {
          upstream.send(next)
          next += 1
        } else {
          // Lets the threads that complete the promises have the core meanwhile.
          sched_yield()
        }
      }
      upstream.send(completion: .finished)
    }
    sender.start()
    for await _ in completed {}
    #expect(finished.values == [true])
    #expect(received.values == Array(0..<count))
    #expect(upstream.deliveriesWithoutDemand == 0)
    cancellable.cancel()
  }
}

@Suite struct PaceTests {
  /// An erratic source: A at 0 s, B 0.3, C 0.6, D 5.0, E 5.3, F 5.6, then finished.
  func erratic(on scheduler: TestSchedulerOf<DispatchQueue>) -> AnyPublisher<String, Never> {
    let items: [(String, Int)] = [
      ("A", 0), ("B", 300), ("C", 600), ("D", 5_000), ("E", 5_300), ("F", 5_600),
    ]
    return items.dropFirst().reduce(
      Just(items[0].0).delay(for: .milliseconds(items[0].1), scheduler: scheduler)
        .eraseToAnyPublisher()
    ) { merged, item in
      merged.merge(
        with: Just(item.0).delay(for: .milliseconds(item.1), scheduler: scheduler)
      ).eraseToAnyPublisher()
    }
  }

  func milliseconds(_ scheduler: TestSchedulerOf<DispatchQueue>) -> Int {
    Int((scheduler.now.dispatchTime.uptimeNanoseconds - 1) / 1_000_000)
  }

  @Test func anErraticSourcePacedThroughASubject() {
    let scheduler = DispatchQueue.test
    let erratic = erratic(on: scheduler).makeConnectable()
    let subject = PassthroughSubject<String, Never>()
    var timeline: [String] = []
    let paced =
      erratic
      .buffer(size: 1_000, prefetch: .byRequest, whenFull: .dropOldest)
      .pace(.seconds(1), scheduler: scheduler, subject: subject)
    let sink = subject.sink(
      receiveCompletion: { _ in timeline.append("finished@\(milliseconds(scheduler))") },
      receiveValue: { timeline.append("\($0)@\(milliseconds(scheduler))") }
    )
    let connection = erratic.connect()
    scheduler.advance(by: 10)
    // The buffer sends its completion only when asked for more after its last value, and the
    // pace asks one interval after F: so the completion comes at 8 s, one second after F.
    #expect(
      timeline == [
        "A@0", "B@1000", "C@2000", "D@5000", "E@6000", "F@7000", "finished@8000",
      ])
    _ = (paced, sink, connection)
  }

  @Test func theComposablePaceGivesTheSameTimeline() {
    let scheduler = DispatchQueue.test
    var timeline: [String] = []
    let cancellable = erratic(on: scheduler)
      .buffer(size: 1_000, prefetch: .byRequest, whenFull: .dropOldest)
      .pace(.seconds(1), scheduler: scheduler)
      .sink(
        receiveCompletion: { _ in timeline.append("finished@\(milliseconds(scheduler))") },
        receiveValue: { timeline.append("\($0)@\(milliseconds(scheduler))") }
      )
    scheduler.advance(by: 10)
    #expect(
      timeline == [
        "A@0", "B@1000", "C@2000", "D@5000", "E@6000", "F@7000", "finished@8000",
      ])
    cancellable.cancel()
  }

  @Test func completionFromAnUpstreamThatDoesNotWaitIsForwardedAtOnce() {
    let scheduler = DispatchQueue.test
    var timeline: [String] = []
    let cancellable = ["a", "b", "c"].publisher
      .pace(.seconds(2), scheduler: scheduler)
      .sink(
        receiveCompletion: { _ in timeline.append("finished@\(milliseconds(scheduler))") },
        receiveValue: { timeline.append("\($0)@\(milliseconds(scheduler))") }
      )
    scheduler.advance(by: 10)
    // A sequence sends its completion right after its last value, without being asked.
    #expect(timeline == ["a@0", "b@2000", "c@4000", "finished@4000"])
    cancellable.cancel()
  }

  @Test func honoursDownstreamDemand() {
    let scheduler = DispatchQueue.test
    let upstream = ManualPublisher<Int, Never>()
    let subscriber = DemandingSubscriber<Int>()
    upstream.pace(.seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    scheduler.advance(by: 5)
    #expect(subscriber.received == [], "no value without demand")
    #expect(upstream.requests == [.max(1)], "no more asked of upstream while the value waits")
    subscriber.request(.max(1))
    #expect(subscriber.received == [1])
    scheduler.advance(by: 5)
    #expect(upstream.requests == [.max(1)], "no downstream demand, so nothing more asked")
    subscriber.request(.max(1))
    #expect(upstream.requests == [.max(1), .max(1)])
    upstream.send(2)
    #expect(subscriber.received == [1, 2])
    subscriber.cancel()
    #expect(upstream.isCancelled)
  }

  @Test func forwardsFailureAfterTheValueThatWaitsForDemand() {
    struct Failure: Error {}
    let scheduler = DispatchQueue.test
    let upstream = ManualPublisher<Int, Failure>()
    var events: [String] = []
    let cancellable = upstream.pace(.seconds(1), scheduler: scheduler).sink(
      receiveCompletion: { events.append("\($0)".contains("failure") ? "failed" : "finished") },
      receiveValue: { events.append("\($0)") }
    )
    upstream.send(7)
    upstream.send(completion: .failure(Failure()))
    #expect(events == ["7", "failed"])
    cancellable.cancel()
  }
}
