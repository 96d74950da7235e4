/// When a test publisher's subscriber subscribed and cancelled, in ticks.
///
/// ```swift
/// #expect(input.subscriptions == [SubscriptionRecord(subscribed: 0, cancelled: 6)])
/// ```
public struct SubscriptionRecord: Sendable, Equatable, CustomStringConvertible {
  public let subscribed: Int
  public var cancelled: Int?

  public init(subscribed: Int, cancelled: Int? = nil) {
    self.subscribed = subscribed
    self.cancelled = cancelled
  }

  public var description: String {
    "subscribed at \(subscribed)" + (cancelled.map { ", cancelled at \($0)" } ?? "")
  }
}
