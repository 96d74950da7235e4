import IssueReporting

/// Where a user called a Tempo API, so that a reported issue points at the user's line.
package struct SourceLocation: Sendable {
  package let fileID: StaticString
  package let filePath: StaticString
  package let line: UInt
  package let column: UInt

  package init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// Reports `message` through IssueReporting, which fails the current XCTest or Swift Testing
  /// test (and, outside of tests, logs a runtime warning).
  package func report(_ message: String, asWarning: Bool = false) {
    reportIssue(
      message, severity: asWarning ? .warning : .error, fileID: fileID, filePath: filePath,
      line: line,
      column: column)
  }
}
