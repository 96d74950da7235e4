package import TempoSupport

/// What a `run` may spend before it stops and reports work that never runs out.
///
/// A `run` cannot tell work that ends from work that never does (a repeating timer nobody
/// cancels, a task that sleeps in a loop until it is cancelled), so it is bounded twice:
///
/// - **In actions.** It performs what was pending when it began, plus ``extraActions`` more.
///   For synchronous work in an optimized build an action costs well under a microsecond, so
///   this bound trips first: a runaway timer is reported after a fraction of a second, at the
///   same step every time. (A debug build of Tempo takes a few microseconds per action, and the
///   real-time bound below may trip first.)
/// - **In real time, beyond the work that was pending when it began.** Each step of an async
///   `run` lets the work it released go quiet, which costs from tens of microseconds (in a test
///   executor) to milliseconds (outside one, where settling takes several rounds through the
///   global executor and the main actor). A hundred thousand such steps could take minutes, so
///   once a run has performed everything that was pending when it began, it also stops after
///   ``realTimeLimit`` (half a second) of real time spent on the rest. The clock only starts
///   after the initial work, so a large but finite amount of pending work is never cut short
///   because a machine is slow.
///
/// An explicit limit (`run(limit:)`) is a plain count of actions, with no clock: a test that
/// knows how much work it expects gets the same answer on every machine.
package struct RunBudget: Sendable {
  /// The actions a default `run` performs beyond those pending when it began. A task-local so
  /// that Tempo's own tests can shorten it.
  @TaskLocal package static var extraActions = 100_000

  /// The real time a default `run` spends on actions beyond those pending when it began.
  /// A task-local so that Tempo's own tests can shorten it.
  @TaskLocal package static var realTimeLimit: Duration = .milliseconds(500)

  /// Where a default `run` reads real time: the continuous clock; in Tempo's own tests, a clock
  /// they move by hand, so that the limit above is driven with no real wait. The one read of
  /// real time in TempoCore's drive.
  @TaskLocal package static var realTime: @Sendable () -> ContinuousClock.Instant = {
    ContinuousClock.now
  }

  /// An explicit number of actions, or `nil` for the default bounds.
  let limit: Int?

  /// A budget of `limit` actions, or the default bounds if `limit` is nil.
  package init(limit: Int?) {
    self.limit = limit
  }
}

/// Counts one drive's steps against its budget.
struct RunMeter {
  private let maxSteps: Int
  private let initial: Int
  private let timeLimit: Duration?
  /// The steps below which a step needs no other check: below both the budget and the step at
  /// which the real-time guard starts.
  private let plainSteps: Int
  private var deadline: ContinuousClock.Instant?
  /// Where real time is read, once the real-time guard has started (``RunBudget/realTime``).
  private var now: (@Sendable () -> ContinuousClock.Instant)?
  /// The actions allowed so far.
  private(set) var steps = 0
  /// Whether the drive stopped because the budget was spent (in actions or in time).
  private(set) var isSpent = false
  /// Whether it was the real-time guard that stopped it.
  private(set) var ranOutOfTime = false

  /// A meter for `budget` (no bound if nil), with `pending` actions pending at the start.
  init(budget: RunBudget?, pending: Int) {
    initial = pending
    switch budget?.limit {
    case .some(let limit):
      maxSteps = max(limit, 0)
      timeLimit = nil
    case .none where budget != nil:
      let (sum, overflow) = pending.addingReportingOverflow(RunBudget.extraActions)
      maxSteps = overflow ? .max : sum
      timeLimit = RunBudget.realTimeLimit
    case .none:
      maxSteps = .max
      timeLimit = nil
    }
    plainSteps = timeLimit == nil ? maxSteps : min(maxSteps, initial)
  }

  /// Whether the drive may take one more action; counts it if so.
  @inline(__always)
  mutating func allowsStep() -> Bool {
    // The common step, inlined into the drive's loop: within the budget, before the clock.
    if steps < plainSteps {
      steps += 1
      return true
    }
    return allowsCheckedStep()
  }

