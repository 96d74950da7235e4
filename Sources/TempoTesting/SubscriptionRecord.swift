/// When a test publisher's subscriber subscribed and cancelled, in ticks.
///
/// ```swift
/// #expect(input.subscriptions == [SubscriptionRecord(subscribed: 0, cancelled: 6)])
/// ```
public struct SubscriptionRecord: Sendable, Equatable, CustomStringConvertible {
  /// The tick of the subscription.
  public let subscribed: Int
  /// The tick of the cancellation, if the subscriber cancelled.
  public var cancelled: Int?

  /// A record of a subscription at `subscribed`, cancelled at `cancelled`.
  public init(subscribed: Int, cancelled: Int? = nil) {
    self.subscribed = subscribed
    self.cancelled = cancelled
  }

  /// `"subscribed at 2, cancelled at 7"`.
  public var description: String {
    "subscribed at \(subscribed)" + (cancelled.map { ", cancelled at \($0)" } ?? "")
  }
}
