public import TempoSchedulers

/// Something a recording subscriber or sequence saw, at the tick it saw it.
///
/// ```swift
/// let recorded = test.start { Just(1).delay(for: test.ticks(2), scheduler: test.scheduler) }
/// recorded == [
///   Recorded(0, .subscribed), Recorded(0, .requested(.unlimited)),
///   Recorded(2, .value(1)), Recorded(2, .finished),
/// ]
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

extension Recorded: Sendable where Value: Sendable, Failure: Sendable {}
extension Recorded.Event: Sendable where Value: Sendable, Failure: Sendable {}

extension Recorded.Event: Equatable where Value: Equatable, Failure: Equatable {}
extension Recorded: Equatable where Value: Equatable, Failure: Equatable {}

extension Recorded: CustomStringConvertible {
  /// `"tick: event"`.
  public var description: String { "\(tick): \(event)" }
}