  /// ``allowsStep()`` at or past ``plainSteps``: checks the budget and the real-time guard.
  @inline(never)
  private mutating func allowsCheckedStep() -> Bool {
    guard steps < maxSteps else {
      isSpent = true
      return false
    }
    if let timeLimit, steps >= initial {
      // The clock starts with the first action beyond the initial ones; it is read every 16
      // actions, which keeps its cost out of cheap synchronous steps.
      if let deadline, let now {
        if steps & 15 == 0, now() >= deadline {
          isSpent = true
          ranOutOfTime = true
          return false
        }
      } else {
        let now = RunBudget.realTime
        self.now = now
        deadline = now().advanced(by: timeLimit)
      }
    }
    steps += 1
    return true
  }
}

/// Which pending date a step through pending work moves to.
package enum PendingStop: Sendable {
  /// The earliest pending date: Jest's `advanceTimersToNextTimer`.
  case next
  /// The latest date pending now; what the work schedules later stays pending: sinon's
  /// `runToLast`.
  case last
}

/// What a drive takes its actions from: a lone ``Timeline``, or a ``SharedTimeline`` that
/// takes them from all its members in one order.
///
/// Both go through the one drive below, synchronous or async, so the two cannot drift apart:
/// the same loop, the same wake-up accounting, the same budget and the same report.
package protocol TimelineDriving: AnyObject {
  /// The instant a drive moves to.
  associatedtype Target
  /// A target made once for a whole drive.
  associatedtype Bound

  /// How issues name the timeline, for example `"TestScheduler"`.
  var driveName: String { get }
  /// The sleepers woken by this timeline's actions that have not run again yet.
  var wakeUps: WakeUps { get }
  /// The test it serves: what its async drives wait on for quiet.
  var scope: any TestScope { get }
  /// How many actions are waiting.
  var pendingCount: Int { get }
  /// The bound of a drive through `target`.
  func dueBound(through target: Target) -> Bound
  /// The bound of a drive through everything pending.
  var everythingDue: Bound { get }
  /// Takes the next action due by `bound`, moving `now` to its date. The caller runs it.
  func takeNext(dueBy bound: Bound, at location: SourceLocation) -> (() -> Void)?
  /// Ends an advance: `now` becomes `target` unless it is already later.
  func finishAdvance(at target: Target)
  /// The first `first` pending dates in the order they will run, as the time since the
  /// timeline's start, how many actions are pending in all, and `now`, described the same way.
  func pendingDescription(first: Int) -> (dates: [String], count: Int, now: String)
  /// When the next pending action is due, if any.
  var nextTarget: Target? { get }
  /// When the last pending action is due, if any.
  ///
  /// - Complexity: O(n log n)
  var lastTarget: Target? { get }
}

extension TimelineDriving {
  // A drive to a target and a drive through everything are separate entry points, so that an
  // advance never wraps its target in an optional: unspecialized code looks up the metadata of
  // an optional of a generic type (a few hundred instructions) whenever it makes one.

  /// Runs the actions due by `target` in order, within `budget` if one is given, then moves
  /// `now` to `target`; reports the work left over if the budget runs out.
  package func drive(
    to target: Target, budget: RunBudget? = nil, at location: SourceLocation
  ) {
    let meter = perform(dueBy: dueBound(through: target), budget: budget, at: location)
    finishAdvance(at: target)
    if meter.isSpent { reportRunaway(meter, at: location) }
  }

  /// Runs the actions due by `target` in order (all pending actions if `target` is nil), within
  /// `budget` if one is given, then moves `now` to `target`; reports the work left over if the
  /// budget runs out.
  package func drive(
    through target: Target?, budget: RunBudget? = nil, at location: SourceLocation
  ) {
    if let target { return drive(to: target, budget: budget, at: location) }
    let meter = perform(dueBy: everythingDue, budget: budget, at: location)
    if meter.isSpent { reportRunaway(meter, at: location) }
  }

  /// ``drive(to:budget:at:)`` for async code: after each action, and before the first, it lets
  /// the work that the action released go quiet, waiting for the sleepers it woke (see
  /// ``Settling``).
  package func drive(
    to target: Target, budget: RunBudget? = nil, isolation: isolated (any Actor)? = #isolation,
    at location: SourceLocation
  ) async {
    let meter = await perform(dueBy: dueBound(through: target), budget: budget, at: location)
    finishAdvance(at: target)
    if meter.isSpent { reportRunaway(meter, at: location) }
    await Settling.rejoin(scope: scope)
  }

