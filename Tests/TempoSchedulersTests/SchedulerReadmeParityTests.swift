import TempoSchedulers
import XCTest

/// The examples of the README that the scheduler API follows, run as written.
final class SchedulerReadmeParityTests: XCTestCase {
  var cancellables: Set<AnyCancellable> = []

  func race<Output, Failure: Error>(
    _ first: Future<Output, Failure>,
    _ second: Future<Output, Failure>
  ) -> AnyPublisher<Output, Failure> {
    first
      .merge(with: second)
      .prefix(1)
      .eraseToAnyPublisher()
  }

  func testRaceOfTwoFutures() {
    let scheduler = DispatchQueue.test
    let first = Future<Int, Never> { callback in
      scheduler.schedule(after: scheduler.now.advanced(by: 1)) {
        callback(.success(1))
      }
    }
    let second = Future<Int, Never> { callback in
      scheduler.schedule(after: scheduler.now.advanced(by: 2)) {
        callback(.success(2))
      }
    }
    var output: [Int] = []
    let cancellable = race(first, second).sink { output.append($0) }

    scheduler.advance(by: 1)
    XCTAssertEqual(output, [1])

    scheduler.advance(by: 1)
    XCTAssertEqual(output, [1])
    _ = cancellable
  }

  func testTimerForAThousandSeconds() {
    let scheduler = DispatchQueue.test
    var output: [Int] = []

    Publishers.Timer(every: 1, scheduler: scheduler)
      .autoconnect()
      .sink { _ in output.append(output.count) }
      .store(in: &self.cancellables)

    XCTAssertEqual(output, [])

    scheduler.advance(by: 1)
    XCTAssertEqual(output, [0])

    scheduler.advance(by: 1)
    XCTAssertEqual(output, [0, 1])

    scheduler.advance(by: 1_000)
    XCTAssertEqual(output, Array(0...1_001))
  }

  func testImmediateSchedulerCollapsesADelay() {
    let viewModel = HomeViewModel(apiClient: .mock, scheduler: .immediate)
    viewModel.reloadButtonTapped()
    // No more waiting...
    XCTAssertEqual(viewModel.albums, [Album(id: 42)])
  }

  func testTestSchedulerShowsTheDelay() {
    let scheduler = DispatchQueue.test
    let viewModel = HomeViewModel(apiClient: .mock, scheduler: scheduler.eraseToAnyScheduler())
    viewModel.reloadButtonTapped()
    scheduler.advance(by: .seconds(9))
    XCTAssertEqual(viewModel.albums, nil)
    scheduler.advance(by: .seconds(1))
    XCTAssertEqual(viewModel.albums, [Album(id: 42)])
  }

  func testAnySchedulerInjectsImmediateAndLiveSchedulers() {
    let immediate = CurrencyViewModel(apiClient: .mock, scheduler: .immediate)
    immediate.reloadButtonTapped()
    XCTAssertEqual(immediate.currency, .mock)

    let live = CurrencyViewModel(apiClient: .mock, scheduler: .main)
    let erased = CurrencyViewModel(
      apiClient: .mock, scheduler: DispatchQueue.main.eraseToAnyScheduler())
    XCTAssertNil(live.currency)
    XCTAssertNil(erased.currency)
  }

  @available(*, deprecated)
  func testFavoriteButton() {
    let viewModel = CurrencyViewModel(
      apiClient: .mock,
      mainQueue: .failing
    )
    viewModel.currency = .mock

    viewModel.favoriteButtonTapped()
    XCTAssert(viewModel.currency?.isFavorite == true)

    viewModel.favoriteButtonTapped()
    XCTAssert(viewModel.currency?.isFavorite == false)
  }
}

// MARK: - The README's feature code

struct Album: Equatable {
  var id: Int
}

struct Currency: Equatable {
  var code: String
  var isFavorite = false
  static let mock = Currency(code: "EUR")
}

struct APIClient {
  var fetchAlbums: () -> AnyPublisher<[Album], Never>
  var fetchCurrency: () -> AnyPublisher<Currency, Never>

  static var mock: APIClient {
    APIClient(
      fetchAlbums: { Just([Album(id: 42)]).eraseToAnyPublisher() },
      fetchCurrency: { Just(.mock).eraseToAnyPublisher() }
    )
  }
}

final class HomeViewModel: ObservableObject {
  @Published var albums: [Album]?
  let apiClient: APIClient
  let scheduler: AnySchedulerOf<DispatchQueue>

  init(apiClient: APIClient, scheduler: AnySchedulerOf<DispatchQueue>) {
    self.apiClient = apiClient
    self.scheduler = scheduler
  }

  func reloadButtonTapped() {
    Just(())
      .delay(for: .seconds(10), scheduler: scheduler)
      .flatMap { [apiClient] in apiClient.fetchAlbums() }
      .map(Optional.some)
      .assign(to: &self.$albums)
  }
}

final class CurrencyViewModel: ObservableObject {
  @Published var currency: Currency?
  let apiClient: APIClient
  let scheduler: AnySchedulerOf<DispatchQueue>

  init(apiClient: APIClient, scheduler: AnySchedulerOf<DispatchQueue>) {
    self.apiClient = apiClient
    self.scheduler = scheduler
  }

  convenience init(apiClient: APIClient, mainQueue: AnySchedulerOf<DispatchQueue>) {
    self.init(apiClient: apiClient, scheduler: mainQueue)
  }

  func reloadButtonTapped() {
    self.apiClient
      .fetchCurrency()
      .receive(on: self.scheduler)
      .map(Optional.some)
      .assign(to: &self.$currency)
  }

  func favoriteButtonTapped() {
    self.currency?.isFavorite.toggle()
  }
}
