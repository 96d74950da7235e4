import Dispatch
import Synchronization
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

/// The Swift runtime's executor hooks, through which test executors see the jobs that the work
/// of their tests makes runnable, and which tasks belong to which test.
///
/// While any ``TestExecutor`` is open, Tempo sets:
/// - `swift_task_enqueueGlobal_hook`, called for every job bound for the global concurrent
///   executor: a job of an open executor's test is queued there instead;
/// - `swift_task_getMainExecutor_hook`, asked for the main actor's executor at every hop to the
///   main actor: it answers ``MainExecutor``, which runs the job on the main queue and counts it
///   for its test;
/// - `swift_task_isMainExecutor_hook`, so that isolation checks know ``MainExecutor`` is the
///   main actor's;
/// - `swift_task_enqueueMainExecutor_hook`, for an explicit `MainActor.shared.enqueue`.
///
/// When the last executor closes, the global hook that was there before is put back. Every job
/// that belongs to no open executor goes where it was going, through the hook that was there
/// before, if any.
///
/// The three main-executor hooks stay for the rest of the process once installed: the main
/// actor's executor is part of the identity the runtime compares at every hop. Put back and
/// installed again around each test, it made a test that first makes its clock or scheduler
/// on the main actor hop through the main queue to reach the main actor it was already on,
/// about 40 µs of a 200 µs synchronous Combine test in debug. While nothing needs routing
/// (``isRouting`` is false), ``MainExecutor`` only runs each job on the main queue, as the
/// platform's does.
///
/// This type only installs and restores the hooks, as ``TestRegistry`` decides under its lock,
/// and holds the functions the runtime calls; whose a job is, the registry answers.
///
/// The hooks are C function pointers (`TempoRuntimeABI.h`), so that in an arm64e process they are
/// signed and authenticated as the runtime expects; see ``signing``.
@available(TempoTestExecutor 1.0, *)
enum RuntimeHooks {
  typealias JobHook = TempoJobHook
  typealias GetMainHook = TempoGetMainHook
  typealias IsMainHook = TempoIsMainHook

  private struct Slots: @unchecked Sendable {
    // Invariant: the pointers address the runtime's hook variables, which live as long as the
    // process; they are written only under `TestRegistry`'s lock.
    let global: UnsafeMutablePointer<JobHook?>
    let enqueueMain: UnsafeMutablePointer<JobHook?>
    let getMain: UnsafeMutablePointer<GetMainHook?>
    let isMain: UnsafeMutablePointer<IsMainHook?>
  }

  /// The global hook that was there before Tempo's, as its bits (0: none), to send a job of no
  /// test on to, and to put back when nothing needs Tempo's. Written under ``TestRegistry``'s
  /// lock as the hook is; read without it on the path of every job that no test takes. (The
  /// main-executor hooks are never put back.)
  private static let previousGlobal = Atomic<UInt>(0)

  /// The global hook that was there before Tempo's, if any (``previousGlobal``).
  static var previousGlobalHook: JobHook? {
    let bits = previousGlobal.load(ordering: .relaxed)
    return bits == 0 ? nil : unsafeBitCast(bits, to: JobHook.self)
  }

  /// `hook`'s bits, for ``previousGlobal``.
  private static func bits(of hook: JobHook?) -> UInt {
    guard let hook else { return 0 }
    return unsafeBitCast(hook, to: UInt.self)
  }

  /// Whether Tempo's global hook is installed, so that jobs are routed to test executors:
  /// written under ``TestRegistry``'s lock as the hook is, read without it by ``MainExecutor``,
  /// whose hooks stay. A job enqueued while another thread installs the hooks may be read
  /// either way, as the hook pointer itself may.
  static let isRouting = Atomic<Bool>(false)

