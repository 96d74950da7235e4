// The whole tests that run on a Combine scheduler, written once for any scheduler with
// `DispatchQueue`'s time.

import ConcurrencyExtras
import Dependencies
import Foundation
import OpenCombineShim

/// A whole test iteration on a scheduler: builds its model on `scheduler`, advances it with
/// `advance` (synchronous or async, as the implementation's test would; on the main actor, as a
/// `@MainActor` test calls it, with no hop off it), and answers the
/// expectations that failed (none when it passes).
protocol SchedulerTest: Sendable {
  var name: String { get }
  /// Whether the test runs on the implementation's immediate scheduler (`.immediate`) rather
  /// than on its test scheduler: then `advance` does nothing.
  var isImmediate: Bool { get }
  /// Whether the test's model takes its scheduler type-erased (`AnySchedulerOf<DispatchQueue>`,
  /// erased by the implementation's own library) rather than as its concrete type.
  var erasesScheduler: Bool { get }

  @MainActor
  func run<S: Scheduler>(
    on scheduler: S, advance: @MainActor (S.SchedulerTimeType.Stride) async -> Void
  ) async -> [String] where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType
}

/// The search test on a `@MainActor` model, as a view model is; and on a model of no isolation,
/// whose `sink` may run on any thread (the search of a model on a `@MainActor` crashes where the
/// scheduler's actions run off the main actor: Swift checks a `@MainActor` closure's isolation
/// when it is called).
let schedulerTests: [any SchedulerTest] = [
  CombineSearch(name: "combine-search-debounce", onMainActor: true),
  CombineSearch(name: "combine-search-debounce-nonisolated", onMainActor: false),
  ImmediateSearch(),
  DependenciesFeature(),
]

extension SchedulerTest {
  var isImmediate: Bool { false }
  var erasesScheduler: Bool { false }
}

/// What a search has found, and how many searches ran.
final class SearchResults {
  var results: [String] = []
  var searches = 0

  func searched(_ query: String) {
    searches += 1
    results = [query.uppercased()]
  }
}

/// A search view model: queries through `debounce(for: .milliseconds(300), scheduler:)` and
/// `receive(on:)` into the model.
@MainActor
final class CombineSearchModel {
  let state = SearchResults()
  let query = PassthroughSubject<String, Never>()
  private var cancellable: AnyCancellable?

  init<S: Scheduler>(scheduler: S) where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    cancellable = searches(query, on: scheduler).sink { [state] in state.searched($0) }
  }
}

/// ``CombineSearchModel`` without an isolation.
final class NonisolatedSearchModel {
  let state = SearchResults()
  let query = PassthroughSubject<String, Never>()
  private var cancellable: AnyCancellable?

  init<S: Scheduler>(scheduler: S) where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    cancellable = searches(query, on: scheduler).sink { [state] in state.searched($0) }
  }
}

/// The queries to search: the last one after a pause of 300 ms, delivered on `scheduler`.
func searches<S: Scheduler>(
  _ query: PassthroughSubject<String, Never>, on scheduler: S
) -> AnyPublisher<String, Never> where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
  query
    .debounce(for: .milliseconds(300), scheduler: scheduler)
    .receive(on: scheduler)
    .eraseToAnyPublisher()
}

/// Typing three letters 100 ms apart searches once, 300 ms after the last.
struct CombineSearch: SchedulerTest {
  let name: String
  let onMainActor: Bool

  @MainActor
  func run<S: Scheduler>(
    on scheduler: S, advance: @MainActor (S.SchedulerTimeType.Stride) async -> Void
  ) async -> [String] where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    let check = Check()
    let model: (query: PassthroughSubject<String, Never>, state: SearchResults, owner: AnyObject)
    if onMainActor {
      let isolated = CombineSearchModel(scheduler: scheduler)
      model = (isolated.query, isolated.state, isolated)
    } else {
      let plain = NonisolatedSearchModel(scheduler: scheduler)
      model = (plain.query, plain.state, plain)
    }
    model.query.send("a")
    await advance(.milliseconds(100))
    model.query.send("ab")
    await advance(.milliseconds(100))
    model.query.send("abc")
    await advance(.milliseconds(299))
    check.expect(
      model.state.searches == 0, "searched \(model.state.searches) times before the pause")
    await advance(.milliseconds(1))
    check.expect(model.state.results == ["ABC"], "results \(model.state.results)")
    check.expect(model.state.searches == 1, "searched \(model.state.searches) times")
    withExtendedLifetime(model.owner) {}
    return check.failures
  }
}

