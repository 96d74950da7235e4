/// A type-erasing wrapper for the `Scheduler` protocol.
///
/// Hold an `AnyScheduler` where code needs a scheduler that callers can replace, without
/// making the code generic. Production passes a live scheduler, tests a controllable one, and
/// both have the same time and options types:
///
/// ```swift
/// final class CurrencyViewModel: ObservableObject {
///   @Published var currency: Currency?
///   let scheduler: AnySchedulerOf<DispatchQueue>
///
///   init(scheduler: AnySchedulerOf<DispatchQueue>) {
///     self.scheduler = scheduler
///   }
///
///   func reloadButtonTapped() {
///     apiClient.fetchCurrency()
///       .receive(on: scheduler)
///       .assign(to: &$currency)
///   }
/// }
///
/// let live = CurrencyViewModel(scheduler: .main)        // DispatchQueue.main
/// let test = CurrencyViewModel(scheduler: .immediate)   // runs work at once
/// ```
///
/// Wrapping a ``TestScheduler`` keeps its controllable time: advance the test scheduler, and the
/// erased one follows.
public struct AnyScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler,
  @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // Invariant: all stored properties are immutable closures. The wrapper is as thread-safe as
  // the scheduler or closures it wraps, which is what Combine expects of a scheduler.
  private let minimumToleranceGetter: () -> SchedulerTimeType.Stride
  private let nowGetter: () -> SchedulerTimeType
  private let scheduleImmediately: (SchedulerOptions?, @escaping () -> Void) -> Void
  private let scheduleDelayed:
    (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void) -> Void
  private let scheduleInterval:
    (
      SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?,
      @escaping () -> Void
    ) -> any Cancellable

  /// The minimum tolerance of the wrapped scheduler.
  public var minimumTolerance: SchedulerTimeType.Stride { minimumToleranceGetter() }

  /// The current time of the wrapped scheduler.
  public var now: SchedulerTimeType { nowGetter() }

  /// Creates a scheduler from closures, one per requirement of `Scheduler`.
  ///
  /// ```swift
  /// let immediate = AnySchedulerOf<DispatchQueue>(
  ///   minimumTolerance: { .zero },
  ///   now: { .init(.init(uptimeNanoseconds: 1)) },
  ///   scheduleImmediately: { _, action in action() },
  ///   delayed: { _, _, _, action in action() },
  ///   interval: { _, _, _, _, action in action(); return AnyCancellable {} }
  /// )
  /// ```
  public init(
    minimumTolerance: @escaping () -> SchedulerTimeType.Stride,
    now: @escaping () -> SchedulerTimeType,
    scheduleImmediately: @escaping (SchedulerOptions?, @escaping () -> Void) -> Void,
    delayed:
      @escaping (
        SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void
      ) -> Void,
    interval:
      @escaping (
        SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?,
        @escaping () -> Void
      ) -> any Cancellable
  ) {
    self.minimumToleranceGetter = minimumTolerance
    self.nowGetter = now
    self.scheduleImmediately = scheduleImmediately
    self.scheduleDelayed = delayed
    self.scheduleInterval = interval
  }

  /// Wraps `scheduler`.
  ///
  /// ```swift
  /// let scheduler = AnyScheduler(DispatchQueue.main)
  /// ```
  public init<S: _CombineScheduler>(_ scheduler: S)
  where S.SchedulerTimeType == SchedulerTimeType, S.SchedulerOptions == SchedulerOptions {
    self.minimumToleranceGetter = { scheduler.minimumTolerance }
    self.nowGetter = { scheduler.now }
    self.scheduleImmediately = { scheduler.schedule(options: $0, $1) }
    self.scheduleDelayed = { scheduler.schedule(after: $0, tolerance: $1, options: $2, $3) }
    self.scheduleInterval = {
      scheduler.schedule(after: $0, interval: $1, tolerance: $2, options: $3, $4)
    }
  }

  /// Schedules `action` on the wrapped scheduler as soon as possible.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    scheduleImmediately(options, action)
  }

  /// Schedules `action` on the wrapped scheduler after `date`.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    scheduleDelayed(date, tolerance, options, action)
  }

  /// Schedules `action` on the wrapped scheduler after `date`, repeating every `interval`.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    scheduleInterval(date, interval, tolerance, options, action)
  }
}

/// A type-erased scheduler with the same time and options types as `Scheduler`.
///
/// ```swift
/// let mainQueue: AnySchedulerOf<DispatchQueue> = .main
/// ```
public typealias AnySchedulerOf<Scheduler> = AnyScheduler<
  Scheduler.SchedulerTimeType, Scheduler.SchedulerOptions
> where Scheduler: _CombineScheduler

extension Scheduler {
  /// Wraps this scheduler with a type eraser.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// let model = Model(mainQueue: scheduler.eraseToAnyScheduler())
  /// ```
  public func eraseToAnyScheduler() -> AnyScheduler<SchedulerTimeType, SchedulerOptions> {
    AnyScheduler(self)
  }
}

extension AnyScheduler
where
  SchedulerTimeType == DispatchQueue.SchedulerTimeType,
  SchedulerOptions == DispatchQueue.SchedulerOptions
{
  /// The main dispatch queue, type-erased.
  public static var main: Self { DispatchQueue.main.eraseToAnyScheduler() }

  /// A global dispatch queue of the given quality of service, type-erased.
  public static func global(qos: DispatchQoS.QoSClass = .default) -> Self {
    DispatchQueue.global(qos: qos).eraseToAnyScheduler()
  }
}

extension AnyScheduler
where
  SchedulerTimeType == OperationQueue.SchedulerTimeType,
  SchedulerOptions == OperationQueue.SchedulerOptions
{
  /// The main operation queue, type-erased.
  public static var main: Self { OperationQueue.main.eraseToAnyScheduler() }
}

extension AnyScheduler
where
  SchedulerTimeType == RunLoop.SchedulerTimeType,
  SchedulerOptions == RunLoop.SchedulerOptions
{
  /// The main run loop, type-erased.
  public static var main: Self { RunLoop.main.eraseToAnyScheduler() }
}

extension AnyScheduler
where SchedulerTimeType == UIScheduler.SchedulerTimeType, SchedulerOptions == Never {
  /// The shared ``UIScheduler``, type-erased.
  public static var shared: Self { UIScheduler.shared.eraseToAnyScheduler() }
}
