package import TempoCore

// The scheduler time types a test scheduler is most often made for, keyed exactly so that its
// timeline orders them as integers (see `TimelineKeyed`). Other time types work too, ordered
// by their own `<`.

extension DispatchQueue.SchedulerTimeType: TimelineKeyed {
  /// The raw value, an unsigned integer. The time type's own `<` compares a signed distance,
  /// which agrees with the raw order for times less than 2^63 ns apart and wraps beyond that;
  /// a timeline never holds times further apart, since it runs work dated past that at `now`.
  package var timelineKey: TimelineKey { TimelineKey(dispatchTime.rawValue) }

  package init(timelineKey: TimelineKey) {
    // `DispatchTime` is its raw value and nothing else; `init(uptimeNanoseconds:)` would convert
    // through the machine's timebase, which does not round-trip on every platform.
    self.init(unsafeBitCast(timelineKey.uint64, to: DispatchTime.self))
  }
}

extension RunLoop.SchedulerTimeType: TimelineKeyed {
  package var timelineKey: TimelineKey { TimelineKey(date.timeIntervalSinceReferenceDate) }

  package init(timelineKey: TimelineKey) {
    self.init(Date(timeIntervalSinceReferenceDate: timelineKey.double))
  }
}

extension OperationQueue.SchedulerTimeType: TimelineKeyed {
  package var timelineKey: TimelineKey { TimelineKey(date.timeIntervalSinceReferenceDate) }

  package init(timelineKey: TimelineKey) {
    self.init(Date(timeIntervalSinceReferenceDate: timelineKey.double))
  }
}

// The strides of those time types, multiplied exactly so that a repeating action's k-th repeat
// is due at `start + k × interval` (see `TimelineGridStride`).

extension DispatchQueue.SchedulerTimeType.Stride: TimelineGridStride {
  package func timelineMultiplied(by count: Int, into product: inout Self) -> Bool {
    let (nanoseconds, overflow) = magnitude.multipliedReportingOverflow(by: count)
    if !overflow { product = .nanoseconds(nanoseconds) }
    return !overflow
  }
}

extension RunLoop.SchedulerTimeType.Stride: TimelineGridStride {
  package func timelineMultiplied(by count: Int, into product: inout Self) -> Bool {
    product = Self(magnitude * Double(count))
    return true
  }
}

extension OperationQueue.SchedulerTimeType.Stride: TimelineGridStride {
  package func timelineMultiplied(by count: Int, into product: inout Self) -> Bool {
    product = Self(magnitude * Double(count))
    return true
  }
}
