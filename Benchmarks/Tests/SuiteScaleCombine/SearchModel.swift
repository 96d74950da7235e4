// The Combine suite as users run it: one Swift Testing test with many parameterized cases, in one
// debug process, in parallel. Each case makes its own scheduler, types into a search view model
// built on `debounce` and `receive(on:)`, advances, and checks the one search it ran.
//
//   SUITE_SCALE_CASES=6000 SUITE_SCALE_SCHEDULER=tempo|combine-schedulers|immediate \
//     .build/debug/TempoBenchmarksPackageTests.xctest --testing-library swift-testing \
//     --filter SuiteScaleCombine
//
// `tempo` runs the cases on Tempo's `DispatchQueue.test`, `combine-schedulers` on
// combine-schedulers' (the test each library's users write, synchronous, on the main actor),
// and `immediate` on Tempo's `DispatchQueue.immediate` with no advancing: the same test without
// time control, the baseline. suite-scale.sh runs the three. Each file sees only the members of
// the modules it imports, so that `DispatchQueue.test` is each library's own.

import Foundation
import OpenCombineShim
import Testing

let cases = Int(ProcessInfo.processInfo.environment["SUITE_SCALE_CASES"] ?? "") ?? 100
let scheduler = ProcessInfo.processInfo.environment["SUITE_SCALE_SCHEDULER"] ?? "tempo"

/// A search view model: each query waits out 300 ms of quiet, then searches, and the result is
/// delivered on the scheduler.
@MainActor final class SearchModel {
  private(set) var results: [String] = []
  private(set) var searches = 0
  let query = PassthroughSubject<String, Never>()
  private var cancellable: AnyCancellable?

  init<S: Scheduler>(scheduler: S) where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    cancellable =
      query
      .debounce(for: .milliseconds(300), scheduler: scheduler)
      .receive(on: scheduler)
      .sink { [weak self] query in
        MainActor.assumeIsolated {
          self?.searches += 1
          self?.results = [query.uppercased()]
        }
      }
  }

  /// Types `text` a letter at a time, `advance` moving time 100 ms after each.
  func type(_ text: String, advance: (Int) -> Void) {
    var typed = ""
    for letter in text {
      typed.append(letter)
      query.send(typed)
      advance(100)
    }
  }
}

/// The test each library's file runs: types "tempo" on a model on `scheduler`, `advance` moving
/// time by so many milliseconds, and checks that only the last query was searched, 300 ms after
/// it.
@MainActor func checkSearch<S: Scheduler>(on scheduler: S, advance: (Int) -> Void)
where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
  let model = SearchModel(scheduler: scheduler)
  model.type("tempo", advance: advance)
  #expect(model.searches == 0)
  advance(300)
  #expect(model.searches == 1)
  #expect(model.results == ["TEMPO"])
}
