extension Scheduler {
  /// A scheduler that runs each of its actions through `wrap`, on this scheduler.
  ///
  /// This is the building block of the animated schedulers: `animation(_:)` is
  /// `wrappingActions { action in withAnimation(animation) { action() } }`. It also serves any
  /// other "run the work inside a context" need, such as a lock, a signpost or a log:
  ///
  /// ```swift
  /// let logged = DispatchQueue.main.wrappingActions { action in
  ///   logger.debug("state change")
  ///   action()
  /// }
  /// apiClient.fetchUser()
  ///   .receive(on: logged)
  ///   .assign(to: &$user)
  /// ```
  ///
  /// `wrap` must call `action` exactly once. Time, tolerance and cancellation are this
  /// scheduler's, so the wrapped scheduler is as testable as the one it wraps.
  public func wrappingActions(
    _ wrap: @escaping (_ action: () -> Void) -> Void
  ) -> AnySchedulerOf<Self> {
    AnyScheduler(
      minimumTolerance: { self.minimumTolerance },
      now: { self.now },
      scheduleImmediately: { options, action in
        self.schedule(options: options) { wrap(action) }
      },
      delayed: { date, tolerance, options, action in
        self.schedule(after: date, tolerance: tolerance, options: options) { wrap(action) }
      },
      interval: { date, interval, tolerance, options, action in
        self.schedule(after: date, interval: interval, tolerance: tolerance, options: options) {
          wrap(action)
        }
      }
    )
  }
}

#if canImport(SwiftUI) && canImport(Combine)
  public import SwiftUI

  extension Scheduler {
    /// A scheduler that runs each action inside `withAnimation(animation)`.
    ///
    /// ```swift
    /// apiClient.fetchUser()
    ///   .receive(on: scheduler.animation())
    ///   .assign(to: &$user)
    /// ```
    public func animation(_ animation: Animation? = .default) -> AnySchedulerOf<Self> {
      wrappingActions { action in withAnimation(animation, action) }
    }

    /// A scheduler that runs each action inside `withTransaction(transaction)`.
    ///
    /// ```swift
    /// var transaction = Transaction(animation: .spring())
    /// publisher.receive(on: scheduler.transaction(transaction))
    /// ```
    public func transaction(_ transaction: Transaction) -> AnySchedulerOf<Self> {
      wrappingActions { action in withTransaction(transaction, action) }
    }
  }
#endif
