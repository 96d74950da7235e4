/// A scheduler that runs its work at once, with the time and options types of another
/// scheduler.
///
/// Combine's own `ImmediateScheduler` has time and options types of its own, so code that holds
/// an `AnySchedulerOf<DispatchQueue>` cannot use it. This one looks like the scheduler it stands
/// in for, so `DispatchQueue.immediate` can replace `DispatchQueue.main` in a test and collapse
/// every `receive(on:)`, `subscribe(on:)` and `delay` into plain synchrony:
///
/// ```swift
/// let model = HomeViewModel(apiClient: .mock, scheduler: .immediate)
/// model.reloadButtonTapped()   // delays 10 s on a live queue
/// XCTAssertEqual(model.albums, [Album(id: 42)])   // no waiting
/// ```
///
/// Its time never moves: `now` is the instant it was created with. A repeating action runs
/// once, immediately, since an immediate scheduler has no later moment to repeat it at.
/// Operators that measure time between events (`debounce`, `throttle`) need a ``TestScheduler``.
public struct ImmediateScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  /// Always zero.
  public let minimumTolerance: SchedulerTimeType.Stride = .zero

  /// The scheduler's time, which never changes.
  public let now: SchedulerTimeType

  /// Creates an immediate scheduler whose time is `now`.
  ///
  /// ```swift
  /// let scheduler = ImmediateSchedulerOf<RunLoop>(now: .init(Date(timeIntervalSince1970: 0)))
  /// ```
  public init(now: SchedulerTimeType) {
    self.now = now
  }

  /// Runs `action` at once.
  public func schedule(options _: SchedulerOptions?, _ action: () -> Void) {
    action()
  }

  /// Runs `action` at once, whatever `date` says.
  public func schedule(
    after _: SchedulerTimeType,
    tolerance _: SchedulerTimeType.Stride,
    options _: SchedulerOptions?,
    _ action: () -> Void
  ) {
    action()
  }

  /// Runs `action` once, at once, and returns a cancellable that does nothing.
  public func schedule(
    after _: SchedulerTimeType,
    interval _: SchedulerTimeType.Stride,
    tolerance _: SchedulerTimeType.Stride,
    options _: SchedulerOptions?,
    _ action: () -> Void
  ) -> any Cancellable {
    action()
    return AnyCancellable {}
  }
}

extension ImmediateScheduler: Sendable
where SchedulerTimeType: Sendable, SchedulerTimeType.Stride: Sendable {}

/// An immediate scheduler with the same time and options types as `Scheduler`.
///
/// ```swift
/// let scheduler: ImmediateSchedulerOf<DispatchQueue> = .immediate
/// ```
public typealias ImmediateSchedulerOf<Scheduler> = ImmediateScheduler<
  Scheduler.SchedulerTimeType, Scheduler.SchedulerOptions
> where Scheduler: _CombineScheduler

extension AnyScheduler where SchedulerTimeType: _TempoEpochTime {
  /// An immediate scheduler with these time and options types, type-erased.
  ///
  /// ```swift
  /// let model = CurrencyViewModel(scheduler: .immediate)   // AnySchedulerOf<DispatchQueue>
  /// ```
  public static var immediate: Self {
    ImmediateScheduler(now: SchedulerTimeType._tempoEpoch).eraseToAnyScheduler()
  }
}