  private static let slots: Slots? = {
    guard signing != .unverified else { return nil }
    // A runtime older than Swift 6.1 (macOS 15.0–15.3, iOS 18.0–18.3) lacks the main-executor
    // hooks. Tempo's tests simulate one by naming a symbol in this variable.
    let missing = Platform.environmentValue(named: "TEMPO_SIMULATE_MISSING_HOOK")
    func slot<T>(_ name: String, _: T.Type) -> UnsafeMutablePointer<T?>? {
      guard name != missing else { return nil }
      // Every loaded image, in load order (`RTLD_DEFAULT`).
      return Platform.symbol(named: name)?.assumingMemoryBound(to: T?.self)
    }
    guard let global = slot("swift_task_enqueueGlobal_hook", JobHook.self),
      let enqueueMain = slot("swift_task_enqueueMainExecutor_hook", JobHook.self),
      let getMain = slot("swift_task_getMainExecutor_hook", GetMainHook.self),
      let isMain = slot("swift_task_isMainExecutor_hook", IsMainHook.self)
    else { return nil }
    return Slots(global: global, enqueueMain: enqueueMain, getMain: getMain, isMain: isMain)
  }()

  /// Marks the main queue, so that code can tell it runs there.
  private static let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  /// Whether the caller runs on the main queue.
  static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

  /// Whether Tempo's global hook is installed now. Read under ``TestRegistry``'s lock.
  static var globalIsInstalled: Bool {
    guard let slots else { return false }
    return isTempos(slots.global.pointee, routeGlobal)
  }

  /// Whether this runtime exposes the hooks, and Tempo can sign them as it expects; without them
  /// a test executor cannot see any job.
  static var areAvailable: Bool { slots != nil }

  /// Why the hooks cannot be installed, in words for a warning; nil when they can.
  static var unavailability: String? {
    if slots != nil { return nil }
    if signing == .unverified {
      return """
        This arm64e process runs on a Swift runtime whose hooks may be signed with a scheme \
        newer than Tempo knows (swiftlang/swift#91738; systems after the 26.x releases), and a \
        hook signed the wrong way would crash the process
        """
    }
    return """
      This Swift runtime has no main-executor hooks (they arrived with Swift 6.1: macOS 15.4, \
      iOS and tvOS 18.4, watchOS 11.4, visionOS 2.4)
      """
  }

  /// How the runtime in this process authenticates the hook pointers Tempo stores and the
  /// `original` functions it is given.
  enum Signing: Equatable {
    /// Not at all: no pointer authentication (x86_64, arm64, every simulator, Linux).
    case none
    /// Plain C function pointers, key IA and discriminator 0, which is how Swift signs and calls
    /// `@convention(c)` functions: every runtime through Swift 6.3, which every system through
    /// the 26.x releases ships.
    case plainFunctionPointers
    /// Possibly a schema of the hook variables' own (swiftlang/swift#91738: a non-zero
    /// discriminator with address diversity), whose constants no shipped header states. Tempo
    /// installs nothing rather than crash the process.
    case unverified
  }

  /// The signing of this process's runtime (``Signing``). Tempo's tests simulate an unverified
  /// one with `TEMPO_SIMULATE_UNVERIFIED_HOOK_SIGNING`.
  static let signing: Signing = {
    if Platform.environmentValue(named: "TEMPO_SIMULATE_UNVERIFIED_HOOK_SIGNING") != nil {
      return .unverified
    }
    return signing(
      authenticatesCodePointers: tempo_authenticates_code_pointers(),
      runtimeMayPredateOwnSchema: runtimeMayPredateOwnHookSchema)
  }()

  /// The decision, apart from the process: with pointer authentication, hooks are stored as
  /// plain function pointers only on a runtime known to authenticate them so.
  static func signing(
    authenticatesCodePointers: Bool, runtimeMayPredateOwnSchema: Bool
  ) -> Signing {
    guard authenticatesCodePointers else { return .none }
    return runtimeMayPredateOwnSchema ? .plainFunctionPointers : .unverified
  }

