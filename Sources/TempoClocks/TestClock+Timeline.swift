import TempoCore
import TempoSupport
public import TempoTimeline

extension TestClock where Duration == Swift.Duration {
  /// Creates a test clock on a shared timeline: its instant's offset is the time since the
  /// timeline began, and advancing it advances every source of the timeline.
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// let clock = TestClock(timeline: time)
  /// ```
  public convenience init(
    timeline: TestTimeline,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      timeline: Timeline(
        sharing: timeline.shared,
        name: "TestClock",
        advancedBy: { $0.advanced(by: $1) },
        toShared: { $0.offset },
        fromShared: { Instant(offset: $0) }
      ),
      creation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}