/// The search view model on an immediate scheduler, as a test that does not care about time
/// writes it: every query is searched at once, and the last one wins.
struct ImmediateSearch: SchedulerTest {
  let name = "combine-search-immediate"
  var isImmediate: Bool { true }

  @MainActor
  func run<S: Scheduler>(
    on scheduler: S, advance: @MainActor (S.SchedulerTimeType.Stride) async -> Void
  ) async -> [String] where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    let check = Check()
    let model = CombineSearchModel(scheduler: scheduler)
    model.query.send("a")
    model.query.send("ab")
    model.query.send("abc")
    check.expect(model.state.results == ["ABC"], "results \(model.state.results)")
    check.expect(model.state.searches == 3, "searched \(model.state.searches) times")
    return check.failures
  }
}

// MARK: - swift-dependencies

/// The main queue of a feature, as swift-dependencies hands it: `AnySchedulerOf<DispatchQueue>` of
/// the implementation's own library. (swift-dependencies declares `\.mainQueue` only where
/// Apple's Combine is; this key stands in for it, generic so that each library's erased
/// scheduler has one. The box only lets a generic key hold a scheduler: both libraries'
/// `AnyScheduler` are `Sendable`.)
enum MainQueueKey<Queue>: DependencyKey {
  static var liveValue: UncheckedSendable<Queue> {
    fatalError("the main queue is always given by the test")
  }
}

/// A feature that shows a confirmation a second after a tap and hides it two seconds later,
/// on the main queue it reads through swift-dependencies.
@MainActor
final class ConfirmationFeature<Queue: Scheduler>
where Queue.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
  @Dependency(MainQueueKey<Queue>.self) private var mainQueue
  var message: String?
  var taps = 0
  private var cancellables: Set<AnyCancellable> = []

  func saveTapped() {
    taps += 1
    let saved = taps
    Just("Saved \(saved)")
      .delay(for: .seconds(1), scheduler: mainQueue.value)
      .sink { [weak self] in self?.message = $0 }
      .store(in: &cancellables)
    Just(saved)
      .delay(for: .seconds(3), scheduler: mainQueue.value)
      .sink { [weak self] saved in
        guard let self, self.taps == saved else { return }
        self.message = nil
      }
      .store(in: &cancellables)
  }
}

/// The confirmation feature, its main queue given through `withDependencies`: a tap shows
/// "Saved 1" at 1 s; a second tap at 1 s shows "Saved 2" at 2 s, which the first tap's hiding
/// at 3 s leaves, and its own hides at 4 s.
struct DependenciesFeature: SchedulerTest {
  let name = "dependencies-main-queue"
  var erasesScheduler: Bool { true }

  @MainActor
  func run<S: Scheduler>(
    on scheduler: S, advance: @MainActor (S.SchedulerTimeType.Stride) async -> Void
  ) async -> [String] where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    let check = Check()
    let feature = withDependencies {
      $0[MainQueueKey<S>.self] = UncheckedSendable(scheduler)
    } operation: {
      ConfirmationFeature<S>()
    }
    feature.saveTapped()
    await advance(.milliseconds(999))
    check.expect(feature.message == nil, "message \(feature.message ?? "nil") before 1 s")
    await advance(.milliseconds(1))
    check.expect(feature.message == "Saved 1", "message \(feature.message ?? "nil") at 1 s")
    feature.saveTapped()
    await advance(.seconds(1))
    check.expect(feature.message == "Saved 2", "message \(feature.message ?? "nil") at 2 s")
    await advance(.seconds(1))
    check.expect(feature.message == "Saved 2", "message \(feature.message ?? "nil") at 3 s")
    await advance(.seconds(1))
    check.expect(feature.message == nil, "message \(feature.message ?? "nil") at 4 s")
    return check.failures
  }
}
