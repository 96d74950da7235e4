// Compiled only with the package trait SwiftDependencies, which brings swift-dependencies.
#if SwiftDependencies
  public import Dependencies
  public import Foundation
  public import TempoSchedulers

  // swift-dependencies declares these four values itself when its `CombineSchedulers` and
  // `Clocks` traits are on; this package turns them off, so they are declared here, with Tempo's
  // types. If another package in the build turns the traits back on (the Composable Architecture
  // does), each of these names is declared twice and using it fails to compile ("ambiguous use of
  // 'mainQueue'"), rather than quietly meaning the other library's: see the article "Using Tempo
  // with swift-dependencies".
  extension DependencyValues {
    /// The main queue: `DispatchQueue.main` live, an unimplemented scheduler in tests.
    ///
    /// ```swift
    /// @Dependency(\.mainQueue) var mainQueue
    /// ```
    ///
    /// A test puts a Tempo scheduler in its place:
    ///
    /// ```swift
    /// let mainQueue = DispatchQueue.test
    /// let model = withDependencies {
    ///   $0.mainQueue = mainQueue.eraseToAnyScheduler()
    /// } operation: {
    ///   FeatureModel()
    /// }
    /// ```
    public var mainQueue: AnySchedulerOf<DispatchQueue> {
      get { self[MainQueueKey.self] }
      set { self[MainQueueKey.self] = newValue }
    }

    /// The main run loop: `RunLoop.main` live, an unimplemented scheduler in tests.
    ///
    /// ```swift
    /// @Dependency(\.mainRunLoop) var mainRunLoop
    /// ```
    public var mainRunLoop: AnySchedulerOf<RunLoop> {
      get { self[MainRunLoopKey.self] }
      set { self[MainRunLoopKey.self] = newValue }
    }

    /// The clock to use where a `ContinuousClock` would be: the continuous clock live, an
    /// unimplemented clock in tests.
    ///
    /// ```swift
    /// @Dependency(\.continuousClock) var clock
    /// ...
    /// $0.continuousClock = TestClock()
    /// ```
    public var continuousClock: any Clock<Duration> {
      get { self[ContinuousClockKey.self] }
      set { self[ContinuousClockKey.self] = newValue }
    }

    /// The clock to use where a `SuspendingClock` would be: the suspending clock live, an
    /// unimplemented clock in tests.
    ///
    /// ```swift
    /// @Dependency(\.suspendingClock) var clock
    /// ```
    public var suspendingClock: any Clock<Duration> {
      get { self[SuspendingClockKey.self] }
      set { self[SuspendingClockKey.self] = newValue }
    }
  }

  private enum MainQueueKey: DependencyKey {
    static let liveValue = AnySchedulerOf<DispatchQueue>.main
    static let testValue = AnySchedulerOf<DispatchQueue>.unimplemented(#"@Dependency(\.mainQueue)"#)
  }

  private enum MainRunLoopKey: DependencyKey {
    static let liveValue = AnySchedulerOf<RunLoop>.main
    static let testValue = AnySchedulerOf<RunLoop>.unimplemented(#"@Dependency(\.mainRunLoop)"#)
  }

  private enum ContinuousClockKey: DependencyKey {
    static let liveValue: any Clock<Duration> = ContinuousClock()
    static let testValue: any Clock<Duration> = UnimplementedClock(
      ContinuousClock(), name: #"@Dependency(\.continuousClock)"#)
  }

  private enum SuspendingClockKey: DependencyKey {
    static let liveValue: any Clock<Duration> = SuspendingClock()
    static let testValue: any Clock<Duration> = UnimplementedClock(
      SuspendingClock(), name: #"@Dependency(\.suspendingClock)"#)
  }
#endif
