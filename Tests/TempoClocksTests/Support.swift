import Foundation
import Testing

/// Runs `body` and expects it to report one issue per fragment, each containing its fragment.
func expectIssues(
  _ fragments: String...,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> Void
) async rethrows {
  let reported = Reported()
  try await withKnownIssue(sourceLocation: sourceLocation) {
    try await body()
  } matching: { issue in
    reported.add(String(describing: issue))
    return true
  }
  let texts = reported.texts
  #expect(texts.count == fragments.count, "reported: \(texts)", sourceLocation: sourceLocation)
  for fragment in fragments {
    #expect(
      texts.contains { $0.contains(fragment) }, "no issue says \"\(fragment)\": \(texts)",
      sourceLocation: sourceLocation
    )
  }
}

/// The issue texts a known-issue matcher saw.
private final class Reported: @unchecked Sendable {
  // Invariant: `lock` guards `all`.
  private let lock = NSLock()
  private var all: [String] = []
  func add(_ text: String) { lock.withLock { all.append(text) } }
  var texts: [String] { lock.withLock { all } }
}

/// A list that tasks append to from any thread.
final class Log<Value: Sendable>: @unchecked Sendable {
  // Invariant: `lock` guards `all`.
  private let lock = NSLock()
  private var all: [Value] = []
  func append(_ value: Value) { lock.withLock { all.append(value) } }
  var values: [Value] { lock.withLock { all } }
}

/// Lets other tasks run until `condition` holds: a wait on a state, not on time or a count of
/// yields. Records an issue (instead of hanging) if the state is never reached.
func waitUntil(
  _ condition: () -> Bool,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  for _ in 0..<1_000_000 {
    if condition() { return }
    await Task.yield()
  }
  Issue.record("the awaited state was never reached", sourceLocation: sourceLocation)
}
