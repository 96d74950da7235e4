import IssueReporting

/// Where in the user's test a call was made, so that an issue found later points there.
struct CallSite: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  init(_ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// Reports `message` as an issue at this location.
  func report(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
