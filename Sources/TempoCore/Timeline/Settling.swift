@_spi(TempoInternals) package import TempoSupport

/// Lets the work released by a resumed sleeper or a scheduled action run before a test clock or
/// test scheduler takes its next step.
///
/// This is the one place where async advancing decides how long to let other tasks run. Where
/// the runtime lets Tempo see jobs, it waits for the test's work to go quiet on a test executor,
/// which the timeline's ``TestScope`` answers (``Quiescence``): the one of a `withTestExecutor`
/// scope, else the one the clock or scheduler opened for its test. Only on a runtime without
/// the hooks does it fall back to a heuristic, like the established libraries' "mega-yield",
/// but one that follows the order in which executors take work rather than task priorities:
/// each round sends a probe through the global executor and the main actor and waits for it to
/// come back.
package enum Settling {
  /// Makes the current task settle by the heuristic, as on a runtime without executor hooks
  /// (for Tempo's own tests of that path).
  @TaskLocal package static var usesProbesOnly = false

  /// How many probe rounds the heuristic waits through.
  package static var rounds: Int { 20 }

  /// Waits for the test's work to go quiet (see ``Settling``), on the caller's actor.
  package static func settle(
    _ wakeUps: WakeUps? = nil, scope: any TestScope, isolation: isolated (any Actor)? = #isolation,
    at location: SourceLocation
  ) async {
    if let quiescence = quiescence(scope, at: location) {
      await quiescence.settle(in: isolation, at: location, respectingOutsideWork: false)
      return
    }
    await settleByProbes(wakeUps)
  }

  /// Lets the work already queued run by the heuristic, where no test executor sees the
  /// test's jobs (the end of an XCTest test whose clocks opened none).
  package static func settleWithoutAnExecutor() async {
    await settleByProbes(nil)
  }

  /// The heuristic, for runtimes without the hooks: gives the work already queued on the global
  /// executor and the main actor its turns, after waiting until every task that `wakeUps`
  /// counts as woken has run again.
  private static func settleByProbes(_ wakeUps: WakeUps?) async {
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

  /// What a drive waits on for quiet; nil to settle by probes.
  private static func quiescence(
    _ scope: any TestScope, at location: SourceLocation
  ) -> (any Quiescence)? {
    usesProbesOnly ? nil : scope.quiescence(at: location, forAutoAdvance: false)
  }
}

extension Settling {
  /// The loop of every async drive: performs the actions `takeNext` gives until it gives none
  /// (a drive's budget is its own: `takeNext` answers nil once it is spent), and lets the work
  /// go quiet (see ``settle(_:scope:at:)``) before the first action and after each. (The
  /// synchronous loop is written out in the drive itself; see `Drive.swift`.)
  ///
  /// - Parameter respectingOutsideWork: Whether quiet also waits for the outside work the test
  ///   declared: true for auto-advance's driver only.
  package static func perform(
    wakeUps: WakeUps? = nil, scope: any TestScope, respectingOutsideWork: Bool = false,
    isolation: isolated (any Actor)? = #isolation, at location: SourceLocation,
    _ takeNext: () -> (() -> Void)?
  ) async {
    if let quiescence = quiescence(scope, at: location) {
      // The jobs an action releases run right after it, on this thread.
      await quiescence.settle(
        in: isolation, at: location, respectingOutsideWork: respectingOutsideWork)
      while let action = takeNext() {
        quiescence.runAndDrain(action)
        await quiescence.settleAgain(
          in: isolation, at: location, respectingOutsideWork: respectingOutsideWork)
      }
      return
    }
    await settleByProbes(wakeUps)
    while let action = takeNext() {
      action()
      await settleByProbes(wakeUps)
    }
  }

  /// Called when an async advance or check is done settling: on a test executor, the caller
  /// goes back to running there (see ``Quiescence/rejoin(isolation:)``), on its own actor.
  package static func rejoin(
    scope: any TestScope, isolation: isolated (any Actor)? = #isolation
  ) async {
    guard !usesProbesOnly else { return }
    await scope.quiescenceToRejoin?.rejoin(isolation: isolation)
  }
}
