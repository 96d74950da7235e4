package import TempoSupport

/// One piece of pending work as a person reads it: when it is due, which time source it waits on,
/// and how often it repeats. Every listing of pending work (a front's `pendingWorkDescription`,
/// the leftover-work report at the end of a test) is made of these.
package struct PendingItem: Sendable, Equatable {
  /// When the item is due, as its source writes its time ("5.0 seconds").
  package var due: String
  /// The time source it waits on, and where that was created ("TestClock created at
  /// FeatureTests.swift:12").
  package var source: String
  /// The interval it repeats at, written as its source writes strides; nil if it runs once.
  package var interval: String?
  /// What the item is, when its source does not say it all ("a Task.sleep on ContinuousClock").
  package var what: String?

  package init(due: String, source: String, interval: String? = nil, what: String? = nil) {
    self.due = due
    self.source = source
    self.interval = interval
    self.what = what
  }

  /// "due at 5.0 seconds on TestClock created at FeatureTests.swift:12, repeating every 1.0
  /// seconds", or "due at 5.0 seconds on TestClock created at FeatureTests.swift:12: a
  /// Task.sleep on ContinuousClock".
  package var line: String {
    "due at \(due) on \(source)" + (interval.map { ", repeating every \($0)" } ?? "")
      + (what.map { ": \($0)" } ?? "")
  }
}

/// The pending work of `owner`: a head line with the count and `now`, then one line per item
/// (at most the items given), and how many more there are.
///
/// ```
/// TestClock created at FeatureTests.swift:12 has 2 pending (now is 3.0 seconds):
/// - due at 5.0 seconds on TestClock created at FeatureTests.swift:12
/// - due at 10.0 seconds on TestClock created at FeatureTests.swift:12
/// ```
package func describePending(
  of owner: String, items: [PendingItem], count: Int, now: String
) -> String {
  guard count > 0 else { return "\(owner) has nothing pending (now is \(now))." }
  var lines = ["\(owner) has \(count) pending (now is \(now)):"]
  lines += items.map { "- \($0.line)" }
  if count > items.count { lines.append("- and \(count - items.count) more") }
  return lines.joined(separator: "\n")
}

/// How a listing writes a time source: its name, and where it was created if known.
package func describeSource(_ name: String, createdAt location: SourceLocation?) -> String {
  guard let location, !location.isCallerUnknown else { return name }
  if let factory = location.factory { return "\(name) (\(factory))" }
  return "\(name) created at \(location.fileID):\(location.line)"
}
