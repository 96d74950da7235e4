import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

// What the hang watch (TempoCore's `HangWatch`) asks of a test: whose a sleep is, whether the
// test's work is quiet, and whether the test said it waits on work outside its sight.

/// Whose a sleep on a test clock is, as the hang watch sees it: a sleep that can hold up a
/// test for good.
@available(TempoTestExecutor 1.0, *)
package enum SleeperRole: Sendable {
  /// A sleep of the task that runs the body of a `withTestExecutor` scope or `.testExecutor`
  /// test, while the body runs: the report points at the scope.
  case scoped(TestExecutor)
  /// A sleep of another task of a scope (a `Task {}` or child task the body started), while
  /// the body runs. It holds the test up only while the body's own task waits too: neither
  /// running nor queued (``TestActivity/testTaskIsWaiting``), so that a body busy with work
  /// the executor cannot see never makes the test look blocked. The report points at the scope.
  case scopeMember(TestExecutor)
  /// A sleep of the test's own task (the task a clock opened its executor for, or, before any
  /// executor, a task the test runner started from a thread): while it sleeps the test cannot
  /// end. The executor, if the task has one, tells whether the rest of the test is quiet.
  case testTask(TestExecutor?)
  /// A sleep of another task of the test a clock opened its executor for, with no scope (a
  /// `Task {}` or child task the test started): it holds the test up only while the test's own
  /// task is alive and waits too, neither running, queued nor ended (``TestActivity``). Once
  /// the test's task has ended, the sleep is work the test left behind, never a hang of a
  /// later test.
  case testMember(TestExecutor)
  /// A sleep of another task of a test whose clock was made outside any task, before any
  /// executor opened for that test (a task an XCTest method started, awaited before the
  /// property clock's first advance): the test's own task, a task the test runner started
  /// from a thread, is known from the lineage and kept. The sleep holds the test up only while
  /// that task is alive and waits for its tasks (a task's value, a group), as for
  /// ``testMember(_:)``; with no executor, nothing tells whether other work of the test runs.
  case lineageMember(HeldTask)

  /// The executor that tells whether the test is quiet, if any.
  package var executor: TestExecutor? {
    switch self {
    case .scoped(let executor), .scopeMember(let executor): executor
    case .testTask(let executor): executor
    case .testMember(let executor): executor
    case .lineageMember: nil
    }
  }

  /// The executor of the scope whose sleep this is, if it is a scope's: the report points at
  /// the scope.
  package var scopeExecutor: TestExecutor? {
    switch self {
    case .scoped(let executor), .scopeMember(let executor): executor
    case .testTask, .testMember, .lineageMember: nil
    }
  }
}

/// A task kept alive by a retain, released when this goes away, so that its status can be
/// read at any time meanwhile.
@available(TempoTestExecutor 1.0, *)
package final class HeldTask: @unchecked Sendable {
  // Invariant: `task` holds one retain, taken by whoever made this, released once in `deinit`;
  // nothing but the status reads below reach the task through it.
  private let task: UnsafeRawPointer

  /// Takes over one retain of `task`.
  init(retained task: UnsafeRawPointer) {
    self.task = task
  }

  deinit { tempo_task_release(task) }

  /// Takes a retain of `task`, the running task or one kept alive otherwise, unless it is a
  /// child of `async let`, whose memory is its parent's (a retain does not keep it); answers
  /// the task if kept.
  static func keep(_ task: UnsafeRawPointer) -> UnsafeRawPointer? {
    guard !JobIdentity.isAsyncLetChild(task) else { return nil }
    tempo_task_retain(task)
    return task
  }

  /// Keeps `task` as ``keep(_:)`` does, in a `HeldTask`.
  static func keeping(_ task: UnsafeRawPointer) -> HeldTask? {
    keep(task).map(HeldTask.init(retained:))
  }

  /// What the hang watch reads of a test with no executor: the task is alive, and waits for
  /// its tasks (``TestExecutor/awaitsItsTasks(_:)``).
  var activity: TestActivity {
    TestActivity(
      accepted: 0, isQuiet: true, waitsOnOutsideWork: false,
      isRunningTest: !tempo_task_is_complete(task),
      testTaskIsWaiting: TestExecutor.awaitsItsTasks(task))
  }

  /// Whether the task is suspended, waiting on anything but a thread (``isWaiting(_:)``).
  var isWaiting: Bool { Self.isWaiting(task) }

  /// Whether `task`, kept alive, is suspended, waiting on anything but a thread: neither
  /// running, queued, parked in a yield, nor ended.
  static func isWaiting(_ task: UnsafeRawPointer) -> Bool {
    !tempo_task_is_runnable(task) && !TestExecutor.isParkedInYield(task)
      && !tempo_task_is_complete(task)
  }

  /// Another retain of the task, for whoever takes it over.
  var retained: UnsafeRawPointer {
    tempo_task_retain(task)
    return task
  }

  /// Cancels the task, as `Task.cancel()` does: its cancellation handlers run on this thread.
  func cancel() { tempo_task_cancel(task) }
}

