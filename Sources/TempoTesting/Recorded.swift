public import TempoSchedulers

/// Something a recording subscriber or sequence saw, at the tick it saw it; or, in a list given
/// to a test publisher (`test.hot([...])`, `test.cold([...])`), something the publisher will do.
///
/// ```swift
/// let recorded = test.start { Just(1).delay(for: test.ticks(2), scheduler: test.scheduler) }
/// recorded == [
///   Recorded(0, .subscribed), Recorded(0, .requested(.unlimited)),
///   Recorded(2, .value(1)), Recorded(2, .finished),
/// ]
/// recorded == [.subscribed(0), .requested(0, .unlimited), .value(2, 1), .finished(2)]
/// ```
public struct Recorded<Value, Failure: Error> {
  /// What happened.
  public enum Event {
    /// The subscriber received its subscription.
    case subscribed
    /// The subscriber asked for more values.
    case requested(Subscribers.Demand)
    /// A value arrived.
    case value(Value)
    /// The publisher or sequence finished.
    case finished
    /// It failed.
    case failed(Failure)
    /// The subscriber cancelled.
    case cancelled
  }

  /// The tick at which it happened, counted from the start of the test.
  public let tick: Int
  /// What happened.
  public let event: Event

  /// A record of `event` at `tick`.
  public init(_ tick: Int, _ event: Event) {
    self.tick = tick
    self.event = event
  }

  /// A value at `tick`.
  public static func value(_ tick: Int, _ value: Value) -> Self { Self(tick, .value(value)) }

  /// The finish at `tick`.
  public static func finished(_ tick: Int) -> Self { Self(tick, .finished) }

  /// A failure with `error` at `tick`.
  public static func failed(_ tick: Int, _ error: Failure) -> Self { Self(tick, .failed(error)) }

  /// The subscription at `tick`; in a hot publisher's list, where the harness subscribes.
  public static func subscribed(_ tick: Int) -> Self { Self(tick, .subscribed) }

  /// A request for `demand` at `tick`.
  public static func requested(_ tick: Int, _ demand: Subscribers.Demand) -> Self {
    Self(tick, .requested(demand))
  }

  /// The cancellation at `tick`.
  public static func cancelled(_ tick: Int) -> Self { Self(tick, .cancelled) }

  /// Whether `self` and `other` are the same event at the same tick; failures match if their
  /// errors are equal (when `Equatable`) or print the same.
  func isSame(as other: Self) -> Bool where Value: Equatable {
    guard tick == other.tick else { return false }
    switch (event, other.event) {
    case (.value(let lhs), .value(let rhs)): return lhs == rhs
    case (.requested(let lhs), .requested(let rhs)): return lhs == rhs
    case (.failed(let lhs), .failed(let rhs)): return sameError(lhs, rhs)
    case (.subscribed, .subscribed), (.finished, .finished), (.cancelled, .cancelled): return true
    default: return false
    }
  }

  /// The event as a marble symbol, if it has one (subscriptions, requests and cancellations
  /// have none). `character` names a value.
  func symbol(_ character: (Value) -> Character) -> Marbles.Symbol? {
    switch event {
    case .value(let value): .value(character(value))
    case .finished: .finished
    case .failed: .failed
    case .subscribed: .subscribed
    case .requested, .cancelled: nil
    }
  }
}

extension Recorded.Event {
  /// The kind of event, without its payload.
  enum Kind: Hashable {
    case subscribed, requested, value, finished, failed, cancelled
  }

  var kind: Kind {
    switch self {
    case .subscribed: .subscribed
    case .requested: .requested
    case .value: .value
    case .finished: .finished
    case .failed: .failed
    case .cancelled: .cancelled
    }
  }
}

/// Whether two errors are equal (if their type is `Equatable`) or print the same.
private func sameError(_ lhs: some Error, _ rhs: some Error) -> Bool {
  if let lhs = (lhs as Any) as? any Equatable { return lhs.isEqual(to: rhs) }
  return String(reflecting: lhs) == String(reflecting: rhs)
}

extension Equatable {
  fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}

extension Recorded: Sendable where Value: Sendable, Failure: Sendable {}
extension Recorded.Event: Sendable where Value: Sendable, Failure: Sendable {}

extension Recorded.Event: Equatable where Value: Equatable, Failure: Equatable {}
extension Recorded: Equatable where Value: Equatable, Failure: Equatable {}

extension Recorded: CustomStringConvertible {
  /// `"tick: event"`.
  public var description: String { "\(tick): \(event)" }
}
