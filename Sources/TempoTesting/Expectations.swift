import IssueReporting

extension MarbleTest {
  /// Reports an issue, in XCTest and Swift Testing alike, unless `recorded` shows exactly the
  /// events of `diagram` at its ticks. Subscriptions count only if the diagram marks one (`^`);
  /// demand and cancellation never do. A failure (`#`) matches any error.
  ///
  /// The issue prints both timelines, aligned, and marks the first tick where they differ:
  ///
  /// ```text
  /// The recorded events differ from the marble diagram at tick 6.
  /// expected: -----b---c-|
  /// recorded: ------b--c-|
  ///                 ^
  /// ```
  ///
  /// `values` names the values of the diagram; without it, a character stands for itself, as a
  /// `String` or `Character`. A recorded value that no character stands for prints as `?`.
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
    let countsSubscription = expected.subscriptionTick != nil
    func value(of character: Character) -> Value? {
      values[character] ?? (String(character) as? Value) ?? (character as? Value)
    }
    func character(of value: Value) -> Character {
      if let key = values.first(where: { $0.value == value })?.key { return key }
      if let text = value as? String, text.count == 1 { return text.first! }
      if let character = value as? Character { return character }
      return "?"
    }
    let actual: [(tick: Int, symbol: Marbles.Symbol)] = recorded.compactMap { record in
      guard let symbol = record.symbol(character) else { return nil }
      if symbol == .subscribed, !countsSubscription { return nil }
      return (record.tick, symbol)
    }
    var matches = actual.count == expected.events.count
    var firstDifference: Int?
    for (index, event) in expected.events.enumerated() {
      guard index < actual.count else {
        firstDifference = firstDifference ?? event.tick
        matches = false
        break
      }
      let got = actual[index]
      var same = got.tick == event.tick && got.symbol == event.symbol
      if same, case .value(let character) = event.symbol,
        case .value = recorded.first(where: { $0.tick == got.tick })?.event
      {
        // Same character; compare the values themselves, in case two share a character.
        let recordedValues = recorded.filter { $0.tick == got.tick }.compactMap { record in
          if case .value(let value) = record.event { return value } else { return nil }
        }
        same = value(of: character).map { recordedValues.contains($0) } ?? false
      }
      if !same {
        firstDifference = firstDifference ?? min(got.tick, event.tick)
        matches = false
        break
      }
    }
    if !matches, firstDifference == nil, actual.count > expected.events.count {
      firstDifference = actual[expected.events.count].tick
    }
    guard !matches else { return }
    let rendered = Marbles.render(actual)
    let tick = firstDifference ?? 0
    let marker = markerColumn(forTick: tick, in: diagram)
    reportIssue(
      """
      The recorded events differ from the marble diagram at tick \(tick).
      expected: \(diagram)
      recorded: \(rendered)
                \(String(repeating: " ", count: marker))^
      """,
      fileID: fileID, filePath: filePath, line: line, column: column)
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
