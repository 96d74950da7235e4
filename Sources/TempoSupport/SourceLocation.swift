import IssueReporting

/// Where a user called a Tempo API, so that a reported issue points at the user's line.
package struct SourceLocation: Sendable {
  package let fileID: StaticString
  package let filePath: StaticString
  package let line: UInt
  package let column: UInt
  /// The factory property this location stands for (`DispatchQueue.test`), whose caller's line
  /// is unknown; nil for a location of the user's own line.
  package var factory: String?
  /// Whether this location is not the caller's and names no factory either (see
  /// ``unknownCaller(_:instead:fileID:filePath:line:column:)``).
  package var isCallerUnknown = false
  /// What the note appended to issues reported here says, if this location is not the user's.
  /// Kept in pieces: a clock or scheduler is made with such a location in nearly every test,
  /// and the note is composed only for an issue.
  private var callerNote: CallerNote?

  /// Why a location is not the caller's, and the spelling that would capture the caller's line.
  private struct CallerNote: Sendable {
    /// The API called, in backticks in the note.
    var spelling: String
    /// Whether `spelling` is a factory property rather than an initializer.
    var isProperty: Bool
    /// What the API creates: "the clock", "the scheduler".
    var what: String
    var instead: String
  }

  package init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// A location in Tempo itself, for a report that has no user's line to point at.
  package static var unknown: SourceLocation {
    SourceLocation(fileID: #fileID, filePath: #filePath, line: #line, column: #column)
  }

  /// The location of an initializer that cannot take the caller's line (`TestClock()`, which
  /// takes no arguments so that it stays ambiguous beside swift-clocks'); issues reported here
  /// say so and name `instead`, a spelling that captures it. Listings name no place for it.
  package static func unknownCaller(
    _ spelling: String,
    instead: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> SourceLocation {
    var location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    location.isCallerUnknown = true
    location.callerNote = CallerNote(
      spelling: spelling, isProperty: false, what: "the clock", instead: instead)
    return location
  }

  /// The location of a factory property, which cannot know the line that read it; issues
  /// reported here say so and name `instead`, a spelling that captures the caller's line.
  package static func factoryProperty(
    _ factory: String,
    instead: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> SourceLocation {
    var location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    location.factory = factory
    location.callerNote = CallerNote(
      spelling: factory, isProperty: true, what: "the scheduler", instead: instead)
    return location
  }

  /// Appended to every issue reported here: says how to point the issue at the user's line when
  /// this location is not the user's (a factory property cannot know its caller); empty for
  /// the user's own line.
  package var note: String {
    guard let callerNote else { return "" }
    let why =
      callerNote.isProperty
      ? "`\(callerNote.spelling)` is a property, which cannot know the line that read it"
      : "`\(callerNote.spelling)` cannot know the line that called it"
    return
      " (\(why): create \(callerNote.what) with `\(callerNote.instead)` to have this issue point at that line.)"
  }

  /// Drops the note: the issue reported here is about the user's code, whatever line it points
  /// at.
  package mutating func dropNote() {
    callerNote = nil
  }

  /// Reports `message` through IssueReporting, which fails the current XCTest or Swift Testing
  /// test (and, outside of tests, logs a runtime warning).
  package func report(_ message: String, asWarning: Bool = false) {
    reportTempoIssue(
      message + note, asWarning: asWarning, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }
}

/// Whether the current task runs a Swift Testing test (whose issues land in the test whose
/// task records them), rather than an XCTest test or none.
package var isInSwiftTestingTest: Bool { TestContext.current?.isSwiftTesting ?? false }

/// Reports `message` where IssueReporting's defaults point, with the hint of
/// ``testSupportHint``: for issues that have no user's line to point at.
///
/// A warning must not fail the test. Swift Testing records it as a warning; XCTest has no
/// such severity (IssueReporting fails the test for a warning too), so under XCTest a warning
/// is written to standard error instead, as `file:line: warning: message`, the form Xcode and
/// the test log show.
package func reportTempoIssue(
  _ message: String,
  asWarning: Bool = false,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  if asWarning, TestContext.current == .xcTest {
    Platform.writeToStandardError("\(filePath):\(line): warning: \(message)\n")
    return
  }
  reportIssue(
    message + testSupportHint, severity: asWarning ? .warning : .error, fileID: fileID,
    filePath: filePath, line: line, column: column)
}

/// Appended to every issue when a Swift Testing test is running in a binary that does not link
/// IssueReporting's test support (which `TempoTestSupport` brings): the issue is then only
/// printed, and IssueReporting's own hint names its module, not the product to add.
package var testSupportHint: String {
  TestSupportLink.isMissing ? TestSupportLink.hint : ""
}

package enum TestSupportLink {
  /// The text appended to issues when the test support is missing.
  package static let hint =
    " (This issue fails the test only if the test target links Tempo's `TempoTestSupport` "
    + "product: add `.product(name: \"TempoTestSupport\", package: \"tempo\")` to its "
    + "dependencies.)"

  /// Whether a Swift Testing test is running without IssueReporting's test support linked.
  static var isMissing: Bool {
    guard TestContext.current?.isSwiftTesting == true else { return false }
    return !isLinked
  }

  /// Whether the binary has IssueReportingTestSupport's entry point for recording an issue.
  private static let isLinked =
    Platform.symbol(named: "$s25IssueReportingTestSupport07_recordA0ypyF") != nil
}