  /// ``drive(through:budget:at:)`` for async code, settling after each action (see
  /// ``drive(to:budget:at:)``). Answers whether the budget was spent with work left (reported).
  @discardableResult
  package func drive(
    through target: Target?, budget: RunBudget? = nil,
    isolation: isolated (any Actor)? = #isolation,
    at location: SourceLocation
  ) async -> Bool {
    if let target {
      await drive(to: target, budget: budget, at: location)
      return false
    }
    return await driveThroughEverything(budget: budget, while: nil, at: location)
  }

  /// The drive of auto-advance's driver: ``drive(through:budget:isolation:at:)`` through
  /// everything pending, that takes no step once `auto` is turned off. Answers whether the
  /// budget was spent with work left (reported).
  package func driveAutomatically(
    _ auto: AutoAdvance, budget: RunBudget, isolation: isolated (any Actor)? = #isolation,
    at location: SourceLocation
  ) async -> Bool {
    await driveThroughEverything(budget: budget, while: auto, at: location)
  }

  private func driveThroughEverything(
    budget: RunBudget?, while auto: AutoAdvance?, isolation: isolated (any Actor)? = #isolation,
    at location: SourceLocation
  ) async -> Bool {
    let meter = await perform(dueBy: everythingDue, budget: budget, while: auto, at: location)
    if meter.isSpent { reportRunaway(meter, at: location) }
    await Settling.rejoin(scope: scope)
    return meter.isSpent && pendingCount > 0
  }

  /// Advances to `stop`'s date (the next pending one, or the last pending now) and runs what
  /// is due by then; does nothing if nothing is pending.
  package func drive(toPending stop: PendingStop, at location: SourceLocation) {
    guard let target = target(of: stop) else { return }
    drive(to: target, at: location)
  }

  /// ``drive(toPending:at:)`` for async code: the work already started goes quiet first (so a
  /// task started just before has gone to sleep when the pending dates are read), then it
  /// settles after each action.
  package func drive(
    toPending stop: PendingStop, isolation: isolated (any Actor)? = #isolation,
    at location: SourceLocation
  ) async {
    await Settling.settle(wakeUps, scope: scope, at: location)
    guard let target = target(of: stop) else { return await Settling.rejoin(scope: scope) }
    await drive(to: target, at: location)
  }

  private func target(of stop: PendingStop) -> Target? {
    switch stop {
    case .next: nextTarget
    case .last: lastTarget
    }
  }

  /// The loop of a drive: takes and performs the actions due by `bound`, within `budget`.
  private func perform(
    dueBy bound: Bound, budget: RunBudget?, at location: SourceLocation
  ) -> RunMeter {
    var meter = RunMeter(budget: budget, pending: budget == nil ? 0 : pendingCount)
    // The loop written out rather than a helper that takes a closure: a closure call per step
    // costs more than the step's check.
    while meter.allowsStep(), let action = takeNext(dueBy: bound, at: location) { action() }
    return meter
  }

  /// The async loop of a drive, settling before the first action and after each; with
  /// `auto`, it takes no step once auto-advance is turned off.
  private func perform(
    dueBy bound: Bound, budget: RunBudget?, while auto: AutoAdvance? = nil,
    isolation: isolated (any Actor)? = #isolation, at location: SourceLocation
  ) async -> RunMeter {
    var meter = RunMeter(budget: budget, pending: budget == nil ? 0 : pendingCount)
    // Auto-advance's driver also waits for the outside work the test declared.
    await Settling.perform(
      wakeUps: wakeUps, scope: scope, respectingOutsideWork: auto != nil, at: location
    ) {
      // Asked after settling, so a test that turned it off while the last item's work ran
      // is seen before the next step.
      if let auto, !auto.driverMayStep() { return nil }
      return meter.allowsStep() ? takeNext(dueBy: bound, at: location) : nil
    }
    return meter
  }

  /// Reports the work still pending after a `run` spent its budget.
  private func reportRunaway(_ meter: RunMeter, at location: SourceLocation) {
    let (dates, count, now) = pendingDescription(first: 5)
    guard count > 0 else { return }
    let spent =
      meter.ranOutOfTime
      ? "\(meter.steps) actions and \(describeSeconds(RunBudget.realTimeLimit)) of real time"
      : "\(meter.steps) actions"
    location.report(
      TimelineMessage.runaway(driveName, spent: spent, count: count, dates: dates, now: now))
  }
}
