import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

/// The deferred executors' side of the registry (``DeferredTest``): kept under the registry's
/// lock, found by routing for the first job a test's task makes runnable.
///
/// ```swift
/// let deferred = TestRegistry.deferral(for: test)   // a time source made in `test`
/// TestRegistry.release(deferred)                     // it went away
/// ```
@available(TempoTestExecutor 1.0, *)
extension TestRegistry {
  /// The deferral of `test`'s executor, for a time source made in `test`, the current task,
  /// which has no executor: the one a source made there before holds, or a new one. Only `test`
  /// itself defers its executor, so no other thread makes one for it meanwhile.
  static func deferral(for test: TaskRef) -> DeferredTest {
    switch executorOrDeferral(for: test, consideringExecutor: false) {
    case .deferral(let deferral): deferral
    case .executor: preconditionFailure("test registry: an executor where none was asked for")
    }
  }

  /// What a time source made in `test`, the current task, joins: the open executor that has
  /// met `test` (whose lease the caller takes), else `test`'s deferral, shared or new. One look
  /// under the lock for all three, and one more to register a new deferral.
  ///
  /// (The lock is taken by hand, here and when a deferral is let go, rather than through
  /// `withLock`: a debug build calls its generic closure through a thunk, about 600
  /// instructions each time, and every time source made in a task comes here. Nothing between
  /// `lock()` and `unlock()` throws.)
  static func executorOrDeferral(
    for test: TaskRef, consideringExecutor: Bool = true
  ) -> ExecutorOrDeferral {
    var met: AnyObject?
    var deferred: AnyObject?
    box.lock.lock()
    if consideringExecutor { met = box.storage.state.member(at: test.address, id: test.id) }
    if met == nil {
      deferred = box.storage.state.deferral(at: test.address, id: test.id)
      if let deferred { unsafeDowncast(deferred, to: DeferredTest.self).scopes += 1 }
    }
    box.lock.unlock()
    if let executor = testExecutor(met) { return .executor(executor) }
    if let deferred { return .deferral(unsafeDowncast(deferred, to: DeferredTest.self)) }
    let made = DeferredTest(test: test)
    RuntimeHooks.prepare()
    box.lock.lock()
    RuntimeHooks.apply(box.storage.state.deferOpening(of: test, to: made))
    box.lock.unlock()
    return .deferral(made)
  }

  /// What ``executorOrDeferral(for:consideringExecutor:)`` found for a test's task.
  enum ExecutorOrDeferral {
    case executor(TestExecutor)
    case deferral(DeferredTest)
  }

  /// A scope lets go of `deferral`; the last one ends it (``DeferredTest/end()``).
  static func release(_ deferral: DeferredTest) {
    box.lock.lock()
    deferral.scopes -= 1
    let ends = deferral.scopes == 0
    if ends {
      RuntimeHooks.apply(box.storage.state.forgetDeferral(at: deferral.test.address, deferral))
    }
    box.lock.unlock()
    if ends { deferral.end() }
  }

  /// `deferral` has opened its executor, which has met the test's task: routing finds the
  /// executor from now on.
  static func forget(_ deferral: DeferredTest) {
    box.withLock { storage in
      let hooks = storage.state.forgetDeferral(at: deferral.test.address, deferral)
      RuntimeHooks.apply(hooks)
    }
  }

  /// The deferral of the current task's executor, if it is deferred.
  static func deferralOfCurrentTask() -> DeferredTest? {
    guard let current = TestExecutor.currentTaskPointer else { return nil }
    let task = TaskRef(current)
    let found = box.withLock { $0.state.deferral(at: task.address, id: task.id) }
    return found.map { unsafeDowncast($0, to: DeferredTest.self) }
  }

}