  /// Whether the system's Swift runtime is one of those known to sign the hooks as plain
  /// function pointers: those of the 26.x releases and before (the macro in Package.swift names
  /// the first systems after them).
  private static var runtimeMayPredateOwnHookSchema: Bool {
    if #available(TempoUnverifiedHookSigning 1.0, *) { return false }
    return true
  }

  /// Makes what the hooks read before they are first installed.
  static func prepare() {
    _ = mainQueueKey
    _ = YieldResumePoint.function
    _ = SystemSleep.resumePoints
  }

  /// Does what ``TestRegistryState`` answered the hooks need. Called under ``TestRegistry``'s
  /// lock: the stores are plain writes, and two threads cannot interleave an install and a
  /// restore.
  static func apply(_ hooks: TestRegistryState.Hooks) {
    guard let slots else { return }
    switch hooks {
    case .unchanged:
      break
    case .install:
      previousGlobal.store(bits(of: slots.global.pointee), ordering: .relaxed)
      slots.global.pointee = routeGlobal
      // Written once: rewritten, `getMain` would still answer the same executor.
      if !isTempos(slots.getMain.pointee, getMain) {
        slots.enqueueMain.pointee = routeMainEnqueue
        slots.isMain.pointee = isMain
        slots.getMain.pointee = getMain
      }
      isRouting.store(true, ordering: .relaxed)
    case .keepInstalled:
      // Someone removed Tempo's global hook while it was installed (a scope that sets a hook
      // of its own and clears it when it ends, like swift-concurrency-extras' main serial
      // executor): put it back. A hook someone else has set is left alone.
      if slots.global.pointee == nil {
        previousGlobal.store(0, ordering: .relaxed)
        slots.global.pointee = routeGlobal
      }
    case .restore:
      // Unless someone replaced Tempo's in the meantime: theirs is left alone.
      if isTempos(slots.global.pointee, routeGlobal) { slots.global.pointee = previousGlobalHook }
      previousGlobal.store(0, ordering: .relaxed)
      isRouting.store(false, ordering: .relaxed)
    }
  }

  // One `isTempos` per hook type rather than one generic over it: a debug build looks the
  // metadata of a generic `Optional` of a function type up at every call, and the global hook
  // is installed and restored around every test.

  private static func isTempos(_ installed: JobHook?, _ ours: JobHook) -> Bool {
    guard let installed else { return false }
    return unsafeBitCast(installed, to: UnsafeRawPointer.self)
      == unsafeBitCast(ours, to: UnsafeRawPointer.self)
  }

  private static func isTempos(_ installed: GetMainHook?, _ ours: GetMainHook) -> Bool {
    guard let installed else { return false }
    return unsafeBitCast(installed, to: UnsafeRawPointer.self)
      == unsafeBitCast(ours, to: UnsafeRawPointer.self)
  }

  private static let routeGlobal: JobHook = { pointer, original in
    let job = unsafeBitCast(pointer, to: UnownedJob.self)
    // A look's job for the tasks' own queue (see `TasksQueue`) goes there untouched.
    if !TasksQueue.isCreatingOnThisThread {
      // A task that switches in its own job goes on in it (see `TestExecutor.run`).
      if RunningJob.handOff(UnsafeRawPointer(pointer)) { return }
      if TestRegistry.firstCandidate(forJob: UnsafeRawPointer(pointer), { $0.accept(job) }) != nil {
        return
      }
      if TaskLineage.relay(job) { return }
    }
    if let previous = previousGlobalHook {
      previous(pointer, original)
    } else {
      original(pointer)
    }
  }

  private static let routeMainEnqueue: JobHook = { pointer, _ in
    MainExecutor.shared.enqueue(unsafeBitCast(pointer, to: UnownedJob.self))
  }

  private static let getMain: GetMainHook = { _ in
    unsafeBitCast(MainExecutor.unowned, to: TempoExecutorRef.self)
  }

  private static let isMain: IsMainHook = { executor, original in
    MainExecutor.isThis(unsafeBitCast(executor, to: UnownedSerialExecutor.self))
      || original(executor)
  }
}
