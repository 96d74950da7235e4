import TempoExecutor
@_spi(TempoInternals) package import TempoSupport

#if canImport(XCTest)
  import XCTest
#endif

// The end of every XCTest test, with no code added: a test process that links TempoTestSupport
// registers an observer as it loads (`TempoTestSupportLoader`), which adds a teardown block to
// each test as it starts. The block runs inside the test, before `tearDown`, so what it reports
// counts; a failure recorded after the test has finished (`testCaseDidFinish`) would stop the
// process under swift-corelibs-xctest. See `XCTestEnds` for which work is the test's.

/// Called once by the loader's constructor, as the test process loads this library.
@_cdecl("tempo_test_support_loaded")
func tempoTestSupportLoaded() {
  #if canImport(XCTest)
    guard #available(TempoTestExecutor 1.0, *) else { return }
    XCTestEnds.startObserving()
    XCTestObservationCenter.shared.addTestObserver(EndOfTestObserver())
  #endif
}

#if canImport(XCTest)
  /// Adds the end-of-test check to every XCTest test as it starts.
  @available(TempoTestExecutor 1.0, *)
  private final class EndOfTestObserver: NSObject, XCTestObservation {
    func testCaseWillStart(_ testCase: XCTestCase) {
      XCTestEnds.testWillStart()
      let name = testCase.name
      testCase.addTeardownBlock { @Sendable () async in
        await endOfXCTest(named: name)
      }
    }
  }
#endif

/// The end of the XCTest test `name`: its executors close, and the work it left on its clocks
/// and schedulers is reported as ``LeftoverWork/inXCTests`` says.
@available(TempoTestExecutor 1.0, *)
func endOfXCTest(named name: String) async {
  let here = SourceLocation(fileID: #fileID, filePath: #filePath, line: #line, column: #column)
  guard let leftover = await XCTestEnds.testEnded(at: here) else { return }
  let policy = LeftoverWork.inXCTests
  guard policy != .ignore else { return }
  let listing = LeftoverMessage.compose(
    pending: leftover.pending, tasksAreRunning: leftover.tasksAreRunning, stuck: [],
    unfinished: leftover.unfinished)
  let message =
    "\(name): " + listing
    + (policy == .warn
      ? "\n(A warning: LeftoverWork.inXCTests = .fail makes it fail the test, .ignore turns it off.)"
      : "\n(LeftoverWork.inXCTests = .ignore turns this check off.)")
  if let intercept = XCTestEndReports.intercept.withLock({ $0 }) {
    return intercept(message, policy == .warn)
  }
  if let location = leftover.location {
    location.report(message, asWarning: policy == .warn)
  } else {
    reportTempoIssue(message, asWarning: policy == .warn)
  }
}

/// Where Tempo's own tests see what the end of an XCTest test reports, instead of the test
/// recording it (a test cannot expect a failure of its own end on every platform).
package enum XCTestEndReports {
  /// Takes each report (its message, and whether it is a warning) instead of the test.
  package static let intercept = LockedBox<(@Sendable (String, Bool) -> Void)?>(nil)
}
