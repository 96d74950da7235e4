/// Lets the work released by a resumed sleeper or a scheduled action run before a test clock or
/// test scheduler takes its next step.
///
/// This is the one place where async advancing decides how long to let other tasks run. Inside
/// a test executor (``TestExecutor``, opened by TempoTestSupport's `withTestExecutor`) it waits
/// for the test's work to go quiet, by construction. Outside one it falls back to a heuristic,
/// like the established libraries' "mega-yield", but one that follows the order in which
/// executors take work rather than task priorities: each round sends a probe through the global
/// executor and the main actor and waits for it to come back. Work that was already queued on
/// either runs before the probe gets through, so after the rounds, the work a resumption released
/// has had that many turns to run until it suspends again.
package enum Settling {
  /// How many probe rounds `settle` waits through.
  package static var rounds: Int { 20 }

  /// Waits for the test executor's work to go quiet, if the caller is in one; otherwise gives the
  /// work already queued on the global executor and the main actor its turns, after waiting
  /// until every task that `wakeUps` counts as woken has run again.
  package static func settle(_ wakeUps: WakeUps? = nil, at location: SourceLocation) async {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
      let executor = TestExecutor.current
    {
      await executor.settle(at: location)
      return
    }
    if let wakeUps {
      // A wait on a state, not a count: the woken tasks have been scheduled and have left their
      // sleep. Bounded, so that a task the runtime never schedules cannot hang the advance.
      var patience = 1_000_000
      while wakeUps.areOutstanding, patience > 0 {
        await Task.yield()
        patience -= 1
      }
    }
    for _ in 0..<rounds {
      await Task.detached {
        await MainActor.run {}
        await Task.yield()
      }.value
    }
  }
}

extension Settling {
  /// The loop of every drive, sync: runs the actions `takeNext` gives, at most `budget` of them,
  /// and answers how much of the budget is left.
  package static func run(budget: Int, _ takeNext: () -> (() -> Void)?) -> Int {
    var remaining = budget
    while remaining > 0, let action = takeNext() {
      action()
      remaining -= 1
    }
    return remaining
  }

  /// The loop of every drive, async: like ``run(budget:_:)``, and lets the work go quiet (see
  /// ``settle(_:at:)``) before the first action and after each.
  package static func run(
    budget: Int, wakeUps: WakeUps? = nil, at location: SourceLocation,
    _ takeNext: () -> (() -> Void)?
  ) async -> Int {
    // On a test executor the jobs an action releases run right after it, on this thread.
    let perform: (() -> Void) -> Void
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
      let executor = TestExecutor.current
    {
      perform = executor.runAndDrain
    } else {
      perform = { $0() }
    }
    var remaining = budget
    await settle(wakeUps, at: location)
    while remaining > 0, let action = takeNext() {
      perform(action)
      remaining -= 1
      await settle(wakeUps, at: location)
    }
    return remaining
  }

  /// Called when an async advance or check is done settling: on a test executor, the caller
  /// goes back to running there (see ``TestExecutor/rejoin()``).
  package static func rejoin() async {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
      let executor = TestExecutor.current
    {
      await executor.rejoin()
    }
  }
}

/// Counts the sleepers an advance woke that have not run again yet.
///
/// A test clock counts a wake-up before it resumes a sleeper, and the sleeper acknowledges it when
/// its task runs again; ``Settling/settle(_:at:)`` waits for the count to reach zero before its probe
/// rounds, so a woken task that the system was slow to schedule is not left behind.
package final class WakeUps: @unchecked Sendable {
  // Invariant: `lock` guards `count`.
  private let lock = Lock()
  private var count = 0
  private var outstandingSeen = 0

  package init() {}

  /// How many times a settle found a woken sleeper that had not run again yet, and so waited
  /// for it. Tests read it to see that a drive waits for the wake-ups it made.
  package var waits: Int { lock.withLock { outstandingSeen } }

  /// A sleeper is about to be resumed.
  package func willWake() { lock.withLock { count += 1 } }

  /// The sleeper turned out to be over already (cancelled): no acknowledgement will come.
  package func didNotWake() { lock.withLock { count -= 1 } }

  /// A woken sleeper's task runs again.
  package func acknowledge() { lock.withLock { count -= 1 } }

  /// Whether a woken sleeper has not run again yet.
  package var areOutstanding: Bool {
    lock.withLock {
      if count > 0 { outstandingSeen += 1 }
      return count > 0
    }
  }
}
