package import TempoCore
@_spi(TempoInternals) package import TempoSupport

// What a test leaves behind when it ends: the end of a `withTestExecutor` scope (or a
// `.testExecutor` test) and `expectNoLeftoverWork()` ask here.

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Ends the test's background work and describes the work the test leaves behind, or answers
  /// nil if it leaves none.
  ///
  /// In order: the work already started goes quiet (it may end by itself); each background
  /// task is cancelled, and the work goes quiet again, so that a background task that ends when
  /// cancelled has ended (cancel and join); then every time source of the test is asked for its
  /// pending work. At the end of the test (`endingSleeps`), each sleep still pending is then
  /// ended and the work goes quiet once more (``endSleeps(of:at:isolation:)``). A task still
  /// running after that is named, not waited for: waiting for a task that ignores cancellation
  /// would hang the test.
  ///
  /// - Parameters:
  ///   - tasksAreRunning: Whether a task started in the test has not completed, when that is
  ///     known (a ``TaskCensus``), asked once everything else is done.
  ///   - endingSleeps: Whether the test ends here, and its sleeps end with it; false for a
  ///     check in the middle of a test.
  package func leftoverWork(
    tasksAreRunning: () -> Bool, endingSleeps: Bool, at location: SourceLocation,
    isolation: isolated (any Actor)? = #isolation
  ) async -> String? {
    let stuck = await endBackgroundWork(at: location)
    // The sources are read once, for the listing and for the sleeps to end.
    let sources = leftovers.liveSources
    let pending = Leftovers.pendingWork(of: sources)
    // A source with a sleep pending lists it: with nothing listed, there is nothing to end.
    let unfinished =
      endingSleeps && !pending.isEmpty ? await endSleeps(of: sources, at: location) : []
    let running = pending.isEmpty && tasksAreRunning()
    guard !pending.isEmpty || running || !stuck.isEmpty else { return nil }
    return LeftoverMessage.compose(
      pending: pending, tasksAreRunning: running, stuck: stuck, unfinished: unfinished)
  }

  /// Ends every sleep still pending on `sources` (see ``EndedSleeps``): each throws into its
  /// task, which is cancelled; then the test's work goes quiet, so that what those tasks do on
  /// their way out runs in this test. Answers the sleeps whose task has not finished, one
  /// description each.
  package func endSleeps(
    of sources: [any LeftoverWorkSource], at location: SourceLocation,
    isolation: isolated (any Actor)? = #isolation
  ) async -> [String] {
    guard let ended = EndedSleeps.end(of: sources) else { return [] }
    await waitForQuiet(at: location)
    return ended.unfinished()
  }

  /// Waits, where the caller is, for the test's work to go quiet, then stops driving (see
  /// ``endBackgroundWork(at:isolation:)``).
  package func waitForQuiet(
    at location: SourceLocation, isolation: isolated (any Actor)? = #isolation
  ) async {
    await settle(in: isolation, at: location)
    if let task = Self.currentTaskPointer { lock.withLock { state.endDriving(task) } }
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Lets the test's work go quiet, cancels each background task and lets the work go quiet
  /// again (cancel and join); answers the background work that did not end when cancelled.
  ///
  /// The current task stops waiting for quiet where it is, without going back onto the
  /// executor as ``rejoin()`` would: the test's work has ended, and no task of it waits any
  /// more for an actor this one lets go of. (A hop there and back cost a job and a pump block
  /// at the end of every test.)
  ///
  /// It waits where the caller is, on `isolation`: the end of a scope on the main actor waits
  /// in its main-actor job.
  package func endBackgroundWork(
    at location: SourceLocation, isolation: isolated (any Actor)? = #isolation
  ) async -> [BackgroundWork] {
    await settle(in: isolation, at: location)
    let background = leftovers.takeBackground()
    if !background.isEmpty {
      for work in background { work.cancel() }
      await settleAgain(in: isolation, at: location)
    }
    if let task = Self.currentTaskPointer { lock.withLock { state.endDriving(task) } }
    // Most tests start none: no generic `filter` then.
    guard !background.isEmpty else { return [] }
    return background.filter { !$0.hasEnded }
  }
}

/// The words of the leftover-work report.
package enum LeftoverMessage {
  package static func compose(
    pending: [String], tasksAreRunning: Bool, stuck: [BackgroundWork], unfinished: [String] = []
  ) -> String {
    var lines = ["The test ended with work left over:"]
    lines += pending
    if tasksAreRunning {
      lines.append(
        "A task started in the test has not finished: it waits on something other than a test "
          + "clock or scheduler (a stream, a continuation, another task, or work outside the "
          + "test).")
    }
    for work in stuck {
      lines.append(
        "The background task started at \(work.location.fileID):\(work.location.line) did not "
          + "end when it was cancelled, so the test could not wait for it.")
    }
    for sleep in unfinished {
      lines.append(
        "The task of the sleep \(sleep) was cancelled as the test ended and did not finish: it "
          + "ignores cancellation, or waits on something else. It was not waited for.")
    }
    lines.append(
      "At the end of a test, each sleep left over throws CancellationError and its task is "
        + "cancelled; actions left over never run. Cancel such work before the test ends, "
        + "advance its clock or scheduler (or run() it), or start work that may outlive the "
        + "test with backgroundTask { }, which the end of the test cancels and waits for.")
    return lines.joined(separator: "\n")
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Whether a task of the test that this executor keeps, other than the test's own and
  /// `asking`, has not ended (see ``YieldedTasks/hasUnfinished(skipping:)``): asked at the end
  /// of an XCTest test, once its work is quiet, where no task-local census follows the test's
  /// tasks. Those started before a property clock's first advance are among them (the lineage
  /// kept them for the executor that adopted them); tasks no retain can keep (`async let`
  /// children, whose scope ends with their parent's) are not counted. (The statuses are read
  /// under the lock, which keeps the tasks retained.)
  package func hasUnfinishedTasks(besides asking: UnsafeRawPointer?) -> Bool {
    lock.withLock { yieldedTasks.hasUnfinished(skipping: [root?.address, asking]) }
  }
}
