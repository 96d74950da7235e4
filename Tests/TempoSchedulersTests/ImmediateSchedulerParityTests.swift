import TempoSchedulers
import XCTest

/// Parity with the established immediate scheduler: a weather feature whose requests come back on
/// the main queue, tested with an immediate and with a test scheduler, and the cancellation that
/// only a test scheduler can observe.
final class ImmediateSchedulerParityTests: XCTestCase {
  let mainQueue = DispatchQueue.test

  func testBasicsWithTheTestScheduler() {
    let viewModel = AppViewModel(weatherClient: .mock, mainQueue: mainQueue.eraseToAnyScheduler())
    XCTAssertEqual(viewModel.weatherResults, [])
    mainQueue.advance()
    XCTAssertEqual(viewModel.currentLocation, "Brooklyn")
    XCTAssertEqual(viewModel.weatherResults, ["moderate"])
  }

  func testBasicsWithTheImmediateScheduler() {
    let viewModel = AppViewModel(weatherClient: .mock, mainQueue: .immediate)
    XCTAssertEqual(viewModel.currentLocation, "Brooklyn")
    XCTAssertEqual(viewModel.weatherResults, ["moderate"])
  }

  func testCancellation() {
    let viewModel = AppViewModel(weatherClient: .mock, mainQueue: mainQueue.eraseToAnyScheduler())
    viewModel.cancelButtonTapped()
    self.mainQueue.advance()
    XCTAssertEqual(viewModel.currentLocation, nil)
    XCTAssertEqual(viewModel.weatherResults, [])
  }

  func testCancellationCannotBeObservedWithAnImmediateScheduler() {
    let viewModel = AppViewModel(weatherClient: .mock, mainQueue: .immediate)
    viewModel.cancelButtonTapped()
    // The ship has already sailed: the immediate scheduler delivered before the tap.
    XCTAssertEqual(viewModel.currentLocation, "Brooklyn")
  }
}

struct WeatherClient {
  var weather: (String) -> AnyPublisher<[String], Never>
  var searchLocations: () -> AnyPublisher<String, Never>

  static var mock: WeatherClient {
    WeatherClient(
      weather: { _ in Just(["moderate"]).eraseToAnyPublisher() },
      searchLocations: { Just("Brooklyn").eraseToAnyPublisher() }
    )
  }
}

final class AppViewModel {
  var currentLocation: String?
  var weatherResults: [String] = []
  let weatherClient: WeatherClient
  let mainQueue: AnySchedulerOf<DispatchQueue>
  var searchLocationsCancellable: AnyCancellable?
  var weatherRequestCancellable: AnyCancellable?

  init(weatherClient: WeatherClient, mainQueue: AnySchedulerOf<DispatchQueue>) {
    self.weatherClient = weatherClient
    self.mainQueue = mainQueue
    self.searchLocationsCancellable = weatherClient.searchLocations()
      .receive(on: mainQueue)
      .sink { [weak self] location in
        guard let self else { return }
        self.currentLocation = location
        self.weatherRequestCancellable = self.weatherClient.weather(location)
          .receive(on: self.mainQueue)
          .sink { [weak self] in self?.weatherResults = $0 }
      }
  }

  func cancelButtonTapped() {
    self.searchLocationsCancellable = nil
    self.weatherRequestCancellable = nil
  }
}
