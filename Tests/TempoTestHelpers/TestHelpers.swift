// Helpers shared by Tempo's own test targets.

import Foundation
import IssueReporting
public import Testing

/// Runs `body` and expects it to report one issue per fragment, each containing its fragment.
public func expectIssues(
  _ fragments: String...,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> Void
) rethrows {
  let reported = Log<String>()
  try withKnownIssue(sourceLocation: sourceLocation) {
    try body()
  } matching: { issue in
    reported.append(String(describing: issue))
    return true
  }
  check(reported.values, against: fragments, sourceLocation: sourceLocation)
}

/// Runs async `body` and expects it to report one issue per fragment, each containing its
/// fragment.
public func expectIssues(
  _ fragments: String...,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> Void
) async rethrows {
  let reported = Log<String>()
  try await withKnownIssue(sourceLocation: sourceLocation) {
    try await body()
  } matching: { issue in
    reported.append(String(describing: issue))
    return true
  }
  check(reported.values, against: fragments, sourceLocation: sourceLocation)
}

private func check(_ texts: [String], against fragments: [String], sourceLocation: SourceLocation) {
  #expect(texts.count == fragments.count, "reported: \(texts)", sourceLocation: sourceLocation)
  for fragment in fragments {
    #expect(
      texts.contains { $0.contains(fragment) }, "no issue says \"\(fragment)\": \(texts)",
      sourceLocation: sourceLocation
    )
  }
}

/// Lets other tasks run until `condition` holds: a wait on a state, not on time or a count of
/// yields. Reports an issue (in XCTest and Swift Testing alike) instead of hanging if the state
/// is not reached within a minute of real time, a bound that only a hang reaches: a count of
/// yields ran out in about a second on a loaded machine while the work it waited for, on a
/// starved thread, was still on its way.
public func waitUntil(
  _ condition: () -> Bool,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) async {
  let giveUpAt = DispatchTime.now() + .seconds(60)
  while !condition() {
    guard DispatchTime.now() < giveUpAt else {
      reportIssue(
        "The awaited state was not reached within a minute.",
        fileID: fileID, filePath: filePath, line: line, column: column)
      return
    }
    await Task.yield()
  }
}

/// Whether the caller runs on the main queue, which is the main actor's executor: the check a
/// main-actor closure makes on entry, without its trap.
public func isOnMainQueue() -> Bool {
  DispatchQueue.getSpecific(key: mainQueueKey) != nil
}

private let mainQueueKey: DispatchSpecificKey<Void> = {
  let key = DispatchSpecificKey<Void>()
  DispatchQueue.main.setSpecific(key: key, value: ())
  return key
}()

/// A list that any thread may append to.
public final class Log<Value>: @unchecked Sendable {
  // Invariant: `lock` guards `all`.
  private let lock = NSLock()
  private var all: [Value] = []

  public init() {}

  public func append(_ value: Value) { lock.withLock { all.append(value) } }
  public var values: [Value] { lock.withLock { all } }
}

/// Runs `body` with Tempo's issues counted instead of reported, and returns how many there were,
/// with their messages. For tests that make many issues on purpose, such as model checking.
public func countingIssues(_ body: () throws -> Void) rethrows -> [String] {
  let counter = IssueCounter()
  try withIssueReporters([counter], operation: body)
  return counter.messages.values
}

/// ``countingIssues(_:)`` for async code, on the caller's actor. `whenReported` runs after each
/// issue is counted, on the thread that reported it.
public func countingIssues(
  isolation: isolated (any Actor)? = #isolation,
  whenReported: @escaping @Sendable () -> Void = {},
  _ body: () async throws -> Void
) async rethrows -> [String] {
  let counter = IssueCounter(whenReported: whenReported)
  try await withIssueReporters([counter], isolation: isolation, operation: body)
  return counter.messages.values
}

/// What an exit test's child process wrote to its standard error (observed with
/// `\.standardErrorContent`): a failed `precondition`'s message, say.
public func standardError(of result: ExitTest.Result?) -> String {
  String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}

/// An issue reporter that only remembers the messages it is given.
private struct IssueCounter: IssueReporter {
  let messages = Log<String>()
  var whenReported: @Sendable () -> Void = {}

  func reportIssue(
    _ message: @autoclosure () -> String?,
    severity: IssueSeverity,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt
  ) {
    messages.append(message() ?? "")
    whenReported()
  }
}

/// Expects `key` to order and compare every pair of `values` as the values themselves do, and
/// `back` to turn every key into its value again.
public func expectKeys<Value: Comparable, Key: Comparable>(
  _ values: [Value], key: (Value) -> Key, back: (Key) -> Value,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let sorted = values.sorted()
  for (first, second) in zip(sorted, sorted.dropFirst()) {
    let keys = (key(first), key(second))
    #expect(
      (first < second) == (keys.0 < keys.1) && (first == second) == (keys.0 == keys.1),
      "\(first) and \(second) order differently from their keys", sourceLocation: sourceLocation)
  }
  for value in values {
    #expect(
      back(key(value)) == value, "\(value) does not come back", sourceLocation: sourceLocation)
  }
}

/// Per-action run counts, safe to update from any thread.
public final class Counts<Time: Comparable>: @unchecked Sendable {
  // Invariant: `lock` guards every `var`.
  private let lock = NSLock()
  private var runs: [Int]
  private var early = 0

  public init(size: Int) {
    runs = Array(repeating: 0, count: size)
  }

  public func ran(_ id: Int, at now: Time, due: Time) {
    lock.withLock {
      runs[id] += 1
      if now < due { early += 1 }
    }
  }

  public func count(_ id: Int) -> Int { lock.withLock { runs[id] } }
  public var earlyRuns: Int { lock.withLock { early } }
}

/// A small deterministic generator, so a seed always makes the same program.
public struct SplitMix: RandomNumberGenerator {
  public var state: UInt64
  public init(state: UInt64) { self.state = state }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
