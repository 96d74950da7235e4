package import TempoCore
@_spi(TempoInternals) package import TempoSupport

/// The test executor that a clock, scheduler or timeline uses when no `withTestExecutor` scope
/// is open: one opened for the task that created it, so that a test needs no wrapper.
///
/// A test clock created inside a task (a Swift Testing test, an async XCTest method) joins the
/// test executor the task already has, or defers one for it (``DeferredTest``): it opens once
/// the test needs it, at the first job the task makes runnable or the first async verb, and
/// the tasks that task starts from then on belong to it. A test that only schedules and
/// advances synchronously never opens one. The executor closes when the last clock, scheduler
/// or timeline that holds it goes away.
///
/// A clock created outside any task (an XCTest property, a synchronous `setUp`) learns the
/// test's task at its first async advance. Until then it watches (``TaskLineage``): the jobs
/// that no executor takes are seen on their way, and who started whom is recorded. The advance
/// opens an executor for the advancing task that adopts every task it started, and waits for
/// their jobs still on their way, so the advance is exact. An advance from a task the executor
/// has not met (the next test, advancing a clock that outlives the previous one) does the same
/// for its own task.
package final class ImplicitScope: TestScope, @unchecked Sendable {
  // Invariant: `lock` guards `executor`, and `source`; nothing else is asked while it is held
  // (no executor, hook or lineage lock is taken under it), and the executor's lease is
  // released after unlocking (in `deinit`, nothing else can reach the scope). The lock may be
  // the owning timeline's: the scope is never called with it held.
  private let lock: Lock
  /// The executor this scope holds open (a `TestExecutor`; untyped for older systems).
  private var executor: AnyObject?
  /// The deferral of the executor of the task the scope was made in, when it had none (a
  /// `DeferredTest`, untyped for older systems; set once, in `init`).
  private let deferred: AnyObject?
  /// Whether the scope was made outside any task, and watches for the tasks of its test.
  private let isWatching: Bool
  /// How many tasks the lineage had seen when the scope began to watch (``TaskLineage``).
  private let watchedSince: Int
  /// The timeline that owns the scope, whose pending work the executor lists when the test
  /// ends (see ``register(_:)``).
  private weak var source: (any LeftoverWorkSource)?

  /// Opens or joins the current task's executor, unless a `withTestExecutor` scope is open;
  /// outside any task, starts watching for the test's tasks. Guards its state with `lock` (a
  /// new one, or its owner's).
  package init(lock: Lock = Lock()) {
    self.lock = lock
    if #available(TempoTestExecutor 1.0, *), TestExecutor.isSupported {
      let outsideAnyTask = TestExecutor.currentTaskPointer == nil
      isWatching = outsideAnyTask
      if outsideAnyTask {
        watchedSince = TestRegistry.watch()
        deferred = nil
      } else {
        watchedSince = 0
        (executor, deferred) = Self.executorForCurrentTask()
      }
    } else {
      isWatching = false
      watchedSince = 0
      deferred = nil
    }
  }

  deinit {
    if #available(TempoTestExecutor 1.0, *) {
      (executor as? TestExecutor)?.releaseLease()
      if let deferred = deferred as? DeferredTest { TestRegistry.release(deferred) }
      if isWatching { TestRegistry.unwatch() }
    }
  }

  /// Makes `source`, the timeline that owns the scope, one of the test's time sources: the
  /// open `withTestExecutor` scope's, and every executor this scope holds, list its pending
  /// work when the test ends. Called once, when the owner is made.
  package func register(_ source: any LeftoverWorkSource) {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let held = lock.withLock {
      self.source = source
      return executor as? TestExecutor
    }
    if let scoped = TestExecutor.openScope {
      scoped.leftovers.add(source)
    } else {
      // No scope will see the test end: the end of an XCTest test will, if XCTest observes.
      XCTestEnds.watch(source)
    }
    held?.leftovers.add(source)
    (deferred as? DeferredTest)?.add(source)
  }

  /// The executor an async advance of the owner, or its auto-advance driver, waits on: the
  /// open `withTestExecutor` scope's, else this scope's. For a scope made outside any task, one
  /// that adopts the tasks started by the advancing task, or for auto-advance by the test's
  /// task, which the first task to sleep may descend from (``TestRegistry/testTask(of:clockMade:)``).
  /// Nil where the runtime has no hooks.
  ///
  /// - Parameter forAutoAdvance: Whether a driver of auto-advance will wait, not the current
  ///   task: the test's task's own jobs in flight are then the test's work too.
  @available(TempoTestExecutor 1.0, *)
  package func executorForDriving(
    at location: SourceLocation, forAutoAdvance: Bool = false
  ) -> TestExecutor? {
    if let scoped = TestExecutor.openScope { return scoped }
    // The executor of the task the scope was made in, deferred until now: it holds it open for
    // as long as the scope lives.
    if let deferred = deferred as? DeferredTest, let opened = deferred.open() { return opened }
    // Decided with no lock held: the scope's lock may be its timeline's, and what the decision
    // asks (the hooks, the lineage, an executor) takes locks of its own (ARCHITECTURE.md,
    // rule 6). The scope's lock only reads the executor it holds, and installs a new one if it
    // still holds the one the decision started from; else another advance replaced it
    // meanwhile, and the decision is made again.
    while true {
      let held = lock.withLock { self.executor as? TestExecutor }
      if let held, held.isOpen, !isWatching || TestRegistry.executorThatMetCurrentTask() === held {
        return held
      }
      guard let current = TestExecutor.currentTaskPointer.map(TaskRef.init) else { return nil }
      let test =
        isWatching && forAutoAdvance
        ? TestRegistry.testTask(of: current, clockMade: watchedSince) : current
      if let held, held.isOpen, held.root == test {
        // The test's executor already: the current task is one it has not adopted yet.
        TestRegistry.adopt(descendantsOf: test, by: held)
        return held
      }
      guard let opened = Self.executor(forTestTask: test) else { return nil }
      if isWatching {
        TestRegistry.adopt(descendantsOf: test, by: opened, countingRoot: forAutoAdvance)
      }
      let (installed, source) = lock.withLock { () -> (Bool, (any LeftoverWorkSource)?) in
        guard self.executor === held else { return (false, nil) }
        self.executor = opened
        return (true, self.source)
      }
      guard installed else {
        opened.releaseLease()
        continue
      }
      // A newly held executor lists the owner's pending work when its test ends.
      if let source { opened.leftovers.add(source) }
      // The lease on the executor this scope held (closed, or the previous test's) goes last.
      held?.releaseLease()
      return opened
    }
  }

  /// The executor the current task has, with a lease for this scope, or else the deferral of
  /// one (``DeferredTest``); neither outside a task or inside a `withTestExecutor` scope.
  ///
  /// Opened at once, as before deferrals, where the deferral could not stand for it: for an
  /// `async let` child, which cannot be kept, or a task whose job another executor runs.
  @available(TempoTestExecutor 1.0, *)
  private static func executorForCurrentTask() -> (TestExecutor?, DeferredTest?) {
    guard let current = TestExecutor.currentTaskPointer, TestExecutor.isSupported,
      TestExecutor.openScope == nil
    else { return (nil, nil) }
    let test = TaskRef(current)
    guard !JobIdentity.isAsyncLetChild(current), RunningJob.executor == nil else {
      return (executor(forTestTask: test), nil)
    }
    switch TestRegistry.executorOrDeferral(for: test) {
    case .executor(let known) where known.retainLease(): return (known, nil)
    case .executor: return (nil, TestRegistry.deferral(for: test))
    case .deferral(let deferral): return (nil, deferral)
    }
  }

  /// The executor of `test`, the current task or one it descends from, opened if it has none,
  /// with a lease for this scope; nil inside a `withTestExecutor` scope.
  @available(TempoTestExecutor 1.0, *)
  private static func executor(forTestTask test: TaskRef) -> TestExecutor? {
    guard TestExecutor.isSupported else { return nil }
    if TestExecutor.openScope != nil { return nil }
    if let known = TestRegistry.executorThatMet(test), known.retainLease() {
      return known
    }
    let opened = TestExecutor(forClockOf: test)
    _ = opened.retainLease()
    return opened
  }
}

