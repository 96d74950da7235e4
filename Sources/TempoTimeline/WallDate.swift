package import Foundation

extension Date {
  /// The date `elapsed` after the 1970 epoch. A `Date` keeps seconds since 2001 in a `Double`,
  /// good to about a tenth of a microsecond today: the timeline keeps the exact `Duration`.
  package init(tempoSince1970 elapsed: Duration) {
    let (seconds, attoseconds) = elapsed.components
    self.init(timeIntervalSince1970: Double(seconds) + Double(attoseconds) / 1e18)
  }

  /// The time since the 1970 epoch, to the nanosecond the `Double` holds; a date beyond about
  /// 285 billion years either way is clamped there, and one that is not a number is the epoch,
  /// rather than trapping.
  package var tempoSince1970: Duration {
    let limit = 9.0e18
    let interval = timeIntervalSince1970.isNaN ? 0 : min(max(timeIntervalSince1970, -limit), limit)
    let seconds = interval.rounded(.down)
    let nanoseconds = ((interval - seconds) * 1e9).rounded()
    return .seconds(Int64(seconds)) + .nanoseconds(Int64(nanoseconds))
  }
}
