/// Lets the work released by a resumed sleeper or a scheduled action run before a test clock or
/// test scheduler takes its next step.
///
/// This is the one place where async advancing decides how long to let other tasks run. For now
/// it is a heuristic, like the established libraries' "mega-yield", but one that follows the
/// order in which executors take work rather than task priorities: each round sends a probe
/// through the global executor and the main actor and waits for it to come back. Work that was
/// already queued on either runs before the probe gets through, so after the rounds, the work a
/// resumption released has had that many turns to run until it suspends again. A deterministic
/// replacement that waits for quiescence by construction is planned, and will change only this
/// type.
package enum Settling {
  /// How many probe rounds `settle` waits through.
  package static var rounds: Int { 20 }

  /// Gives the work already queued on the global executor and the main actor its turns.
  package static func settle() async {
    for _ in 0..<rounds {
      await Task.detached {
        await MainActor.run {}
        await Task.yield()
      }.value
    }
  }
}

/// A value that is sent across isolation domains under an invariant its user states.
package struct UncheckedSendable<Value>: @unchecked Sendable {
  package var value: Value
  package init(_ value: Value) { self.value = value }
}
