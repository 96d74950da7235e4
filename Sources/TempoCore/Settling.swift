/// Lets the work released by a resumed sleeper or a scheduled action run before a test clock or
/// test scheduler takes its next step.
///
/// This is the one place where async advancing decides how long to let other tasks run. For now
/// it does what the established libraries do: it lets a number of low-priority tasks run to the
/// end, one after the other, so that the tasks that higher-priority work made runnable get their
/// turn first. That is a heuristic; a deterministic replacement that waits for quiescence by
/// construction is planned, and will change only this file.
package enum Settling {
  /// How many low-priority turns `settle` waits through.
  package static var turns: Int { 20 }

  /// Gives other tasks a chance to run until they suspend.
  package static func settle() async {
    for _ in 0..<turns {
      await Task.detached(priority: .background) { await Task.yield() }.value
    }
  }
}

/// A value that is sent across isolation domains under an invariant its user states.
package struct UncheckedSendable<Value>: @unchecked Sendable {
  package var value: Value
  package init(_ value: Value) { self.value = value }
}
