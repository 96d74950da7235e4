import TempoSupport

/// Every issue a timeline reports, in the words a person reads: a lone ``Timeline``, a
/// ``SharedTimeline`` and the drive they share all take their messages here. `name` is how the
/// issue names the owner ("TestScheduler", "TestClock", "TestTimeline"); dates and strides are
/// written with ``readable(_:)``.
package enum TimelineMessage {
  /// A date that is not equal to itself.
  static func invalidDate(_ name: String) -> String {
    "\(name) was asked to schedule work at a date that is not a valid date (not equal "
      + "to itself, like one made from NaN or infinity). It was scheduled at the current "
      + "time instead."
  }

  /// A date the time type cannot order against `now`.
  static func unrepresentableDate(_ name: String, _ date: some Any) -> String {
    "\(name) was asked to schedule work at \(readable(date)), which its time type cannot order "
      + "against the current time (it compares as both earlier and later, as saturated "
      + "Dispatch times do). The work will never run."
  }

  /// A repeating interval of zero or less.
  static func nonPositiveInterval(_ name: String, _ interval: some Any) -> String {
    "\(name) was asked to repeat work every \(readable(interval)). A repeating interval must be "
      + "greater than zero, so the work runs once and does not repeat."
  }

  /// A repeating interval too small to move the date it repeats from.
  static func intervalTooSmall(
    _ name: String, _ interval: some Any, after date: some Any
  )
    -> String
  {
    "\(name) could not repeat work every \(readable(interval)) after \(readable(date)): the "
      + "interval is too small to move the date, so the work stopped repeating."
  }

  /// A negative (or invalid) stride of `advance(by:)`.
  static func negativeStride(_ name: String, _ stride: some Any, now: some Any) -> String {
    "\(name) was asked to advance by \(readable(stride)), but a stride must be zero or more: time "
      + "cannot run backwards. It ran the work due now and stayed at \(readable(now))."
  }

  /// A stride whose target the time type cannot represent.
  static func unrepresentableTarget(_ name: String, _ stride: some Any, now: some Any) -> String {
    "\(name) was asked to advance by \(readable(stride)) from \(readable(now)), but its time type "
      + "cannot represent a later instant (it saturates, overflows or becomes infinite there). It "
      + "ran the work due now and stayed at \(readable(now))."
  }

  /// An instant of `advance(to:)` that is not equal to itself.
  static func invalidInstant(_ name: String, now: some Any) -> String {
    "\(name) was asked to advance to an instant that is not valid (not equal to itself, "
      + "like one made from NaN). It ran the work due now and stayed at \(readable(now))."
  }

  /// An instant of `advance(to:)` before `now`.
  static func instantInPast(_ name: String, _ instant: some Any, now: some Any) -> String {
    "\(name) was asked to advance to \(readable(instant)), which is before its current time "
      + "\(readable(now)). Time cannot run backwards: it ran the work due now and stayed at "
      + "\(readable(now))."
  }

  /// Work left pending when a test expected none; `noun` names what is pending.
  static func pending(
    _ name: String, count: Int, noun: String, dates: [String], now: String
  ) -> String {
    "\(name) has \(count) pending \(noun)\(count == 1 ? "" : "s"), due at "
      + "\(describeDates(dates, of: count)) (now is \(now))."
  }

  /// Work left pending on the sources of a shared timeline when a test expected none.
  static func sharedPending(count: Int, dates: [String], now: String) -> String {
    "TestTimeline has \(count) pending \(count == 1 ? "action or sleeper" : "actions or sleepers") "
      + "on its sources, due at \(describeDates(dates, of: count)) (now is \(now))."
  }

  /// A test blocked on time: `sleeps` held it up, with nothing moving, for `waited` of real
  /// time; the hang watch ended them.
  /// `noun` names the time source in the ways out: "clock" or "scheduler".
  package static func blockedOnTime(
    sleeps: [String], waited: String, noun: String = "clock"
  ) -> String {
    let one = sleeps.count == 1
    return """
      The test is blocked on time: for \(waited) of real time its work was quiet while \
      \(one ? "a task" : "its tasks") waited on \(one ? "a sleep" : "sleeps") that nothing \
      advanced:
      \(sleeps.map { "- \($0)" }.joined(separator: "\n"))
      \(one ? "The sleep was" : "The \(sleeps.count) sleeps were") ended with \
      CancellationError so that the test does not hang. To let time reach \
      \(one ? "it" : "them"): advance the \(noun) (`await \(noun).advance(by:)`), run what \
      is pending (`await \(noun).run()`), or let time move by itself \
      (`\(noun).automaticallyAdvances = true`). If the test still does not end, it also waits \
      on something no advance can change (a continuation never resumed, an actor or a lock \
      waiting on itself); if it waits on real work outside the test (a network call, a file), \
      wrap that in `withOutsideWork { }` so that it is not taken for a hang.
      """
  }

  /// A test blocked on `pending`, the listing of a time source's pending work that nothing
  /// advanced while the test's task waited, for `waited` of real time.
  package static func blockedOnPendingWork(
    _ pending: String, waited: String, noun: String
  ) -> String {
    """
    The test is blocked on time: for \(waited) of real time its work was quiet and its task \
    waited, while work was pending that nothing advanced:
    \(pending)
    The test's task was cancelled so that the test does not hang (a Combine pipeline read \
    through `.values` ends its iteration). To let time reach the pending work: advance the \
    \(noun) (`await \(noun).advance(by:)`), run what is pending (`await \(noun).run()`), or \
    let time move by itself (`\(noun).automaticallyAdvances = true`). If the test waits on \
    real work outside it (a network call, a file), wrap that in `withOutsideWork { }` so \
    that it is not taken for a hang.
    """
  }

  /// A `run` that spent its budget (`spent` says on what) with work still pending.
  static func runaway(
    _ name: String, spent: String, count: Int, dates: [String], now: String
  ) -> String {
    "\(name) stopped running after \(spent): \(count) still pending, due at "
      + "\(describeDates(dates, of: count)) (now is \(now)). Work that keeps rescheduling "
      + "itself, like a repeating timer or a task that sleeps in a loop, never runs out; "
      + "cancel it first, or advance to a specific time instead."
  }
}

/// "a, b, c and 7 more".
package func describeDates(_ dates: [String], of count: Int) -> String {
  let listed = dates.joined(separator: ", ")
  return count > dates.count ? "\(listed) and \(count - dates.count) more" : listed
}

/// A duration as a person reads it in an issue: seconds, with every digit the duration has and
/// no rounding (`Duration`'s own description goes through a `Double`, so 100,000 seconds reads
/// as 99999.99999999999 seconds).
///
/// ```swift
/// describeSeconds(.milliseconds(2_100))   // "2.1 seconds"
/// describeSeconds(.nanoseconds(600))      // "0.0000006 seconds"
/// ```
package func describeSeconds(_ duration: Duration) -> String {
  let (seconds, attoseconds) = duration.components
  let negative = seconds < 0 || attoseconds < 0
  let whole = seconds.magnitude
  var fraction = String(attoseconds.magnitude)
  fraction = String(repeating: "0", count: 18 - fraction.count) + fraction
  while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
  return "\(negative ? "-" : "")\(whole).\(fraction) seconds"
}
