// The examples of swift-clocks' and combine-schedulers' READMEs, with only their imports changed
// (`import Clocks` and `import CombineSchedulers` become the two below). This file passes by
// compiling: the root package compiles it beside Tempo alone, and Interop/ compiles it again
// with `import Dependencies` beside Tempo (TEMPO_WITH_DEPENDENCIES). SwiftUI examples are left
// out, since SwiftUI is not on every platform Tempo builds on.

import Foundation
import TempoClocks
import TempoSchedulers
import XCTest

#if TEMPO_WITH_DEPENDENCIES
  import Dependencies
#endif

#if canImport(Combine)
  import Combine
#else
  import OpenCombineShim
#endif

// MARK: - swift-clocks

@MainActor
class ClocksFeatureModel: ObservableObject {
  @Published var count = 0
  let clock: any Clock<Duration>
  var timerTask: Task<Void, any Error>?

  init(clock: any Clock<Duration>) {
    self.clock = clock
  }
  func startTimerButtonTapped() {
    self.timerTask = Task {
      while true {
        try await self.clock.sleep(for: .seconds(1))
        self.count += 1
      }
    }
  }
  func stopTimerButtonTapped() {
    self.timerTask?.cancel()
    self.timerTask = nil
  }
}

@MainActor
class ClocksTimerModel: ObservableObject {
  @Published var count = 0
  let clock: any Clock<Duration>
  var timerTask: Task<Void, any Error>?

  init(clock: some Clock<Duration>) {
    self.clock = clock
  }
  func incrementButtonTapped() {
    self.count += 1
  }
  func decrementButtonTapped() {
    self.count -= 1
  }
  func startTimerButtonTapped() {
    self.timerTask = Task {
      for await _ in self.clock.timer(interval: .seconds(1)) {
        self.count += 1
      }
    }
  }
  func stopTimerButtonTapped() {
    self.timerTask?.cancel()
    self.timerTask = nil
  }
}

@MainActor
enum ClocksReadme {
  static func testTimer() async {
    let clock = TestClock()
    let model = ClocksFeatureModel(clock: clock)

    XCTAssertEqual(model.count, 0)
    model.startTimerButtonTapped()

    await clock.advance(by: .seconds(1))
    XCTAssertEqual(model.count, 1)

    await clock.advance(by: .seconds(4))
    XCTAssertEqual(model.count, 5)

    model.stopTimerButtonTapped()
    await clock.run()
    XCTAssertEqual(model.count, 5)
  }

  static func testIncrementDecrement() {
    let model = ClocksTimerModel(clock: UnimplementedClock())

    XCTAssertEqual(model.count, 0)
    model.incrementButtonTapped()
    XCTAssertEqual(model.count, 1)
    model.decrementButtonTapped()
    XCTAssertEqual(model.count, 0)
  }

  static func otherSpellings() async throws {
    let clocks: [any Clock<Duration>] = [
      ImmediateClock(), TestClock(), UnimplementedClock(), ContinuousClock(),
      AnyClock(ContinuousClock()), .immediate, .unimplemented("clock"),
    ]
    let clock = TestClock()
    try await clock.sleep(for: .seconds(1))
    await clock.advance()
    await clock.advance(to: clock.now.advanced(by: .seconds(1)))
    try await clock.checkSuspension()
    await clock.run()
    _ = clocks
  }
}

// MARK: - combine-schedulers

struct Episode: Equatable {
  var id: Int
  var isFavorite = false
  static let mock = Episode(id: 42)
}

struct ApiClient {
  var fetchEpisode: () -> AnyPublisher<Episode?, Never>
  var fetchEpisodes: () -> AnyPublisher<[Episode]?, Never>
  static var mock: ApiClient {
    ApiClient(
      fetchEpisode: { Just(.mock).eraseToAnyPublisher() },
      fetchEpisodes: { Just([.mock]).eraseToAnyPublisher() }
    )
  }
}

class GenericEpisodeViewModel<S: Scheduler>: ObservableObject {
  @Published var episode: Episode?

  let apiClient: ApiClient
  let scheduler: S

  init(apiClient: ApiClient, scheduler: S) {
    self.apiClient = apiClient
    self.scheduler = scheduler
  }

  func reloadButtonTapped() {
    self.apiClient.fetchEpisode()
      .receive(on: self.scheduler)
      .assign(to: &self.$episode)
  }
}

