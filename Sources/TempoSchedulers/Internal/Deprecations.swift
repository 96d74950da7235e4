// combine-schedulers' older spellings, which it still declares (deprecated), kept so that code
// written for it compiles against Tempo by changing its import. Each forwards to the name that
// replaced it. Tempo's own unreleased spellings are not kept here: they are deleted when renamed.

/// A scheduler that fails the test when used.
@available(*, deprecated, renamed: "UnimplementedScheduler")
public typealias FailingScheduler = UnimplementedScheduler

/// A failing scheduler with the same time and options types as `Scheduler`.
@available(*, deprecated, renamed: "UnimplementedSchedulerOf")
public typealias FailingSchedulerOf<Scheduler> = UnimplementedSchedulerOf<Scheduler>
where Scheduler: _CombineScheduler

extension AnyScheduler where SchedulerTimeType: _TempoEpochTime {
  /// An unimplemented scheduler, type-erased; combine-schedulers' older name of `unimplemented`.
  @available(*, deprecated, renamed: "unimplemented")
  public static var failing: Self { unimplemented }

  /// combine-schedulers' older name of `unimplemented(_:)`.
  @available(*, deprecated, renamed: "unimplemented(_:)")
  public static func failing(_ prefix: String) -> Self { unimplemented(prefix) }
}
