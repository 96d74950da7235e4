import Dependencies
import TempoClocks
import TempoSchedulers
import XCTest

#if canImport(Combine)
  import Combine
#else
  import OpenCombineShim
#endif

/// With combine-schedulers and swift-clocks in sight, Tempo's names are reached with a module
/// selector (`Module::name`, Swift 6.3); what the selector names is Tempo's.
final class ModuleSelectorTests: XCTestCase {
  func testModuleSelectorsNameTemposTypes() {
    let values: [Any] = [
      DispatchQueue.TempoSchedulers::test, RunLoop.TempoSchedulers::test,
      OperationQueue.TempoSchedulers::test, TempoSchedulers::UIScheduler.test,
      DispatchQueue.TempoSchedulers::immediate, DispatchQueue.TempoSchedulers::unimplemented,
      TempoSchedulers::AnySchedulerOf<DispatchQueue>.immediate,
      TempoSchedulers::AnySchedulerOf<DispatchQueue>.unimplemented("mainQueue"),
      TempoClocks::TestClock(), TempoClocks::ImmediateClock(), TempoClocks::UnimplementedClock(),
    ]
    for value in values {
      let name = String(reflecting: type(of: value))
      XCTAssertTrue(name.hasPrefix("TempoSchedulers.") || name.hasPrefix("TempoClocks."), name)
    }
  }

  /// swift-dependencies' `\.mainQueue` holds combine-schedulers' `AnyScheduler`:
  /// `eraseToAnyScheduler()` wraps Tempo's test scheduler in it, chosen by the type of
  /// `\.mainQueue`; the wrapped scheduler is Tempo's.
  @MainActor
  func testTemposSchedulerAndClockGoIntoSwiftDependencies() async {
    let mainQueue = DispatchQueue.TempoSchedulers::test
    let clock = TempoClocks::TestClock()
    let model = withDependencies {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
      $0.continuousClock = clock
    } operation: {
      DebounceModel()
    }
    model.query.send("te")
    await mainQueue.advance(by: .milliseconds(299))
    XCTAssertEqual(model.searched, [])
    await mainQueue.advance(by: .milliseconds(1))
    XCTAssertEqual(model.searched, ["te"])
    XCTAssertTrue(model.clock is TempoClocks::TestClock<Duration>)
  }
}

@MainActor
final class DebounceModel {
  @Dependency(\.mainQueue) var mainQueue
  @Dependency(\.continuousClock) var clock
  let query = PassthroughSubject<String, Never>()
  var searched: [String] = []
  private var cancellable: AnyCancellable?

  init() {
    cancellable =
      query
      .debounce(for: .milliseconds(300), scheduler: mainQueue)
      .sink { [weak self] in self?.searched.append($0) }
  }
}
