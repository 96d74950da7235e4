@_spi(TempoInternals) package import TempoSupport

/// Time that moves by itself: while it is on, whenever work is pending on a timeline and the
/// test's work has gone quiet, a driver runs the next due work, exactly as an async `run()`
/// would — one item at a time, in order, `now` at each item's due time, the work each one
/// releases let go quiet before the next — and stops when nothing is pending.
///
/// The driver is a task of its own, started when work becomes pending (a sleep, a scheduled
/// action) while none runs. It waits for quiet the way an advancing test does, on the test's
/// executor, so it never jumps while a task of the test can still run: only while every task
/// is suspended, on time or on something outside the test. Turned off, it takes no further
/// step: a driver letting the last item's work go quiet stops there. Work that never runs out
/// (a timer nobody stops) is stopped by the driver's bounds (`run()`'s in actions, ten times
/// `run()`'s in real time: 5 s by default), reported, and auto-advance turns off.
///
/// One per lone timeline, or per shared timeline for all its members: both setters go through
/// ``turn(_:pending:)``, and every driver through `TimelineDriving.startAutoDriver(_:)`.
///
/// ```swift
/// let clock = TestClock()
/// clock.automaticallyAdvances = true
/// let value = try await fetchWithRetry(clock: clock)   // every backoff skipped, in order
/// ```
package final class AutoAdvance: @unchecked Sendable {
  // Invariant: `lock` guards `machine`; nothing is called while it is held.
  private let lock = Lock()
  private var machine = AutoAdvanceStateMachine()
  /// The actor the driver runs actions on: the main actor for schedulers, whose actions stand
  /// for the main queue's; nil for clocks, whose actions only resume sleepers.
  let isolation: (any Actor)?
  /// Where the time source was made: a runaway is reported there.
  let location: SourceLocation

  package init(isolation: (any Actor)?, location: SourceLocation) {
    self.isolation = isolation
    self.location = location
  }

  /// Whether time moves by itself.
  package var isEnabled: Bool { lock.withLock { machine.isOn } }

  /// Whether a driver runs now: started, and not yet stopped.
  var isDriverRunning: Bool { lock.withLock { machine.isDriving } }

  /// Turns auto-advance on or off, with `pending` telling whether work is pending already;
  /// answers whether the caller starts a driver for it. Off takes effect at once: a running
  /// driver takes no further step.
  func turn(_ on: Bool, pending: Bool) -> Bool {
    lock.withLock {
      machine.turn(on)
      return on && pending && machine.workArrived()
    }
  }

  /// Work became pending: answers whether the caller should start a driver (on, and none runs).
  /// While one runs, it is told instead (``driverFinished(pending:afterRunaway:)``): it may
  /// have read the pending count just before this work arrived.
  package func workArrived() -> Bool {
    lock.withLock { machine.workArrived() }
  }

  /// Asked by the driver before each step: whether auto-advance is still on.
  func driverMayStep() -> Bool {
    lock.withLock { machine.driverMayStep() }
  }

  /// The driver ran out of work, was turned off, or spent its bounds on a runaway (reported;
  /// auto-advance then turns off, so that no driver starts again): answers whether it stops,
  /// or goes on because work arrived meanwhile and auto-advance is still on.
  func driverFinished(pending: Bool, afterRunaway: Bool) -> Bool {
    lock.withLock { machine.driverFinished(pending: pending, afterRunaway: afterRunaway) }
  }
}

extension TimelineDriving where Self: Sendable {
  /// Starts the driver of auto-advance (see ``AutoAdvance``), on the executor of the test whose
  /// context this is, as an advance from this context would wait on (the timeline's
  /// ``TestScope`` finds it, and starts the driver's task).
  package func startAutoDriver(_ auto: AutoAdvance) {
    let driver = AutoDriver(timeline: self, auto: auto)
    scope.startDriver(at: auto.location, probesOnly: Settling.usesProbesOnly) {
      await driver.loop()
    }
  }
}

/// The task that moves an auto-advancing timeline's time.
private struct AutoDriver<Timeline: TimelineDriving & Sendable>: Sendable {
  let timeline: Timeline
  let auto: AutoAdvance

  /// Runs what is pending, as an async `run()` on the auto-advance's actor, until nothing is;
  /// then stops unless work arrived meanwhile.
  ///
  /// Its real-time bound is ten times `run()`'s (5 s by default): the work of a test reaches
  /// the driver one sleep at a time, so little of it is pending when the driver starts, and
  /// finite work on a machine whose cores are all busy took more than `run()`'s half second
  /// (16 sleepers of 20 in Tempo's own suite, reported as a runaway). The bound in actions
  /// still stops a timer nobody cancels.
  fileprivate func loop() async {
    while true {
      let spent = await RunBudget.$realTimeLimit.withValue(RunBudget.realTimeLimit * 10) {
        await timeline.driveAutomatically(
          auto, budget: RunBudget(limit: nil), isolation: auto.isolation, at: auto.location)
      }
      if auto.driverFinished(pending: timeline.pendingCount > 0, afterRunaway: spent) { break }
    }
  }
}

extension Timeline {
  /// Turns auto-advance on or off for this timeline, or for the shared timeline it belongs to.
  package func setAutomaticallyAdvances(_ on: Bool, isolation: (any Actor)?) {
    if let sharing { return sharing.group.setAutomaticallyAdvances(on) }
    let auto = lock.withLock {
      if let existing = self.auto { return existing }
      let made = AutoAdvance(isolation: isolation, location: creation ?? .unknown)
      self.auto = made
      return made
    }
    if auto.turn(on, pending: pendingCount > 0) { startAutoDriver(auto) }
  }

  /// Whether time moves by itself on this timeline (or its shared timeline).
  package var automaticallyAdvances: Bool {
    if let sharing { return sharing.group.automaticallyAdvances }
    return lock.withLock { auto }?.isEnabled ?? false
  }

  /// Uses the shared timeline's auto-advance: work scheduled here starts its driver.
  package func useAutoAdvance(_ shared: AutoAdvance) {
    lock.withLock { auto = shared }
  }
}
