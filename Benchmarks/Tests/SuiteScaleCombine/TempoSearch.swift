import Foundation
import OpenCombineShim
import TempoSchedulers
import Testing

@MainActor @Test(.enabled(if: scheduler == "tempo"), arguments: 0..<cases)
func searchOnTempo(_ run: Int) {
  let queue = DispatchQueue.test
  let model = SearchModel(scheduler: queue)
  model.type("tempo") { queue.advance(by: .milliseconds($0)) }
  #expect(model.searches == 0)
  queue.advance(by: .milliseconds(300))
  #expect(model.searches == 1)
  #expect(model.results == ["TEMPO"])
}

@MainActor @Test(.enabled(if: scheduler == "immediate"), arguments: 0..<cases)
func searchOnImmediate(_ run: Int) {
  let model = SearchModel(scheduler: DispatchQueue.immediate)
  model.type("tempo") { _ in }
  #expect(model.searches == 5)
  #expect(model.results == ["TEMPO"])
}
