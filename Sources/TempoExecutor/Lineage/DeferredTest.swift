import Dispatch
import Synchronization
import TempoCore
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

/// The test of a clock, scheduler or timeline made in a task that has no executor yet, whose
/// executor opens only once the test needs one: a test that only schedules and advances
/// synchronously never opens one.
///
/// The test's work is its task's: until that task, `test`, makes a job runnable (starts a task,
/// calls into an actor), nothing of the test runs anywhere but in that task, and there is
/// nothing to wait for. So the registry keeps the deferral under the task's address, the
/// runtime's hooks are installed, and the executor opens:
/// - at the first job the test's task makes runnable (a task it starts, an actor's processing
///   job), before that job is routed (``TestRegistry/members(current:job:opensDeferred:)``):
///   the executor then holds everything it would have held had it opened at once;
/// - at an async verb of the time source (``ImplicitScope/executorForDriving(at:forAutoAdvance:)``),
///   a sleep of the test's task, or a request for the test's executor (``TestExecutor/ofCurrentTest``).
///
/// The pending-work watch of a source the test schedules on is asked for at its first
/// scheduling and made at the hang watch's next look (a test that then waits on `.values` makes
/// no job, and its hang is reported only so); it reads the executor's activity once there is
/// one (``opened``).
///
/// ```swift
/// let deferred = TestRegistry.deferral(for: test)   // a time source made in `test`
/// deferred.open()                                    // its test's executor, opened once
/// TestRegistry.release(deferred)                     // the source went away
/// ```
@available(TempoTestExecutor 1.0, *)
package final class DeferredTest: @unchecked Sendable {
  // Invariant: `test` and `isOnMainQueue` are immutable; `kept` holds one retain of the test's
  // task from `init` until it is handed to the executor (`open()`) or released (`deinit`).
  // `executor` is written once, by the one thread that moved `state` from `deferred` to
  // `opening`, before it stores `open` (releasing); it is read only after `open` is loaded
  // (acquiring). `firstSource`, `moreSources` and `hasEnded` are guarded by `lock`, taken
  // alone. `scopes` is guarded by the registry's lock.
  let test: TaskRef
  /// Whether the test's task made the deferral on the main queue: its executor's pumps run
  /// there, as they would had it opened at once (``TestExecutor/pumpsOnMainQueue``).
  let isOnMainQueue: Bool
  private var kept: UnsafeRawPointer?
  private var executor: TestExecutor?
  private let state = Atomic<Int>(State.deferred)
  /// Wakes the threads that found the executor opening; each wakes the next.
  private let openingEnded = DispatchSemaphore(value: 0)
  private let lock = Lock()
  /// The time sources added before the executor opened: the first (a test usually makes one),
  /// then any more, so that the usual test allocates no array for them.
  private var firstSource: WeakSource?
  private var moreSources: [WeakSource] = []
  /// Set, under `lock`, before the deferral lets go of the test's task or its executor
  /// (``end()``): from then on no one else may keep the task (``retainedTest()``).
  private var hasEnded = false
  /// How many implicit scopes hold the deferral (guarded by the registry's lock).
  var scopes = 1

  private enum State {
    static let deferred = 0
    static let opening = 1
    static let open = 2
    /// Every scope let go before the executor opened: it never will.
    static let ended = 3
  }

  /// Defers the executor of the current task, `test`, which is alive and running: it is kept
  /// until the executor opens, so that the executor can read its status whatever thread opens
  /// it.
  init(test: TaskRef) {
    self.test = test
    isOnMainQueue = RuntimeHooks.isOnMainQueue
    tempo_task_retain(test.address)
    kept = test.address
  }

  deinit {
    if let kept { tempo_task_release(kept) }
  }

  /// The executor, if it has opened.
  var opened: TestExecutor? {
    state.load(ordering: .acquiring) == State.open ? executor : nil
  }

  /// A time source of the test: the executor lists its pending work, now if it has opened,
  /// else from when it opens.
  func add(_ source: any LeftoverWorkSource) {
    // Kept under the lock only while the executor has not opened: its opener publishes it, then
    // takes the list under the lock, so each source is added once.
    // (By hand, not `withLock`: every time source made in a task comes here, and a debug build
    // calls `withLock`'s generic closure through a thunk. Nothing here throws.)
    lock.lock()
    let executor = opened
    if executor == nil {
      if firstSource == nil {
        firstSource = WeakSource(source)
      } else {
        moreSources.append(WeakSource(source))
      }
    }
    lock.unlock()
    executor?.leftovers.add(source)
  }

  /// The test's executor, opened now if it has not opened yet, with one lease the deferral
  /// holds; nil once every scope has let go. Another thread that finds it opening waits until
  /// it has.
  func open() -> TestExecutor? {
    switch state.compareExchange(
      expected: State.deferred, desired: State.opening, ordering: .acquiring
    ).original {
    case State.deferred:
      break
    case State.open:
      return executor
    case State.ended:
      return nil
    default:
      while state.load(ordering: .acquiring) == State.opening {
        openingEnded.wait()
        openingEnded.signal()
      }
      return opened
    }
    let opening = TestExecutor(deferredFor: test, keeping: kept!, pumpsOnMainQueue: isOnMainQueue)
    kept = nil
    _ = opening.retainLease()
    executor = opening
    state.store(State.open, ordering: .releasing)
    openingEnded.signal()
    // After the executor noted the test's task: routing finds one or the other throughout.
    TestRegistry.forget(self)
    let listed = lock.withLock { () -> [WeakSource] in
      defer {
        firstSource = nil
        moreSources = []
      }
      guard let firstSource else { return [] }
      return [firstSource] + moreSources
    }
    for source in listed { if let source = source.value { opening.leftovers.add(source) } }
    return opening
  }

  /// Another retain of the test's task, for the hang watch, unless the deferral has ended. The
  /// task is alive until then: kept by the deferral, or by the executor it opened
  /// (``TestExecutor/heldOpener``), which the deferral's lease keeps.
  func retainedTest() -> UnsafeRawPointer? {
    lock.withLock {
      guard !hasEnded else { return nil }
      tempo_task_retain(test.address)
      return test.address
    }
  }

  /// Every scope has let go (the registry forgot the deferral): the executor, if it opened,
  /// loses the deferral's lease. One opening on another thread is waited for.
  func end() {
    lock.withLock { hasEnded = true }
    switch state.compareExchange(
      expected: State.deferred, desired: State.ended, ordering: .acquiring
    ).original {
    case State.deferred, State.ended:
      return
    default:
      open()?.releaseLease()
    }
  }
}

/// A time source, weakly (``DeferredTest/add(_:)``).
@available(TempoTestExecutor 1.0, *)
private struct WeakSource {
  weak var value: (any LeftoverWorkSource)?

  init(_ value: any LeftoverWorkSource) { self.value = value }
}
