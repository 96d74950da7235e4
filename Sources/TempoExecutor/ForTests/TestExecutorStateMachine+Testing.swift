// Members that only Tempo's own tests use: the events of TestExecutorStateMachine that
// production code takes in larger steps.

extension TestExecutorStateMachine {
  /// The running job has finished; returns the waiters it releases and who runs the queue next.
  /// (Production code finishes a job and takes the next in one step.)
  mutating func finishJob(
    byPump: Bool
  ) -> (released: [Release], wake: Wake) {
    defer { checkInvariants() }
    let released = finishRunning()
    // A pump carries on by itself; after a driver's job, make sure someone runs the rest.
    return (released, byPump ? .none : wakeIfNeeded())
  }
}
