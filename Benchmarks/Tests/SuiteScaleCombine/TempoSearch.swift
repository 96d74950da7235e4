import Foundation
import OpenCombineShim
import TempoSchedulers
import Testing

@MainActor @Test(.enabled(if: scheduler == "tempo"), arguments: 0..<cases)
func searchOnTempo(_ run: Int) {
  let queue = DispatchQueue.test
  checkSearch(on: queue) { queue.advance(by: .milliseconds($0)) }
}

@MainActor @Test(.enabled(if: scheduler == "immediate"), arguments: 0..<cases)
func searchOnImmediate(_ run: Int) {
  let model = SearchModel(scheduler: DispatchQueue.immediate)
  model.type("tempo") { _ in }
  #expect(model.searches == 5)
  #expect(model.results == ["TEMPO"])
}
