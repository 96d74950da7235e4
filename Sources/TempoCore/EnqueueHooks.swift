import Dispatch

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// The Swift runtime's enqueue hooks, through which a ``TestExecutor`` sees the jobs that the
/// work of its test makes runnable.
///
/// The runtime calls `swift_task_enqueueGlobal_hook`, when set, for every job bound for the
/// global concurrent executor (and `swift_task_enqueueMainExecutor_hook` for main-actor jobs on
/// runtimes that honour it; Swift 6.3 does not). Tempo sets them while a test executor is open
/// and puts back what was there when it closes. A job is taken by the test executor only when it
/// belongs to its test (see ``TestExecutor``); every other job in the process goes where it was
/// going, through the hook that was there before, if any.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
enum EnqueueHooks {
  typealias Original = @convention(thin) (UnownedJob) -> Void
  typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

  private struct Slots: @unchecked Sendable {
    // Invariant: the pointers address the runtime's two hook variables, which live as long as
    // the process; they are written only under `EnqueueHooks.lock`.
    let global: UnsafeMutablePointer<Hook?>
    let main: UnsafeMutablePointer<Hook?>
  }

  private struct State: @unchecked Sendable {
    // Invariant: only read or written under `EnqueueHooks.lock`.
    var open: TestExecutor?
    var previousGlobal: Hook?
    var previousMain: Hook?
  }

  private static let slots: Slots? = {
    guard
      let global = dlsym(nil, "swift_task_enqueueGlobal_hook"),
      let main = dlsym(nil, "swift_task_enqueueMainExecutor_hook")
    else { return nil }
    return Slots(
      global: global.assumingMemoryBound(to: Hook?.self),
      main: main.assumingMemoryBound(to: Hook?.self)
    )
  }()

  private static let lock = Lock()
  nonisolated(unsafe) private static var state = State()

  /// Marks the main queue while a test executor is open, so that the hook can tell a job
  /// enqueued from main-actor code.
  private static let mainQueueKey = DispatchSpecificKey<Bool>()

  /// Whether Tempo's hook is installed now (a test executor is open).
  static var areInstalled: Bool {
    guard let slots else { return false }
    return lock.withLock { isTempos(slots.global.pointee, routeGlobal) }
  }

  /// Whether this runtime exposes the hooks; without them a test executor cannot see any job.
  static var areAvailable: Bool { slots != nil }

  /// `executor` opens (test executors take turns, so no other is open): installs the hooks.
  static func open(_ executor: TestExecutor) {
    guard let slots else { return }
    DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
    lock.withLock {
      state.open = executor
      state.previousGlobal = slots.global.pointee
      state.previousMain = slots.main.pointee
      slots.global.pointee = routeGlobal
      slots.main.pointee = routeMain
    }
  }

  /// `executor` closes: puts back the previous hooks, unless someone replaced Tempo's in the
  /// meantime (their hook is then left alone).
  static func close(_ executor: TestExecutor) {
    guard let slots else { return }
    lock.withLock {
      guard state.open === executor else { return }
      if isTempos(slots.global.pointee, routeGlobal) { slots.global.pointee = state.previousGlobal }
      if isTempos(slots.main.pointee, routeMain) { slots.main.pointee = state.previousMain }
      state = State()
    }
    DispatchQueue.main.setSpecific(key: mainQueueKey, value: nil)
  }

  private static func isTempos(_ installed: Hook?, _ ours: Hook) -> Bool {
    guard let installed else { return false }
    return unsafeBitCast(installed, to: UnsafeRawPointer.self)
      == unsafeBitCast(ours, to: UnsafeRawPointer.self)
  }

  private static let routeGlobal: Hook = { job, original in
    if TestExecutor.routing?.accept(job, onMainActor: false) == true { return }
    let (open, previous) = lock.withLock { (state.open, state.previousGlobal) }
    let fromMainQueue = DispatchQueue.getSpecific(key: mainQueueKey) == true
    if open?.acceptStray(job, fromMainQueue: fromMainQueue) == true { return }
    if let previous { previous(job, original) } else { original(job) }
  }

  private static let routeMain: Hook = { job, original in
    if TestExecutor.routing?.accept(job, onMainActor: true) == true { return }
    if let previous = lock.withLock({ state.previousMain }) {
      previous(job, original)
    } else {
      original(job)
    }
  }
}