extension ImplicitScope {
  /// The executor this scope holds, if open.
  @available(TempoTestExecutor 1.0, *)
  package var heldExecutor: TestExecutor? {
    var held = lock.withLock { executor as? TestExecutor }
    if held == nil, let deferred = deferred as? DeferredTest { held = deferred.opened }
    return held.flatMap { $0.isOpen ? $0 : nil }
  }

  // MARK: TestScope

  package func quiescence(at location: SourceLocation, forAutoAdvance: Bool) -> (any Quiescence)? {
    guard #available(TempoTestExecutor 1.0, *) else { return nil }
    return executorForDriving(at: location, forAutoAdvance: forAutoAdvance)
  }

  package var quiescenceToRejoin: (any Quiescence)? {
    guard #available(TempoTestExecutor 1.0, *) else { return nil }
    if let scoped = TestExecutor.openScope { return scoped }
    return heldExecutor
  }

  package var mayWatchPendingWork: Bool {
    // Outside any task no test can be followed: the source asks again at its next work.
    guard #available(TempoTestExecutor 1.0, *) else { return false }
    return TestExecutor.currentTaskPointer != nil
  }

  package func watchPendingWork(of source: any WatchedWorkSource) {
    guard #available(TempoTestExecutor 1.0, *), TestExecutor.isSupported else {
      return source.watchStarted()
    }
    HangWatch.shared.watchPendingWork(of: source, deferred: deferred as? DeferredTest)
  }

  package func pendingWorkSourceEnded(_ source: ObjectIdentifier) {
    guard #available(TempoTestExecutor 1.0, *), TestExecutor.isSupported else { return }
    HangWatch.shared.sourceEnded(source)
  }

  package func startDriver(
    at location: SourceLocation, probesOnly: Bool, _ drive: @escaping @Sendable () async -> Void
  ) {
    // As an advance from this context would: the scope's, else the one this timeline holds for
    // the current task's test (opened and adopting its tasks, for a clock made outside any
    // task).
    var executor: AnyObject?
    if #available(TempoTestExecutor 1.0, *), !probesOnly {
      executor = executorForDriving(at: location, forAutoAdvance: true)
    }
    // Invariant: a TestExecutor is Sendable; untyped only for older systems.
    let bound = UncheckedSendable(executor)
    // A task that inherits the context (the test's, so that a runaway is reported to it), but
    // is not counted among the test's tasks for the leftover-work check.
    TaskCensus.$token.withValue(nil) {
      Task {
        if #available(TempoTestExecutor 1.0, *), let executor = bound.value as? TestExecutor {
          // Bound for the driver as a scope's is.
          await TestExecutor.withCurrent(executor) { await drive() }
        } else {
          await drive()
        }
      }
    }
  }
}
