import Dependencies
import TempoClocks
import TempoDependencies
import TempoSchedulers
import TempoTestSupport
import XCTest

#if canImport(Combine)
  import Combine
#else
  import OpenCombineShim
#endif

/// Every spelling a swift-dependencies user writes for a test, immediate or unimplemented
/// scheduler or clock means Tempo's type: these tests compile only if no name is ambiguous, and
/// check the module of each value.
final class DropInTests: XCTestCase {
  func testSchedulerSpellingsAreTempos() {
    let values: [Any] = [
      DispatchQueue.test, RunLoop.test, OperationQueue.test, UIScheduler.test,
      DispatchQueue.immediate, RunLoop.immediate, OperationQueue.immediate,
      DispatchQueue.unimplemented, RunLoop.unimplemented("runLoop"),
      AnySchedulerOf<DispatchQueue>.immediate, AnySchedulerOf<DispatchQueue>.unimplemented,
      AnySchedulerOf<RunLoop>.unimplemented("runLoop"), AnySchedulerOf<DispatchQueue>.main,
      TestSchedulerOf<DispatchQueue>(now: .init(.init(uptimeNanoseconds: 1))),
    ]
    for value in values {
      XCTAssertTrue(
        String(reflecting: type(of: value)).hasPrefix("TempoSchedulers."),
        "\(String(reflecting: type(of: value)))")
    }
  }

  func testClockSpellingsAreTempos() {
    let values: [Any] = [
      TestClock(), ImmediateClock(), UnimplementedClock(), AnyClock(TestClock()),
      TestClock<Duration>(), UnimplementedClock(name: "clock"),
    ]
    for value in values {
      XCTAssertTrue(
        String(reflecting: type(of: value)).hasPrefix("TempoClocks."),
        "\(String(reflecting: type(of: value)))")
    }
    let clocks: [any Clock<Duration>] = [
      .test, .immediate, .unimplemented(), ContinuousClock(), SuspendingClock(),
    ]
    XCTAssertEqual(clocks.count, 5)
  }

  func testDependencyValuesHoldTemposTypes() {
    withDependencies {
      $0.mainQueue = .immediate
      $0.mainRunLoop = RunLoop.test.eraseToAnyScheduler()
      $0.continuousClock = TestClock()
      $0.suspendingClock = ImmediateClock()
    } operation: {
      @Dependency(\.mainQueue) var mainQueue
      @Dependency(\.mainRunLoop) var mainRunLoop
      @Dependency(\.continuousClock) var continuousClock
      @Dependency(\.suspendingClock) var suspendingClock
      XCTAssertEqual(
        String(reflecting: type(of: mainQueue)).components(separatedBy: ".").first,
        "TempoSchedulers")
      XCTAssertEqual(
        String(reflecting: type(of: mainRunLoop)).components(separatedBy: ".").first,
        "TempoSchedulers")
      XCTAssertTrue(continuousClock is TestClock<Duration>)
      XCTAssertTrue(suspendingClock is ImmediateClock<Duration>)
    }
  }

  /// The feature of the guide article "Using Tempo with swift-dependencies".
  @MainActor
  func testGuideExample() async {
    let mainQueue = DispatchQueue.test
    let clock = TestClock()
    let model = withDependencies {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
      $0.continuousClock = clock
    } operation: {
      CountdownModel()
    }
    model.query.send("te")
    await mainQueue.advance(by: .milliseconds(100))
    model.query.send("tempo")
    await mainQueue.advance(by: .milliseconds(299))
    XCTAssertEqual(model.searched, [])
    await mainQueue.advance(by: .milliseconds(1))
    XCTAssertEqual(model.searched, ["tempo"])

    await withTestExecutor {
      let task = Task { await model.countDown(from: 3) }
      await clock.advance(by: .seconds(2))
      XCTAssertEqual(model.remaining, 1)
      await clock.advance(by: .seconds(1))
      await task.value
      XCTAssertEqual(model.remaining, 0)
    }
  }
}

extension DropInTests {
  /// `\.date` follows a test clock: the model reads `@Dependency(\.date.now)` while it sleeps on
  /// `\.continuousClock`, and both move together.
  @MainActor
  func testDateDependencyMovesWithTheClock() async {
    let clock = TestClock()
    let signIn = Date(timeIntervalSince1970: 1_800_000_000)
    clock.setDate(signIn)
    let model = withDependencies {
      $0.continuousClock = clock
      $0.date = DateGenerator(clock.dateGenerator)
    } operation: {
      TokenModel()
    }
    let task = Task { await model.signIn() }
    await clock.advance(by: .seconds(3_599))
    XCTAssertEqual(model.stamps, [signIn])
    await clock.advance(by: .seconds(1))
    await task.value
    XCTAssertEqual(model.stamps, [signIn, signIn.addingTimeInterval(3_600)])
  }
}

@MainActor
final class TokenModel {
  @Dependency(\.continuousClock) var clock
  @Dependency(\.date.now) var now
  var stamps: [Date] = []

  func signIn() async {
    stamps.append(now)
    try? await clock.sleep(for: .seconds(3_600))
    stamps.append(now)
  }
}

@MainActor
final class CountdownModel {
  @Dependency(\.mainQueue) var mainQueue
  @Dependency(\.continuousClock) var clock
  let query = PassthroughSubject<String, Never>()
  var searched: [String] = []
  var remaining = 0
  private var cancellable: AnyCancellable?

  init() {
    cancellable =
      query
      .debounce(for: .milliseconds(300), scheduler: mainQueue)
      .sink { [weak self] in self?.searched.append($0) }
  }

  func countDown(from seconds: Int) async {
    remaining = seconds
    for await _ in clock.timer(interval: .seconds(1)) {
      remaining -= 1
      if remaining == 0 { break }
    }
  }
}
