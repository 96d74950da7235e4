@_spi(TempoInternals) package import TempoSupport

/// The test executor that a clock, scheduler or timeline uses when no `withTestExecutor` scope
/// is open: one opened for the task that created it, so that a test needs no wrapper.
///
/// A test clock created inside a task (a Swift Testing test, an async XCTest method) opens a
/// test executor for that task, or joins the one the task already has; the tasks that task
/// starts from then on belong to it. The executor closes when the last clock, scheduler or
/// timeline that holds it goes away.
///
/// A clock created outside any task (in an XCTest property or a synchronous `setUp`) cannot know
/// the test's task until its first async advance: the executor opens then, for the advancing
/// task, and tasks started before that advance are not seen. That advance reports a warning
/// once, with the fix.
package final class ImplicitScope: @unchecked Sendable {
  // Invariant: `lock` guards `executor` and `hasWarned`; the executor's lease is released after
  // unlocking (in `deinit`, nothing else can reach the scope). The lock may be the owning
  // timeline's: the scope is never called with it held.
  private let lock: Lock
  /// The executor this scope holds open (a `TestExecutor`; untyped for older systems).
  private var executor: AnyObject?
  private var hasWarned = false
  private let name: String

  /// Opens or joins the current task's executor, unless a `withTestExecutor` scope is open;
  /// guards its state with `lock` (a new one, or its owner's).
  package init(name: String, lock: Lock = Lock()) {
    self.name = name
    self.lock = lock
    if #available(TempoTestExecutor, *) {
      executor = Self.executorForCurrentTask()
    }
  }

  deinit {
    if #available(TempoTestExecutor, *),
      let executor = executor as? TestExecutor
    {
      executor.releaseLease()
    }
  }

  /// The executor an async advance of the owner waits on: the open `withTestExecutor` scope's,
  /// else this scope's, opened now for the advancing task if it has none (with a warning, at
  /// `location`, that earlier tasks were not seen). Nil where the runtime has no hooks.
  @available(TempoTestExecutor, *)
  package func executorForDriving(at location: SourceLocation) -> TestExecutor? {
    if let scoped = TestExecutor.current, scoped.isOpen { return scoped }
    let (executor, warn, replaced) = lock.withLock { () -> (TestExecutor?, Bool, AnyObject?) in
      if let held = self.executor as? TestExecutor, held.isOpen { return (held, false, nil) }
      guard TestExecutor.isSupported, let opened = Self.executorForCurrentTask() else {
        return (nil, false, nil)
      }
      let replaced = self.executor
      self.executor = opened
      defer { hasWarned = true }
      return (opened, !hasWarned, replaced)
    }
    // A closed executor this scope held is released after unlocking.
    withExtendedLifetime(replaced) {}
    if warn {
      location.report(
        """
        This \(name) was created outside a task, so its first async advance could not see the \
        tasks the test started before it, and may have run ahead of them. Create the \(name) \
        inside the test function, or run the test inside withTestExecutor { } or with the \
        .testExecutor trait (TempoTestSupport).
        """,
        asWarning: true
      )
    }
    return executor
  }

  /// The executor of the current task, opened if it has none; nil outside a task or inside a
  /// `withTestExecutor` scope.
  @available(TempoTestExecutor, *)
  private static func executorForCurrentTask() -> TestExecutor? {
    guard TestExecutor.isSupported, TestExecutor.currentTaskPointer != nil else { return nil }
    if let scoped = TestExecutor.current, scoped.isOpen { return nil }
    if let known = RuntimeHooks.executorThatMetCurrentTask(), known.retainLease() {
      return known
    }
    let opened = TestExecutor()
    _ = opened.retainLease()
    return opened
  }
}

extension ImplicitScope {
  /// The executor this scope holds, if open.
  @available(TempoTestExecutor, *)
  package var heldExecutor: TestExecutor? {
    lock.withLock { (executor as? TestExecutor).flatMap { $0.isOpen ? $0 : nil } }
  }
}
