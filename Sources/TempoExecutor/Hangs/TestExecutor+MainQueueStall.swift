@_spi(TempoInternals) import TempoSupport

/// The main-queue stall watch's side of an executor: what the hang watch reads while a task
/// waits for quiet in a `@MainActor` test, and what a stall changes.
///
/// ```swift
/// if executor.isMainQueueStalled { /* its jobs are pumped on a thread of their own */ }
/// ```
@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Whether the main queue, where this executor's pumps run, is stalled (see
  /// ``mainQueueStalled(since:)``).
  var isMainQueueStalled: Bool { lock.withLock { state.isMainQueueStalled } }

  /// What the hang watch reads at each look, while a task waits for quiet. (Whether the main
  /// queue's thread could run is the watch's to read, once a look: not here, which a wait reads
  /// too, as the watch begins.)
  var mainQueueObservation: MainQueueObservation {
    lock.withLock {
      let pumps = state.mainQueuePumpBlocks
      return MainQueueObservation(
        isWaitedFor: state.hasWaiters, pumpBlocksQueued: pumps.queued,
        pumpBlocksStarted: pumps.started, blocksStartedByAnyTest: MainQueueActivity.blocksStarted,
        isBehindAnotherTest: MainQueueActivity.runsWork(ofAnotherTestThan: self))
    }
  }

  /// The hang watch found a pump block of this executor waiting on the main queue, and none
  /// started since the `started`-th, for about a second, while a task waited for quiet: the
  /// main queue is not drained. The waiting tasks stop waiting, the first of them to report it
  /// (``settleAgain(at:respectingOutsideWork:)``), and go on off the main queue. Until a pump
  /// block starts there again, a wait for quiet answers at once, and the test's jobs are pumped
  /// on a thread of their own.
  func mainQueueStalled(since started: Int) {
    let (released, wake) = lock.withLock { state.mainQueueStalled(since: started) }
    resume(released)
    start(wake)
  }

  /// How many looks of the hang watch a pump block may wait on the main queue, none starting,
  /// before the queue is taken as stalled; nil for the watch's own (four: about a second). A
  /// task-local, read as the advance waits, so that Tempo's own tests that stall the main queue
  /// on purpose stall it briefly: the main queue is the whole process's, and the tests beside
  /// must not be held up for as long as they would be reported after.
  @TaskLocal static var mainQueueLooksToFire: Int?

  /// What a stalled main queue reports, at the line of the advance that waited.
  static var mainQueueStalledMessage: String {
    """
    This advance waited for the test's work to go quiet, but the main queue, where that work \
    runs in a @MainActor test, did not run for a second or more: a block Tempo queued there to \
    run the test's jobs did not start. Something keeps the main thread from draining the main \
    queue: a nested run loop (`RunLoop.run`, or XCTest's `wait(for:)` or \
    `waitForExpectations` in an async test, where `await fulfillment(of:)` does not block), \
    a blocked main thread (a semaphore, a lock, `DispatchGroup.wait`, a synchronous wait for \
    async work), or `DispatchQueue.main.sync` from a job that the main thread waits for. The \
    advance went on without waiting for that work: until the main queue moves again, the \
    test's jobs run on a thread of their own, and its main-actor jobs wait for the main thread.
    """
  }
}
