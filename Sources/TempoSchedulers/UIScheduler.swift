import TempoCore
@_spi(TempoInternals) import TempoSupport

/// A scheduler that runs its work on the main queue as soon as possible: at once when asked from
/// the main queue, with a hop to the main queue otherwise.
///
/// `DispatchQueue.main.schedule` always hops, so an action scheduled from the main thread waits
/// for the next turn of the run loop. That hop is visible in animations and in UI code that
/// expects state to change synchronously:
///
/// ```swift
/// apiClient.fetchUser()
///   .receive(on: UIScheduler.shared)   // no hop when the value arrives on the main queue
///   .assign(to: &$user)
/// ```
///
/// Work never overtakes earlier work: while an action queued from another thread has not run
/// yet, actions scheduled from the main queue line up behind it instead of running at once.
/// ("The main queue" includes `@MainActor` code; on Linux that may run on a thread other than the
/// process's first one, so the check is for the queue, not for the thread.)
public struct UIScheduler: Scheduler, Sendable {
  /// UI scheduler has no options.
  public typealias SchedulerOptions = Never
  /// The main queue's time type.
  public typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType

  /// The UI scheduler.
  public static let shared = UIScheduler()

  /// The main queue's current time.
  public var now: SchedulerTimeType { DispatchQueue.main.now }

  /// The main queue's minimum tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { DispatchQueue.main.minimumTolerance }

  private init() {}

  /// Runs `action` at once when called on the main queue with nothing queued before it;
  /// otherwise queues it on the main queue.
  public func schedule(options _: SchedulerOptions? = nil, _ action: @escaping () -> Void) {
    if MainQueueBacklog.shared.isOnMainQueue, MainQueueBacklog.shared.isEmpty {
      action()
    } else {
      MainQueueBacklog.shared.enqueue(action)
    }
  }

  /// Schedules `action` on the main queue after `date`.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options _: SchedulerOptions? = nil,
    _ action: @escaping () -> Void
  ) {
    DispatchQueue.main.schedule(after: date, tolerance: tolerance, options: nil, action)
  }

  /// Schedules `action` on the main queue after `date`, repeating every `interval`.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options _: SchedulerOptions? = nil,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    DispatchQueue.main.schedule(
      after: date, interval: interval, tolerance: tolerance, options: nil, action
    )
  }
}

/// Counts the UI scheduler's actions that were queued on the main queue and have not run yet.
private final class MainQueueBacklog: @unchecked Sendable {
  static let shared = MainQueueBacklog()

  // Invariant: `count` is read and written only under `lock`.
  private let lock = Lock()
  private var count = 0

  private let mainQueueKey = DispatchSpecificKey<UInt8>()

  private init() {
    DispatchQueue.main.setSpecific(key: mainQueueKey, value: 0)
  }

  var isEmpty: Bool { lock.withLock { count == 0 } }

  /// Whether the caller runs on the main queue. That is not always the main thread: on Linux,
  /// once the main thread hands the main queue over (`dispatchMain()`), other threads drain it,
  /// and `@MainActor` code runs there.
  var isOnMainQueue: Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) != nil || Thread.isMainThread
  }

  func enqueue(_ action: @escaping () -> Void) {
    lock.withLock { count += 1 }
    // Invariant: the action is called once, by the main queue, and is never shared: it only
    // crosses threads to get there.
    let action = UncheckedSendable(action)
    DispatchQueue.main.async {
      self.lock.withLock { self.count -= 1 }
      action.value()
    }
  }
}
