import TempoCore
import TempoExecutor
import TempoSupport
public import TempoTimeline

// The `.test`, `.immediate` and `.unimplemented` factories, declared on each scheduler type
// itself rather than once on a protocol. A library that declares the same names on the same types
// (combine-schedulers, which swift-dependencies re-exports) then makes a spelling such as
// `DispatchQueue.test` ambiguous — a compile error that names both modules — instead of winning
// the overload silently, as a concrete type's member does over a protocol extension's. See the
// article "Using Tempo with swift-dependencies".

extension DispatchQueue {
  /// A test scheduler with this scheduler's time and options types, starting at 1 ns of uptime.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// scheduler.advance(by: .seconds(1))
  /// ```
  public static var test: TestSchedulerOf<DispatchQueue> {
    .madeByFactoryProperty(
      "DispatchQueue.test", instead: "DispatchQueue.test(timeline: TestTimeline())")
  }

  /// A test scheduler on a shared timeline: one advance of the timeline, or of any of its
  /// sources, runs the due work of all of them in one order.
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// let scheduler = DispatchQueue.test(timeline: time)
  /// let clock = TestClock(timeline: time)
  /// ```
  ///
  /// The scheduler starts at 1 ns of uptime plus the time since the timeline began.
  public static func test(
    timeline: TestTimeline,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> TestSchedulerOf<DispatchQueue> {
    TestScheduler(
      timeline: timeline, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// An immediate scheduler with this scheduler's time and options types, at 1 ns of uptime.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.immediate
  /// ```
  public static var immediate: ImmediateSchedulerOf<DispatchQueue> {
    ImmediateScheduler(now: _tempoEpoch)
  }

  /// An unimplemented scheduler with this scheduler's time and options types.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.unimplemented
  /// ```
  ///
  /// A property cannot know the line that reads it, so its issues cannot point at it: they say
  /// how to create the scheduler so that they do.
  public static var unimplemented: UnimplementedSchedulerOf<DispatchQueue> {
    UnimplementedScheduler("", now: _tempoEpoch, location: nil)
  }

  /// An unimplemented scheduler with this scheduler's time and options types, whose issues
  /// start with `prefix`.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.unimplemented("mainQueue")
  /// ```
  ///
  /// This factory takes no source location, like combine-schedulers' of the same name, so that
  /// where both libraries are visible the call is ambiguous rather than quietly theirs (a
  /// function with fewer parameters wins the overload). Its issues say how to point them at a
  /// line: `UnimplementedSchedulerOf<DispatchQueue>(prefix, now:)` captures the caller's.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<DispatchQueue> {
    UnimplementedScheduler(prefix, now: _tempoEpoch, location: nil)
  }

  /// An unimplemented scheduler; combine-schedulers' older name of ``unimplemented``.
  @available(*, deprecated, renamed: "unimplemented")
  public static var failing: UnimplementedSchedulerOf<DispatchQueue> { unimplemented }

  /// An unimplemented scheduler whose issues start with `prefix`; combine-schedulers'
  /// older name of `unimplemented(_:)`.
  @available(*, deprecated, renamed: "unimplemented(_:)")
  public static func failing(_ prefix: String) -> UnimplementedSchedulerOf<DispatchQueue> {
    unimplemented(prefix)
  }

  /// A test scheduler; combine-schedulers' older name of ``test``.
  @available(*, deprecated, renamed: "test")
  public static var testScheduler: TestSchedulerOf<DispatchQueue> { test }

  /// An immediate scheduler; combine-schedulers' older name of ``immediate``.
  @available(*, deprecated, renamed: "immediate")
  public static var immediateScheduler: ImmediateSchedulerOf<DispatchQueue> { immediate }
}

extension RunLoop {
  /// A test scheduler with this scheduler's time and options types, starting at the 1970 epoch.
  ///
  /// ```swift
  /// let scheduler = RunLoop.test
  /// scheduler.advance(by: .seconds(1))
  /// ```
  public static var test: TestSchedulerOf<RunLoop> {
    .madeByFactoryProperty(
      "RunLoop.test", instead: "RunLoop.test(timeline: TestTimeline())")
  }

  /// A test scheduler on a shared timeline: one advance of the timeline, or of any of its
  /// sources, runs the due work of all of them in one order.
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// let scheduler = RunLoop.test(timeline: time)
  /// let clock = TestClock(timeline: time)
  /// ```
  ///
  /// The scheduler starts at the 1970 epoch plus the time since the timeline began.
  public static func test(
    timeline: TestTimeline,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> TestSchedulerOf<RunLoop> {
    TestScheduler(
      timeline: timeline, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// An immediate scheduler with this scheduler's time and options types, at the 1970 epoch.
  ///
  /// ```swift
  /// let scheduler = RunLoop.immediate
  /// ```
  public static var immediate: ImmediateSchedulerOf<RunLoop> {
    ImmediateScheduler(now: _tempoEpoch)
  }

  /// An unimplemented scheduler with this scheduler's time and options types.
  ///
  /// ```swift
  /// let scheduler = RunLoop.unimplemented
  /// ```
  ///
  /// A property cannot know the line that reads it, so its issues cannot point at it: they say
  /// how to create the scheduler so that they do.
  public static var unimplemented: UnimplementedSchedulerOf<RunLoop> {
    UnimplementedScheduler("", now: _tempoEpoch, location: nil)
  }

  /// An unimplemented scheduler with this scheduler's time and options types, whose issues
  /// start with `prefix`.
  ///
  /// ```swift
  /// let scheduler = RunLoop.unimplemented("mainRunLoop")
  /// ```
  ///
  /// This factory takes no source location, like combine-schedulers' of the same name, so that
  /// where both libraries are visible the call is ambiguous rather than quietly theirs (a
  /// function with fewer parameters wins the overload). Its issues say how to point them at a
  /// line: `UnimplementedSchedulerOf<RunLoop>(prefix, now:)` captures the caller's.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<RunLoop> {
    UnimplementedScheduler(prefix, now: _tempoEpoch, location: nil)
  }

  /// An unimplemented scheduler; combine-schedulers' older name of ``unimplemented``.
  @available(*, deprecated, renamed: "unimplemented")
  public static var failing: UnimplementedSchedulerOf<RunLoop> { unimplemented }

  /// An unimplemented scheduler whose issues start with `prefix`; combine-schedulers'
  /// older name of `unimplemented(_:)`.
  @available(*, deprecated, renamed: "unimplemented(_:)")
  public static func failing(_ prefix: String) -> UnimplementedSchedulerOf<RunLoop> {
    unimplemented(prefix)
  }

  /// A test scheduler; combine-schedulers' older name of ``test``.
  @available(*, deprecated, renamed: "test")
  public static var testScheduler: TestSchedulerOf<RunLoop> { test }

  /// An immediate scheduler; combine-schedulers' older name of ``immediate``.
  @available(*, deprecated, renamed: "immediate")
  public static var immediateScheduler: ImmediateSchedulerOf<RunLoop> { immediate }
}

extension OperationQueue {
  /// A test scheduler with this scheduler's time and options types, starting at the 1970 epoch.
  ///
  /// ```swift
  /// let scheduler = OperationQueue.test
  /// scheduler.advance(by: .seconds(1))
  /// ```
  public static var test: TestSchedulerOf<OperationQueue> {
    .madeByFactoryProperty(
      "OperationQueue.test", instead: "OperationQueue.test(timeline: TestTimeline())")
  }

  /// A test scheduler on a shared timeline: one advance of the timeline, or of any of its
  /// sources, runs the due work of all of them in one order.
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// let scheduler = OperationQueue.test(timeline: time)
  /// let clock = TestClock(timeline: time)
  /// ```
  ///
  /// The scheduler starts at the 1970 epoch plus the time since the timeline began.
  public static func test(
    timeline: TestTimeline,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> TestSchedulerOf<OperationQueue> {
    TestScheduler(
      timeline: timeline, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// An immediate scheduler with this scheduler's time and options types, at the 1970 epoch.
  ///
  /// ```swift
  /// let scheduler = OperationQueue.immediate
  /// ```
  public static var immediate: ImmediateSchedulerOf<OperationQueue> {
    ImmediateScheduler(now: _tempoEpoch)
  }

  /// An unimplemented scheduler with this scheduler's time and options types.
  ///
  /// ```swift
  /// let scheduler = OperationQueue.unimplemented
  /// ```
  ///
  /// A property cannot know the line that reads it, so its issues cannot point at it: they say
  /// how to create the scheduler so that they do.
  public static var unimplemented: UnimplementedSchedulerOf<OperationQueue> {
    UnimplementedScheduler("", now: _tempoEpoch, location: nil)
  }

  /// An unimplemented scheduler with this scheduler's time and options types, whose issues
  /// start with `prefix`.
  ///
  /// ```swift
  /// let scheduler = OperationQueue.unimplemented("queue")
  /// ```
  ///
  /// This factory takes no source location, like combine-schedulers' of the same name, so that
  /// where both libraries are visible the call is ambiguous rather than quietly theirs (a
  /// function with fewer parameters wins the overload). Its issues say how to point them at a
  /// line: `UnimplementedSchedulerOf<OperationQueue>(prefix, now:)` captures the caller's.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<OperationQueue> {
    UnimplementedScheduler(prefix, now: _tempoEpoch, location: nil)
  }

  /// An unimplemented scheduler; combine-schedulers' older name of ``unimplemented``.
  @available(*, deprecated, renamed: "unimplemented")
  public static var failing: UnimplementedSchedulerOf<OperationQueue> { unimplemented }

  /// An unimplemented scheduler whose issues start with `prefix`; combine-schedulers'
  /// older name of `unimplemented(_:)`.
  @available(*, deprecated, renamed: "unimplemented(_:)")
  public static func failing(_ prefix: String) -> UnimplementedSchedulerOf<OperationQueue> {
    unimplemented(prefix)
  }

  /// A test scheduler; combine-schedulers' older name of ``test``.
  @available(*, deprecated, renamed: "test")
  public static var testScheduler: TestSchedulerOf<OperationQueue> { test }

  /// An immediate scheduler; combine-schedulers' older name of ``immediate``.
  @available(*, deprecated, renamed: "immediate")
  public static var immediateScheduler: ImmediateSchedulerOf<OperationQueue> { immediate }
}

extension UIScheduler {
  /// A test scheduler with this scheduler's time and options types, starting at 1 ns of uptime.
  ///
  /// ```swift
  /// let scheduler = UIScheduler.test
  /// scheduler.advance(by: .seconds(1))
  /// ```
  public static var test: TestSchedulerOf<UIScheduler> {
    .madeByFactoryProperty(
      "UIScheduler.test", instead: "UIScheduler.test(timeline: TestTimeline())")
  }

  /// A test scheduler on a shared timeline: one advance of the timeline, or of any of its
  /// sources, runs the due work of all of them in one order.
  ///
  /// ```swift
  /// let time = TestTimeline()
  /// let scheduler = UIScheduler.test(timeline: time)
  /// let clock = TestClock(timeline: time)
  /// ```
  ///
  /// The scheduler starts at 1 ns of uptime plus the time since the timeline began.
  public static func test(
    timeline: TestTimeline,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> TestSchedulerOf<UIScheduler> {
    TestScheduler(
      timeline: timeline, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// An immediate scheduler with this scheduler's time and options types, at 1 ns of uptime.
  ///
  /// ```swift
  /// let scheduler = UIScheduler.immediate
  /// ```
  public static var immediate: ImmediateSchedulerOf<UIScheduler> {
    ImmediateScheduler(now: _tempoEpoch)
  }

  /// An unimplemented scheduler with this scheduler's time and options types.
  ///
  /// ```swift
  /// let scheduler = UIScheduler.unimplemented
  /// ```
  ///
  /// A property cannot know the line that reads it, so its issues cannot point at it: they say
  /// how to create the scheduler so that they do.
  public static var unimplemented: UnimplementedSchedulerOf<UIScheduler> {
    UnimplementedScheduler("", now: _tempoEpoch, location: nil)
  }

  /// An unimplemented scheduler with this scheduler's time and options types, whose issues
  /// start with `prefix`.
  ///
  /// ```swift
  /// let scheduler = UIScheduler.unimplemented("uiScheduler")
  /// ```
  ///
  /// This factory takes no source location, like combine-schedulers' of the same name, so that
  /// where both libraries are visible the call is ambiguous rather than quietly theirs (a
  /// function with fewer parameters wins the overload). Its issues say how to point them at a
  /// line: `UnimplementedSchedulerOf<UIScheduler>(prefix, now:)` captures the caller's.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<UIScheduler> {
    UnimplementedScheduler(prefix, now: _tempoEpoch, location: nil)
  }
}

extension TestScheduler where SchedulerTimeType: _TempoEpochTime {
  /// The test scheduler of the factory property `factory` (`"DispatchQueue.test"`): at the
  /// type's epoch, on a timeline of its own. A property cannot know the line that read it, so
  /// its issues say how to make one that does (`instead`). The names are literals, so that
  /// making a scheduler allocates no string.
  static func madeByFactoryProperty(_ factory: String, instead: String) -> TestScheduler {
    TestScheduler(
      timeline: loneTimeline(startingAt: SchedulerTimeType._tempoEpoch),
      creation: .factoryProperty(factory, instead: instead))
  }
}
