// The answers of ``TimelineState``'s events are declared outside it: a type nested in a generic
// type is generic too, and unspecialized code looks up the metadata of an optional of one (a few
// hundred instructions) at every use.

/// What a date given to ``TimelineState/insert(_:after:sequence:)`` cannot be.
enum TimelineDateProblem {
  /// Not equal to itself (NaN, or an infinite date): the work is due now instead.
  case invalid
  /// Both before and after `now` (a time type that saturates): the work never runs.
  case unrepresentable
}

/// Why a target of an advance is `now` rather than the instant asked for.
enum TimelineTargetProblem {
  /// A stride below zero, or not a number.
  case negativeStride
  /// A stride whose target the time type cannot represent (it saturates or overflows).
  case unrepresentableTarget
  /// An instant not equal to itself.
  case invalidInstant
  /// An instant before `now`.
  case instantInPast
}

/// An action a ``TimelineState`` took to run, and the handle that stopped repeating when it was
/// taken (its interval was too small to move its date; ``Timeline/Handle/stoppedAfter`` says
/// when).
struct TimelineTaken {
  let action: () -> Void
  let stoppedRepeating: TimelineHandle?
}
