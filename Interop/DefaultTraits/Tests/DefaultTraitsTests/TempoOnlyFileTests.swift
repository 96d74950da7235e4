import TempoSchedulers
import XCTest

/// With `MemberImportVisibility`, a file that imports only TempoSchedulers sees only Tempo's
/// factories, even in a target that links swift-dependencies and combine-schedulers.
final class TempoOnlyFileTests: XCTestCase {
  func testAFileThatImportsOnlyTempoGetsTempos() {
    let values: [Any] = [
      DispatchQueue.test, RunLoop.immediate, OperationQueue.unimplemented,
      AnySchedulerOf<DispatchQueue>.immediate, TestSchedulerOf<RunLoop>.self,
    ]
    for value in values {
      XCTAssertTrue(String(reflecting: type(of: value)).contains("TempoSchedulers."))
    }
  }
}
