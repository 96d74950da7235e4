@_exported public import Dispatch
@_exported public import Foundation

// The one place that chooses where the Combine API comes from: Apple's Combine where it exists,
// OpenCombine (with its Dispatch and Foundation schedulers) everywhere else. Every other file of
// the module sees the chosen module through this re-export, and so do TempoSchedulers' users.
#if canImport(Combine)
  @_exported public import Combine

  /// The `Scheduler` protocol of the Combine implementation in use.
  public typealias _CombineScheduler = Combine.Scheduler
#else
  @_exported public import OpenCombineShim

  /// The `Scheduler` protocol of the Combine implementation in use.
  public typealias _CombineScheduler = OpenCombine.Scheduler
#endif
