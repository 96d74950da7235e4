import CombineSchedulers
import Foundation
import OpenCombineShim
import Testing

@MainActor @Test(.enabled(if: scheduler == "combine-schedulers"), arguments: 0..<cases)
func searchOnCombineSchedulers(_ run: Int) {
  let queue = DispatchQueue.test
  let model = SearchModel(scheduler: queue)
  model.type("tempo") { queue.advance(by: .milliseconds($0)) }
  #expect(model.searches == 0)
  queue.advance(by: .milliseconds(300))
  #expect(model.searches == 1)
  #expect(model.results == ["TEMPO"])
}
