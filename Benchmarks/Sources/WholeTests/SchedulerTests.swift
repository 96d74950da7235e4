// The whole tests that run on a Combine scheduler, written once for any scheduler with
// `DispatchQueue`'s time.

import Foundation
import OpenCombineShim

/// A whole test iteration on a scheduler: builds its model on `scheduler`, advances it with
/// `advance` (synchronous or async, as the implementation's test would), and answers the
/// expectations that failed (none when it passes).
protocol SchedulerTest: Sendable {
  var name: String { get }

  @MainActor
  func run<S: Scheduler>(
    on scheduler: S, advance: (S.SchedulerTimeType.Stride) async -> Void
  ) async -> [String] where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType
}

/// The search test on a `@MainActor` model, as a view model is; and on a model of no isolation,
/// whose `sink` may run on any thread (the search of a model on a `@MainActor` crashes where the
/// scheduler's actions run off the main actor: Swift checks a `@MainActor` closure's isolation
/// when it is called).
let schedulerTests: [any SchedulerTest] = [
  CombineSearch(name: "combine-search-debounce", onMainActor: true),
  CombineSearch(name: "combine-search-debounce-nonisolated", onMainActor: false),
]

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
    on scheduler: S, advance: (S.SchedulerTimeType.Stride) async -> Void
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
