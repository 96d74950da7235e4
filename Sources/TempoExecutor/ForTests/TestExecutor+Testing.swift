@_spi(TempoInternals) import TempoSupport

// Members that only Tempo's own tests use.

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Whether a test executor's runtime hooks are installed now.
  package static var hooksAreInstalled: Bool { TestRegistry.hooksAreInstalled }

  /// Whether the job the current task runs records when it began, for the window in which a
  /// system sleep's clock was read (``SystemSleep``).
  package static var currentJobRecordsItsStart: Bool {
    currentTaskPointer.flatMap(RunningJob.startOfJob(of:)) != nil
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Whether a backstop is armed, or has fired and its pump has not started: it runs the queue
  /// on a thread of its own, whoever then waits.
  var isBackstopPending: Bool { lock.withLock { state.isBackstopPending } }

  /// How many jobs the executor has accepted, here or for the main queue.
  var jobsAccepted: Int { lock.withLock { state.accepted } }

  /// How many jobs have gone through the executor's queue (not counting those that went on in
  /// the job that enqueued them, or ran on the main queue).
  var jobsQueued: Int { lock.withLock { state.jobsQueued } }

  /// How many pump blocks the executor has queued on the main queue so far.
  var mainQueuePumpBlocksQueued: Int {
    lock.withLock { state.mainQueuePumpBlocks.queued + state.mainQueuePumpBlocks.started }
  }
}
