import TempoCore
import TempoSupport

// Times and strides of the schedulers, as issues print them: strides as durations ("-1.0
// seconds"), times as the duration since the test schedulers' start (1 ns of uptime for
// Dispatch time, 1970 for dates), as the clocks print their instants.

extension DispatchQueue.SchedulerTimeType: ReadableTime {
  package var readable: String {
    "\(_tempoElapsed) since the scheduler's start"
  }
}

extension DispatchQueue.SchedulerTimeType.Stride: ReadableTime {
  package var readable: String { "\(Duration.nanoseconds(magnitude))" }
}

extension RunLoop.SchedulerTimeType: ReadableTime {
  package var readable: String { date.readableSinceStart }
}

extension RunLoop.SchedulerTimeType.Stride: ReadableTime {
  package var readable: String { readableSeconds(magnitude) }
}

extension OperationQueue.SchedulerTimeType: ReadableTime {
  package var readable: String { date.readableSinceStart }
}

extension OperationQueue.SchedulerTimeType.Stride: ReadableTime {
  package var readable: String { readableSeconds(magnitude) }
}

extension Date {
  /// The time since 1970, or the raw seconds if they are not a finite number.
  fileprivate var readableSinceStart: String {
    let seconds = timeIntervalSince1970
    guard seconds.isFinite, abs(seconds) < 1e12 else { return "\(seconds) seconds" }
    return "\(readableSeconds(seconds)) since the scheduler's start"
  }
}

/// Seconds as a duration prints them ("1.5 seconds"), to the microsecond; "nan seconds" and the
/// like for values that are not finite.
private func readableSeconds(_ seconds: Double) -> String {
  guard seconds.isFinite, abs(seconds) < 1e12 else { return "\(seconds) seconds" }
  let microseconds = (seconds * 1_000_000).rounded()
  // A stride finer than a microsecond (1e-300) keeps its digits instead of printing as zero.
  guard microseconds != 0 || seconds == 0 else { return "\(seconds) seconds" }
  return "\(Duration.microseconds(Int64(microseconds)))"
}
