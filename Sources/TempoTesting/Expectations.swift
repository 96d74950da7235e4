import IssueReporting

extension MarbleTest {
  /// Reports an issue, in XCTest and Swift Testing alike, unless `recorded` shows exactly the
  /// events of `diagram` at its ticks. Every value, completion and failure is compared, at every
  /// tick and in order; subscriptions count only if the diagram marks one (`^`); demand and
  /// cancellation never do. A failure (`#`) matches any error.
  ///
  /// The issue prints both timelines, aligned, marks the first tick where they differ, and names
  /// the first event that differs:
  ///
  /// ```text
  /// The recorded events differ from the marble diagram at tick 6.
  /// expected: -----b---c-|
  /// recorded: ------b--c-|
  ///                 ^
  /// expected "b" at tick 5, recorded "b" at tick 6
  /// ```
  ///
  /// `values` names the values of the diagram; without it, a character stands for itself, as a
  /// `String` or `Character`. In the recorded timeline, a value prints as the character that
  /// stands for it, or `?` if none does.
  ///
  /// - Complexity: O(*n* + *m*) for *n* records and *m* events in the diagram.
  public func expect<Value: Equatable, Failure: Error>(
    _ recorded: [Recorded<Value, Failure>],
    _ diagram: String,
    values: [Character: Value] = [:],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let expected = Marbles(diagram)
    if let problem = expected.problem {
      reportIssue(
        "The marble diagram \"\(diagram)\" is malformed: \(problem).",
        fileID: fileID, filePath: filePath, line: line, column: column)
      return
    }
    func meaning(of character: Character) -> Value? { value(character, values) }
    for case (_, .value(let character)) in expected.events where meaning(of: character) == nil {
      reportIssue(
        "The marble diagram \"\(diagram)\" uses '\(character)', which has no value.",
        fileID: fileID, filePath: filePath, line: line, column: column)
      return
    }
    // The character that stands for `value`: the first key of `values` (in order) mapped to it,
    // or the value's own character if that character stands for it.
    let keys = values.keys.sorted()
    func character(of value: Value) -> Character {
      if let key = keys.first(where: { values[$0] == value }) { return key }
      if let text = value as? String, text.count == 1, meaning(of: text.first!) == value {
        return text.first!
      }
      if let character = value as? Character, meaning(of: character) == value {
        return character
      }
      return "?"
    }
    let countsSubscription = expected.subscriptionTick != nil
    let actual = recorded.filter { record in
      switch record.event {
      case .value, .finished, .failed: true
      case .subscribed: countsSubscription
      case .requested, .cancelled: false
      }
    }
    func matches(
      _ record: Recorded<Value, Failure>, _ event: (tick: Int, symbol: Marbles.Symbol)
    )
      -> Bool
    {
      guard record.tick == event.tick else { return false }
      switch (record.event, event.symbol) {
      case (.value(let value), .value(let character)): return value == meaning(of: character)
      case (.finished, .finished), (.failed, .failed), (.subscribed, .subscribed): return true
      default: return false
      }
    }
    let index =
      zip(actual, expected.events).enumerated().first { !matches($1.0, $1.1) }?.offset
      ?? (actual.count == expected.events.count ? nil : min(actual.count, expected.events.count))
    guard let index else { return }
    let got = index < actual.count ? actual[index] : nil
    let wanted = index < expected.events.count ? expected.events[index] : nil
    let tick = [got?.tick, wanted?.tick].compactMap { $0 }.min() ?? 0
    let rendered = Marbles.render(
      actual.compactMap { record in record.symbol(character).map { (record.tick, $0) } })
    let marker = markerColumn(forTick: tick, in: diagram)
    let wantedText =
      wanted.map { event -> String in
        let what: String =
          switch event.symbol {
          case .value(let character):
            // The diagram's character, and the value it stands for when `values` names it.
            values[character].map { "\(character) = \(String(reflecting: $0))" }
              ?? meaning(of: character).map { String(reflecting: $0) } ?? "\(character)"
          case .finished: "the finish (|)"
          case .failed: "a failure (#)"
          case .subscribed: "the subscription (^)"
          }
        return "\(what) at tick \(event.tick)"
      } ?? "nothing more"
    let gotText =
      got.map { record -> String in
        let what: String =
          switch record.event {
          case .value(let value): String(reflecting: value)
          case .finished: "the finish"
          case .failed(let error): "a failure (\(error))"
          case .subscribed: "the subscription"
          case .requested(let demand): "a request for \(demand)"
          case .cancelled: "the cancellation"
          }
        return "\(what) at tick \(record.tick)"
      } ?? "nothing more"
    reportIssue(
      """
      The recorded events differ from the marble diagram at tick \(tick).
      expected: \(diagram)
      recorded: \(rendered)
                \(String(repeating: " ", count: marker))^
      expected \(wantedText), recorded \(gotText)
      """,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Reports an issue, in XCTest and Swift Testing alike, unless `recorded` is `expected`, record
  /// for record: the same events at the same ticks, in the same order.
  ///
  /// Values, completions and failures are always compared. Subscriptions, demand and
  /// cancellations are compared only if `expected` lists at least one of that kind, so a list can
  /// say as much or as little as the test cares about. Two failures match if their errors are
  /// equal (when the error type is `Equatable`) or print the same.
  ///
  /// ```swift
  /// let output = test.start { input.debounce(for: test.ticks(2), scheduler: test.scheduler) }
  /// test.expect(output, [.value(5, "b"), .value(10, "c"), .finished(11)])
  /// ```
  ///
  /// A mismatch names the first record that differs and prints both lists:
  ///
  /// ```text
  /// The recorded events differ from the expected list at record 2 (tick 10).
  /// expected: 5: value("b"), 10: value("c"), 11: finished
  /// recorded: 5: value("b"), 10: value("x"), 11: finished
  /// expected 10: value("c"), recorded 10: value("x")
  /// ```
  ///
  /// - Complexity: O(*n* + *m*) for *n* records and *m* expected ones.
  public func expect<Value: Equatable, Failure: Error>(
    _ recorded: [Recorded<Value, Failure>],
    _ expected: [Recorded<Value, Failure>],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let kinds = Set(expected.map(\.event.kind))
    let actual = recorded.filter { record in
      switch record.event.kind {
      case .value, .finished, .failed: true
      case let kind: kinds.contains(kind)
      }
    }
    let index =
      zip(actual, expected).enumerated().first { !$1.0.isSame(as: $1.1) }?.offset
      ?? (actual.count == expected.count ? nil : min(actual.count, expected.count))
    guard let index else { return }
    let got = index < actual.count ? actual[index] : nil
    let wanted = index < expected.count ? expected[index] : nil
    let tick = [got?.tick, wanted?.tick].compactMap { $0 }.min() ?? 0
    func list(_ records: [Recorded<Value, Failure>]) -> String {
      records.isEmpty ? "(nothing)" : records.map(\.description).joined(separator: ", ")
    }
    let wantedText = wanted?.description ?? "nothing more"
    let gotText = got?.description ?? "nothing more"
    reportIssue(
      """
      The recorded events differ from the expected list at record \(index + 1) (tick \(tick)).
      expected: \(list(expected))
      recorded: \(list(actual))
      expected \(wantedText), recorded \(gotText)
      """,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The value `character` stands for.
  private func value<Value>(_ character: Character, _ values: [Character: Value]) -> Value? {
    values[character] ?? (String(character) as? Value) ?? (character as? Value)
  }

  /// The column of `tick` in a diagram (groups take one tick, spaces none).
  private func markerColumn(forTick tick: Int, in diagram: String) -> Int {
    var current = 0
    var inGroup = false
    for (offset, character) in diagram.enumerated() {
      if current >= tick, character != " " { return offset }
      switch character {
      case " ": continue
      case "(": inGroup = true
      case ")":
        inGroup = false
        current += 1
      default: if !inGroup { current += 1 }
      }
    }
    return diagram.count + (tick - current)
  }
}
