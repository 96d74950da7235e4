import CombineSchedulers
import Foundation
import OpenCombineShim
import Testing

@MainActor @Test(.enabled(if: scheduler == "combine-schedulers"), arguments: 0..<cases)
func searchOnCombineSchedulers(_ run: Int) {
  let queue = DispatchQueue.test
  checkSearch(on: queue) { queue.advance(by: .milliseconds($0)) }
}
