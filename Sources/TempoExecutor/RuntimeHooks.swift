import Dispatch
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
/// When the last executor closes, what was there before is put back. Every job that belongs to
/// no open executor goes where it was going, through the hook that was there before, if any.
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
    // process; they are written only under `RuntimeHooks.lock`.
    let global: UnsafeMutablePointer<JobHook?>
    let enqueueMain: UnsafeMutablePointer<JobHook?>
    let getMain: UnsafeMutablePointer<GetMainHook?>
    let isMain: UnsafeMutablePointer<IsMainHook?>
  }

  private struct Previous {
    var global: JobHook?
    var enqueueMain: JobHook?
    var getMain: GetMainHook?
    var isMain: IsMainHook?
  }

  private struct State: @unchecked Sendable {
    // Invariant: only read or written under `RuntimeHooks.lock`.
    var open: [ObjectIdentifier: TestExecutor] = [:]
    /// How many clocks, schedulers and timelines made outside any task watch for their test
    /// (``TaskLineage``).
    var watchers = 0
    /// The tasks each open executor has met, by address, with the task's ID: an entry whose ID
    /// differs from the task's now at that address belongs to an ended task, and says nothing.
    var members: [UnsafeRawPointer: Member] = [:]
    var previous = Previous()
  }

  private struct Member {
    let executor: TestExecutor
    let taskID: UInt32
  }

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

  private static let lock = Lock(rank: .runtimeHooks)
  @exclusivity(unchecked) nonisolated(unsafe) private static var state = State()

  /// Marks the main queue, so that code can tell it runs there.
  private static let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  /// Whether the caller runs on the main queue.
  static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

  /// Whether Tempo's hooks are installed now (a test executor is open).
  static var areInstalled: Bool {
    guard let slots else { return false }
    return lock.withLock { isTempos(slots.global.pointee, routeGlobal) }
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

  /// `executor` opens: installs the hooks if nothing needed them before.
  static func open(_ executor: TestExecutor) {
    guard let slots else { return }
    _ = mainQueueKey
    lock.withLock {
      if state.open.isEmpty, state.watchers == 0 {
        install(slots)
      } else if slots.global.pointee == nil {
        // Someone removed Tempo's global hook while it was installed (a scope that sets a hook
        // of its own and clears it when it ends, like swift-concurrency-extras' main serial
        // executor): put it back. A hook someone else has set is left alone.
        state.previous.global = nil
        slots.global.pointee = routeGlobal
      }
      state.open[ObjectIdentifier(executor)] = executor
    }
  }

  /// `executor` closes: forgets its tasks, and puts back the previous hooks if nothing needs
  /// them any more.
  static func close(_ executor: TestExecutor) {
    guard let slots else { return }
    let forgotten = lock.withLock { () -> [UnsafeRawPointer: Member] in
      guard state.open.removeValue(forKey: ObjectIdentifier(executor)) != nil else { return [:] }
      let members = state.members
      state.members = members.filter { $0.value.executor !== executor }
      if state.open.isEmpty, state.watchers == 0 { restore(slots) }
      return members
    }
    // The executors are released after unlocking.
    withExtendedLifetime(forgotten) {}
  }

  /// A clock, scheduler or timeline made outside any task starts watching for its test: the
  /// hooks stay installed while it does, so that the jobs of the tasks the test starts before
  /// its first advance are seen (``TaskLineage``).
  static func watch() {
    guard let slots else { return }
    _ = mainQueueKey
    lock.withLock {
      if state.open.isEmpty, state.watchers == 0 { install(slots) }
      state.watchers += 1
    }
  }

  /// It stops watching.
  static func unwatch() {
    guard let slots else { return }
    lock.withLock {
      state.watchers -= 1
      if state.open.isEmpty, state.watchers == 0 { restore(slots) }
    }
  }

  /// Installs Tempo's hooks, remembering what was there. Call under `lock`.
  private static func install(_ slots: Slots) {
    state.previous = Previous(
      global: slots.global.pointee, enqueueMain: slots.enqueueMain.pointee,
      getMain: slots.getMain.pointee, isMain: slots.isMain.pointee)
    slots.global.pointee = routeGlobal
    slots.enqueueMain.pointee = routeMainEnqueue
    slots.isMain.pointee = isMain
    slots.getMain.pointee = getMain
  }

  /// Puts back the hooks that were there before (unless someone replaced Tempo's in the
  /// meantime: theirs are left alone). Call under `lock`.
  private static func restore(_ slots: Slots) {
    if isTempos(slots.global.pointee, routeGlobal) {
      slots.global.pointee = state.previous.global
    }
    if isTempos(slots.enqueueMain.pointee, routeMainEnqueue) {
      slots.enqueueMain.pointee = state.previous.enqueueMain
    }
    if isTempos(slots.getMain.pointee, getMain) {
      slots.getMain.pointee = state.previous.getMain
    }
    if isTempos(slots.isMain.pointee, isMain) { slots.isMain.pointee = state.previous.isMain }
    state.previous = Previous()
  }

  /// Remembers `task` as one of `executor`'s. (The task's ID is read by the caller, while the
  /// task is known to be alive: once its job is queued, another thread may run it to its end.)
  static func note(_ task: TaskRef, memberOf executor: TestExecutor) {
    let member = Member(executor: executor, taskID: task.id)
    let replaced = lock.withLock { () -> Member? in
      guard state.open[ObjectIdentifier(executor)] != nil else { return nil }
      return state.members.updateValue(member, forKey: task.address)
    }
    withExtendedLifetime(replaced) {}
  }

  /// The open executor of the current task, if it is one of a test's: the one of its
  /// `withTestExecutor` scope, the one whose job the thread is running, or the one that has
  /// met it.
  static func executorForCurrentContext() -> TestExecutor? {
    firstCandidate(forJob: nil) { _ in true }
  }

  /// Offers a job to the open executors it may belong to, most specific first, and answers the
  /// first that `takes` it (see ``Routing`` for the order and its reasons). An executor may
  /// have closed meanwhile; it refuses the job then, and the next is asked.
  static func firstCandidate(
    forJob job: UnsafeRawPointer?, _ takes: (TestExecutor) -> Bool
  ) -> TestExecutor? {
    let taskJob = job.flatMap { JobIdentity.isTask($0) ? $0 : nil }
    let scoped = TestExecutor.current
    let running = RunningJob.executor
    // The runtime lets go of a task before it enqueues what the task leaves for (an actor's
    // processing job); the thread still runs the task's job then.
    let current = TestExecutor.currentTaskPointer ?? RunningJob.current.task
    let route = Routing(
      scoped: scoped, running: running, isTask: taskJob != nil,
      isPlainMainQueueBlock: running == nil && scoped == nil && current == nil && isOnMainQueue)
    return route.firstTaker(
      members: {
        lock.withLock {
          (current.flatMap { member(of: $0) }, taskJob.flatMap { member(of: $0) })
        }
      },
      mainQueueBlockTakers: {
        lock.withLock { Array(state.open.values) }.filter { $0.includesMainQueueBlocks }
      },
      admits: { executor in taskJob.map(executor.admits(task:)) ?? true },
      takes: takes)
  }

  /// The open executor that has met the current task, if any.
  static func executorThatMetCurrentTask() -> TestExecutor? {
    TestExecutor.currentTaskPointer.flatMap(executorThatMet(task:))
  }

  /// The open executor that has met `task`, a live task, if any.
  static func executorThatMet(task: UnsafeRawPointer) -> TestExecutor? {
    lock.withLock { member(of: task) }
  }

  /// The open executor that has met `task`, which may have ended (its ID is not read).
  static func executorThatMet(_ task: TaskRef) -> TestExecutor? {
    lock.withLock { member(at: task.address, id: task.id) }
  }

  /// The executor that has met `task`, a live task, unless the entry at its address is an
  /// ended task's. Call under `lock`.
  private static func member(of task: UnsafeRawPointer) -> TestExecutor? {
    member(at: task, id: JobIdentity.taskID(task))
  }

  /// The executor that has met the task with `id` at `address`. Call under `lock`.
  private static func member(at address: UnsafeRawPointer, id: UInt32) -> TestExecutor? {
    guard let member = state.members[address], member.taskID == id else { return nil }
    return member.executor
  }

  private static func isTempos<Hook>(_ installed: Hook?, _ ours: Hook) -> Bool {
    guard let installed else { return false }
    return unsafeBitCast(installed, to: UnsafeRawPointer.self)
      == unsafeBitCast(ours, to: UnsafeRawPointer.self)
  }

  private static let routeGlobal: JobHook = { pointer, original in
    let job = unsafeBitCast(pointer, to: UnownedJob.self)
    if firstCandidate(forJob: UnsafeRawPointer(pointer), { $0.accept(job) }) != nil { return }
    if TaskLineage.relay(job) { return }
    if let previous = lock.withLock({ state.previous.global }) {
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
