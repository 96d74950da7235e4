import IssueReporting
import TempoSchedulers

// The factories of test publishers on a bench: from diagrams and from lists of events.
extension MarbleTest {
  /// A hot publisher of the diagram's characters, as strings.
  ///
  /// ```swift
  /// let input = test.hot("-a^-b-|")   // the harness subscribes at tick 2; `a` is in the past
  /// ```
  public func hot(
    _ diagram: String,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<String, Never> {
    let location = CallSite(fileID, filePath, line, column)
    return diagramPublisher(
      diagram, values: characters(of: diagram), error: nil, hot: true, location: location)
  }

  /// A hot publisher whose diagram's characters stand for `values`.
  public func hot<Output>(
    _ diagram: String, values: [Character: Output],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Never> {
    let location = CallSite(fileID, filePath, line, column)
    return diagramPublisher(diagram, values: values, error: nil, hot: true, location: location)
  }

  /// A hot publisher that can fail with `error` (`#` in the diagram).
  public func hot<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], error: Failure,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Failure> {
    let location = CallSite(fileID, filePath, line, column)
    return diagramPublisher(diagram, values: values, error: error, hot: true, location: location)
  }

  /// A hot publisher that plays `events` at their ticks, counted from the start of the test.
  ///
  /// Any value will do, `Equatable` or not; `.subscribed(tick)` marks where the harness
  /// subscribes, as `^` does in a diagram:
  ///
  /// ```swift
  /// let input = test.hot([.value(1, 10), .subscribed(2), .value(4, 20), .finished(6)])
  /// let output = test.start { input.map { $0 * 2 } }
  /// test.expect(output, [.value(4, 40), .finished(6)])
  /// ```
  ///
  /// Events must be values, finishes and failures, in tick order, none after the completion;
  /// anything else is reported.
  public func hot<Output>(
    _ events: [Recorded<Output, Never>],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Never> {
    let location = CallSite(fileID, filePath, line, column)
    return TestPublisher(
      test: self, script: events, hot: true, source: "the hot publisher's list",
      location: location)
  }

  /// A hot publisher that plays `events`, which may fail, at their ticks.
  ///
  /// ```swift
  /// let input = test.hot([.value(1, "a"), .failed(3, URLError(.timedOut))])
  /// ```
  public func hot<Output, Failure: Error>(
    _ events: [Recorded<Output, Failure>],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Failure> {
    let location = CallSite(fileID, filePath, line, column)
    return TestPublisher(
      test: self, script: events, hot: true, source: "the hot publisher's list",
      location: location)
  }

  /// A cold publisher of the diagram's characters, as strings.
  public func cold(
    _ diagram: String,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<String, Never> {
    let location = CallSite(fileID, filePath, line, column)
    return diagramPublisher(
      diagram, values: characters(of: diagram), error: nil, hot: false, location: location)
  }

  /// A cold publisher whose diagram's characters stand for `values`.
  public func cold<Output>(
    _ diagram: String, values: [Character: Output],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Never> {
    let location = CallSite(fileID, filePath, line, column)
    return diagramPublisher(diagram, values: values, error: nil, hot: false, location: location)
  }

  /// A cold publisher that can fail with `error` (`#` in the diagram).
  public func cold<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], error: Failure,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Failure> {
    let location = CallSite(fileID, filePath, line, column)
    return diagramPublisher(diagram, values: values, error: error, hot: false, location: location)
  }

  /// A cold publisher that plays `events` for each subscriber, counting ticks from its
  /// subscription.
  ///
  /// ```swift
  /// let input = test.cold([.value(0, 1.5), .value(2, 2.5), .finished(3)])
  /// ```
  public func cold<Output>(
    _ events: [Recorded<Output, Never>],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Never> {
    let location = CallSite(fileID, filePath, line, column)
    return TestPublisher(
      test: self, script: events, hot: false, source: "the cold publisher's list",
      location: location)
  }

  /// A cold publisher that plays `events`, which may fail, for each subscriber.
  public func cold<Output, Failure: Error>(
    _ events: [Recorded<Output, Failure>],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestPublisher<Output, Failure> {
    let location = CallSite(fileID, filePath, line, column)
    return TestPublisher(
      test: self, script: events, hot: false, source: "the cold publisher's list",
      location: location)
  }

  private func diagramPublisher<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], error: Failure?, hot: Bool,
    location: CallSite
  ) -> TestPublisher<Output, Failure> {
    let script = PublisherScript<Output, Failure>.recorded(
      from: diagram, values: values, error: error, location: location)
    return TestPublisher(
      test: self, script: script, hot: hot, source: "the marble diagram \"\(diagram)\"",
      location: location)
  }

  func characters(of diagram: String) -> [Character: String] {
    var values: [Character: String] = [:]
    for (_, symbol) in Marbles(diagram).events {
      if case .value(let character) = symbol { values[character] = String(character) }
    }
    return values
  }
}
