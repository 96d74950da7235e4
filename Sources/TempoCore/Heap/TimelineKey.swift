/// A date as a 128-bit signed integer that orders exactly as the date does.
///
/// A timeline keeps its pending work in a heap of these keys rather than of its owner's dates,
/// so taking the next item compares plain integers in code compiled for one concrete type,
/// instead of calling back into a generic date type for every comparison and copy.
package struct TimelineKey: Comparable, Sendable {
  package var high: Int64
  package var low: UInt64

  package init(high: Int64, low: UInt64) {
    self.high = high
    self.low = low
  }

  @inline(__always)
  package static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.high < rhs.high || (lhs.high == rhs.high && lhs.low < rhs.low)
  }
}

/// A date type that a timeline can order by ``TimelineKey``.
///
/// Conforming types promise, for all valid dates `a` and `b` (those equal to themselves):
/// `a < b` exactly when `a.timelineKey < b.timelineKey`, `a == b` exactly when their keys are
/// equal, and `Self(timelineKey: a.timelineKey) == a`. The model tests check a timeline keyed
/// this way against one that compares the dates themselves.
package protocol TimelineKeyed: Comparable {
  var timelineKey: TimelineKey { get }
  init(timelineKey: TimelineKey)
}

extension TimelineKey {
  /// The key of a signed integer.
  @inline(__always)
  package init(_ value: Int64) {
    self.init(high: value, low: 0)
  }

  /// The key of an unsigned integer.
  @inline(__always)
  package init(_ value: UInt64) {
    self.init(high: 0, low: value)
  }

  /// The key of a floating-point value that is not NaN: its bit pattern, with the bits of
  /// negative values flipped so that they order as integers. `-0.0` and `0.0` are equal as
  /// dates, so they get one key.
  @inline(__always)
  package init(_ value: Double) {
    let bits = Int64(bitPattern: (value + 0).bitPattern)
    self.init(bits < 0 ? bits ^ Int64.max : bits)
  }

  /// The key of a (seconds, attoseconds) pair of one sign, as `Duration.components` gives:
  /// seconds first, then attoseconds, shifted so that they order as unsigned integers.
  @inline(__always)
  package init(seconds: Int64, attoseconds: Int64) {
    self.init(high: seconds, low: UInt64(bitPattern: attoseconds) ^ (1 << 63))
  }

  /// The signed integer this key was made from.
  package var int64: Int64 { high }

  /// The unsigned integer this key was made from.
  package var uint64: UInt64 { low }

  /// The floating-point value this key was made from.
  package var double: Double {
    let bits = high < 0 ? high ^ Int64.max : high
    return Double(bitPattern: UInt64(bitPattern: bits))
  }

  /// The (seconds, attoseconds) pair this key was made from.
  package var components: (seconds: Int64, attoseconds: Int64) {
    (high, Int64(bitPattern: low ^ (1 << 63)))
  }
}

extension Int: TimelineKeyed {
  package var timelineKey: TimelineKey { TimelineKey(Int64(self)) }
  package init(timelineKey: TimelineKey) { self.init(timelineKey.int64) }
}

extension Duration: TimelineKeyed {
  package var timelineKey: TimelineKey {
    let (seconds, attoseconds) = components
    return TimelineKey(seconds: seconds, attoseconds: attoseconds)
  }

  package init(timelineKey: TimelineKey) {
    let (seconds, attoseconds) = timelineKey.components
    self.init(secondsComponent: seconds, attosecondsComponent: attoseconds)
  }
}