class EpisodeViewModel: ObservableObject {
  @Published var episode: Episode?

  let apiClient: ApiClient
  let mainQueue: AnySchedulerOf<DispatchQueue>

  init(apiClient: ApiClient, mainQueue: AnySchedulerOf<DispatchQueue>) {
    self.apiClient = apiClient
    self.mainQueue = mainQueue
  }

  func reloadButtonTapped() {
    self.apiClient.fetchEpisode()
      .receive(on: self.mainQueue)
      .assign(to: &self.$episode)
  }

  func favoriteButtonTapped() {
    self.episode?.isFavorite.toggle()
  }
}

class HomeViewModel: ObservableObject {
  @Published var episodes: [Episode]?

  let apiClient: ApiClient
  let scheduler: AnySchedulerOf<DispatchQueue>

  init(apiClient: ApiClient, scheduler: AnySchedulerOf<DispatchQueue>) {
    self.apiClient = apiClient
    self.scheduler = scheduler
  }

  func reloadButtonTapped() {
    Just(())
      .delay(for: .seconds(10), scheduler: self.scheduler)
      .flatMap { self.apiClient.fetchEpisodes() }
      .assign(to: &self.$episodes)
  }
}

func race<Output, Failure: Error>(
  _ first: Future<Output, Failure>,
  _ second: Future<Output, Failure>
) -> AnyPublisher<Output, Failure> {
  first
    .merge(with: second)
    .prefix(1)
    .eraseToAnyPublisher()
}

final class CombineSchedulersReadmeTests: XCTestCase {
  var cancellables: Set<AnyCancellable> = []

  func testErasedSchedulers() {
    let live = EpisodeViewModel(
      apiClient: .mock, mainQueue: DispatchQueue.main.eraseToAnyScheduler())
    let main = EpisodeViewModel(apiClient: .mock, mainQueue: .main)
    let immediate = EpisodeViewModel(apiClient: .mock, mainQueue: .immediate)
    let generic = GenericEpisodeViewModel(apiClient: .mock, scheduler: DispatchQueue.test)
    immediate.reloadButtonTapped()
    XCTAssertEqual(immediate.episode, .mock)
    _ = (live, main, generic)
  }

  func testRace() {
    let scheduler = DispatchQueue.test

    let first = Future<Int, Never> { callback in
      scheduler.schedule(after: scheduler.now.advanced(by: 1)) { callback(.success(1)) }
    }
    let second = Future<Int, Never> { callback in
      scheduler.schedule(after: scheduler.now.advanced(by: 2)) { callback(.success(2)) }
    }

    var output: [Int] = []
    let cancellable = race(first, second).sink { output.append($0) }

    scheduler.advance(by: 1)
    XCTAssertEqual(output, [1])

    scheduler.advance(by: 1)
    XCTAssertEqual(output, [1])
    _ = cancellable
  }

  func testViewModel() {
    let viewModel = HomeViewModel(
      apiClient: .mock,
      scheduler: .immediate
    )

    viewModel.reloadButtonTapped()

    XCTAssertEqual(viewModel.episodes, [Episode(id: 42)])
  }

  func testFavoriteButton() {
    let viewModel = EpisodeViewModel(
      apiClient: .mock,
      mainQueue: .unimplemented
    )
    viewModel.episode = .mock

    viewModel.favoriteButtonTapped()
    XCTAssert(viewModel.episode?.isFavorite == true)

    viewModel.favoriteButtonTapped()
    XCTAssert(viewModel.episode?.isFavorite == false)
  }

  func testTimer() {
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

  func liveTimers() {
    Publishers.Timer(every: .seconds(1), scheduler: DispatchQueue.main)
      .autoconnect()
      .sink { print("Timer", $0) }
      .store(in: &self.cancellables)

    DispatchQueue.main.timerPublisher(every: .seconds(1))
      .autoconnect()
      .sink { print("Timer", $0) }
      .store(in: &self.cancellables)
  }

  func concurrency(scheduler: AnySchedulerOf<DispatchQueue>) async throws {
    // Suspend the current task for 1 second
    try await scheduler.sleep(for: .seconds(1))

    // Perform work every 1 second
    for await instant in scheduler.timer(interval: .seconds(1)) {
      _ = instant
    }
  }
}