/// What the hang watch reads of a test's executor at each look.
package struct TestActivity: Equatable, Sendable {
  /// Jobs accepted so far: any change means the test's work moved.
  package var accepted: Int
  /// Nothing of the test is queued or running, and no advance is under way (an advancing
  /// task's own jobs run outside the executor, unseen: it may be waiting for a thread).
  package var isQuiet: Bool
  /// The test said work outside its sight is in flight (`withOutsideWork`), or a task of the
  /// test is in a sleep that Tempo sent to real time, which passes by itself.
  package var waitsOnOutsideWork: Bool
  /// The executor is open, and the body of its scope (if it has one) still runs.
  package var isRunningTest: Bool
  /// The task that runs the body of the executor's scope, or the test's own task a clock opened
  /// the executor for, is suspended, waiting: neither running nor queued. True when neither is
  /// known (an executor of a task started outside any task), or once the scope's body ended.
  package var testTaskIsWaiting: Bool
  /// The test's own task, for an executor a clock opened (no scope), is suspended waiting for
  /// another task's value or a task group: what a sleep of a task it started needs to hold the
  /// test up (``SleeperRole/testMember(_:)``). False when not known.
  package var testTaskAwaitsItsTasks: Bool

  package init(
    accepted: Int, isQuiet: Bool, waitsOnOutsideWork: Bool, isRunningTest: Bool,
    testTaskIsWaiting: Bool = true, testTaskAwaitsItsTasks: Bool = false
  ) {
    self.testTaskAwaitsItsTasks = testTaskAwaitsItsTasks
    self.accepted = accepted
    self.isQuiet = isQuiet
    self.waitsOnOutsideWork = waitsOnOutsideWork
    self.isRunningTest = isRunningTest
    self.testTaskIsWaiting = testTaskIsWaiting
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// The role of a sleep the current task starts now; nil if it cannot hold up a test for good
  /// (a task the test left running, which may outlive it).
  package static func roleOfCurrentSleeper() -> SleeperRole? {
    guard let task = currentTaskPointer else { return nil }
    if let scoped = current, scoped.scope != nil {
      guard scoped.isRunningTest else { return nil }
      return scoped.root == TaskRef(task) ? .scoped(scoped) : .scopeMember(scoped)
    }
    if let executor = TestRegistry.executorForCurrentContext() {
      if executor.root == TaskRef(task) { return .testTask(executor) }
      // The test's own task is known alive only while it is kept to be read.
      return executor.heldOpener != nil && executor.isRunningTest ? .testMember(executor) : nil
    }
    if TestRegistry.currentTaskIsStartedOutsideAnyTask() { return .testTask(nil) }
    return TestRegistry.retainTestTaskOfCurrentTask().map { .lineageMember(HeldTask(retained: $0)) }
  }

  /// The test's own task for a task whose role is `role`, with a retain for the caller: the
  /// task that runs the scope's body, or the test's task a clock opened the executor for, or
  /// the task the test runner started. Nil once the body has ended, or if the task cannot be
  /// kept (a child of `async let`). Call from the task `role` is of.
  static func keepTestTask(of role: SleeperRole) -> UnsafeRawPointer? {
    switch role {
    case .scoped, .testTask:
      return currentTaskPointer.flatMap(HeldTask.keep)
    case .scopeMember(let executor):
      // The body's task is alive while its body runs (see `activity`), so it is kept under
      // the lock that `bodyEnded()` takes.
      return executor.lock.withLock {
        executor.bodyHasEnded ? nil : executor.root.flatMap { HeldTask.keep($0.address) }
      }
    case .testMember(let executor):
      return executor.heldOpener.flatMap(HeldTask.keep)
    case .lineageMember(let test):
      return test.retained
    }
  }

  /// The executor is open, the body of its scope (if it has one) still runs, and the test's
  /// own task (for one a clock opened, kept to be read) has not ended: what a sleep asks when
  /// it starts, without the rest of ``activity``.
  var isRunningTest: Bool {
    var testTaskEnded = false
    if let heldOpener { testTaskEnded = tempo_task_is_complete(heldOpener) }
    return !testTaskEnded && lock.withLock { !state.isClosed && !bodyHasEnded }
  }

  /// Whether `task`, kept alive, is suspended on a task's value or a task group: waiting for
  /// the test's own tasks. Not on a continuation, which a task that yielded and waits for a
  /// thread is suspended on too.
  static func awaitsItsTasks(_ task: UnsafeRawPointer) -> Bool {
    !tempo_task_is_runnable(task) && tempo_task_awaits_task_or_group(task)
  }

  /// What the hang watch reads at each look.
  package var activity: TestActivity {
    lookWhetherOpenerSuspended()
    // The test's own task, for an executor a clock opened: kept alive, so read at any time.
    let opener = heldOpener.map {
      (ended: tempo_task_is_complete($0), waits: Self.awaitsItsTasks($0))
    }
    return lock.withLock {
      let isRunningTest = !state.isClosed && !bodyHasEnded && opener?.ended != true
      // The body's task is alive while its body runs: it ends the body (`bodyEnded()`, which
      // takes this lock) before it can end, so its status is read under the lock.
      let testTaskIsWaiting =
        if isRunningTest, scope != nil, let root {
          !tempo_task_is_runnable(root.address)
        } else {
          true
        }
      return TestActivity(
        accepted: state.accepted, isQuiet: state.isQuiet && !state.hasDrivers,
        waitsOnOutsideWork: state.outsideWork > 0 || systemSleeps.waitsInRealTime,
        isRunningTest: isRunningTest,
        testTaskIsWaiting: testTaskIsWaiting, testTaskAwaitsItsTasks: opener?.waits ?? false)
    }
  }

  /// The body of the scope that opened the executor has returned: its sleepers no longer hold
  /// the test up (those left are leftover work).
  package func bodyEnded() {
    lock.withLock { bodyHasEnded = true }
  }

  /// The test says work outside its sight is in flight.
  package func beginOutsideWork() {
    lock.withLock { state.beginOutsideWork() }
  }

  /// That work is over.
  package func endOutsideWork() {
    resume(lock.withLock { state.endOutsideWork() })
  }
}
