@_spi(TempoInternals) package import TempoSupport

/// The report of a test blocked on time, made by the task whose sleep it ended.
package struct HangReport: Error, Sendable {
  let message: String
  let location: SourceLocation?
  /// How the scope reports at its test's declaration, if it does.
  package var reportInScope: (@Sendable (String) -> Void)?

  package init(message: String, location: SourceLocation?) {
    self.message = message
    self.location = location
  }

  /// The report with `note` added as a paragraph of its own.
  package func adding(_ note: String) -> HangReport {
    var report = HangReport(message: message + "\n" + note, location: location)
    report.reportInScope = reportInScope
    return report
  }

  /// Reports the hang where the test is.
  package func deliver() {
    if let reportInScope {
      reportInScope(message)
    } else if let location {
      var location = location
      location.dropNote()
      location.report(message)
    } else {
      reportTempoIssue(message)
    }
  }
}

/// Why a sleep ended without its time coming: the hang watch ended it, and its task reports
/// the hang (if it carries the report) and throws `CancellationError`.
package struct EndedBlockedOnTime: Error, Sendable {
  package let report: HangReport?
}
