/// The bookkeeping of one ``TestPublisher``, free of locks and call-outs: a record of every
/// subscription, the count of values dropped for want of demand, and the subscriptions still
/// open, in the order they came, each with its record.
///
/// A test publisher has no lifecycle of its own (it takes subscriptions for as long as it
/// exists), so there is no `enum State`: each event updates the books, and an event that lets go
/// of a subscription hands it back, to release after unlocking.
struct TestPublisherStateMachine<Member: AnyObject> {
  /// When each subscription subscribed and, if it was cancelled, when.
  private(set) var records: [SubscriptionRecord] = []
  /// The values dropped because a subscriber had not asked for them.
  private(set) var droppedValues = 0
  /// The subscriptions not yet ended, in the order they came, each with the index of its record.
  private var open: [(member: Member, record: Int)] = []

  /// The subscriptions not yet ended, in the order they came.
  var openSubscriptions: [Member] { open.map(\.member) }

  /// `subscription` subscribed at `tick`.
  mutating func subscribe(_ subscription: Member, at tick: Int) {
    records.append(SubscriptionRecord(subscribed: tick))
    open.append((subscription, records.count - 1))
  }

  /// A value was dropped: a subscriber had not asked for it.
  mutating func dropValue() {
    droppedValues += 1
  }

  /// `subscription` ended: its subscriber cancelled it at `cancelled`, or, if that is nil, the
  /// script completed it. Returns it, no longer open, to release after unlocking; nil if it was
  /// not open.
  mutating func end(_ subscription: Member, cancelledAt cancelled: Int?) -> Member? {
    guard let index = open.firstIndex(where: { $0.member === subscription }) else { return nil }
    let (member, record) = open.remove(at: index)
    if let cancelled { records[record].cancelled = cancelled }
    return member
  }
}
