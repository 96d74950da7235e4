import Dispatch
@_spi(TempoInternals) import TempoSupport

/// The timer of every test executor's backstop: one system thread that waits for the earliest
/// deadline armed and tells each executor whose deadline has come.
///
/// A backstop is armed whenever a driver's action releases a job (see
/// ``TestExecutorStateMachine/Wake/backstop``), which is at nearly every step of an advance; it
/// fires only if the driver has not run that job by then. Arming costs a lock and an append: the
/// thread is signalled only when it waits with nothing armed, and every deadline is the same
/// distance from its arming, so one armed later is never due earlier. (A
/// `DispatchQueue.asyncAfter` per step wrote to libdispatch's timer thread and woke a worker
/// each time: about 10 µs of a step's 40.)
@available(TempoTestExecutor 1.0, *)
final class Backstops: @unchecked Sendable {
  // Invariant: `lock` guards `schedule`, `isIdle` and `isStopped`; executors are told, and
  // released, after unlocking. The schedule holds each executor until its deadline and the
  // slack (7 ms at most).
  static let shared = Backstops(time: RealTime.system) { $0.backstopIsDue() }

  private let lock = Lock()
  private var schedule = BackstopSchedule<TestExecutor>()
  /// Whether the thread waits with nothing armed, for a signal.
  private var isIdle = false
  /// Whether the thread should end: only Tempo's own tests stop the backstops they make.
  private var isStopped = false
  private let wake = DispatchSemaphore(value: 0)
  /// The real time deadlines are read and waited on: the system's, or in Tempo's own tests a
  /// clock moved by hand.
  private let time: any WallTime
  /// What an executor whose backstop is due is told: ``TestExecutor/backstopIsDue()``.
  private let fire: @Sendable (TestExecutor) -> Void

  /// Made at the first backstop armed, and starts the thread then: a serial queue's, which
  /// libdispatch gives even when its shared pool is busy.
  init(time: any WallTime, fire: @escaping @Sendable (TestExecutor) -> Void) {
    self.time = time
    self.fire = fire
    DispatchQueue(label: "Tempo test executor backstops").async { self.fireUntilStopped() }
  }

  /// Ends the thread at its next wake (a backstop a test made, once it is done with it).
  func stop() {
    lock.withLock { isStopped = true }
    wake.signal()
  }

  /// Tells `executor` that its backstop is due (``TestExecutor/backstopIsDue()``) once
  /// `milliseconds` have passed.
  func arm(_ executor: TestExecutor, milliseconds: Int) {
    let deadline = time.nanoseconds + UInt64(milliseconds) * 1_000_000
    // The lock by hand, not `withLock`: a debug build calls that generically, at nearly every
    // step of an advance.
    lock.lock()
    schedule.arm(executor, deadline: deadline)
    let signal = isIdle
    isIdle = false
    lock.unlock()
    if signal { wake.signal() }
  }

  private func fireUntilStopped() {
    while true {
      let now = time.nanoseconds
      let (due, next, stopped) = lock.withLock { () -> ([TestExecutor], UInt64?, Bool) in
        let (due, next) = schedule.takeDue(at: now)
        isIdle = next == nil
        return (due, next, isStopped)
      }
      for executor in due { fire(executor) }
      if stopped { return }
      if let next {
        time.wait(wake, untilNanoseconds: BackstopSchedule<TestExecutor>.wakeTime(for: next))
      } else {
        wake.wait()
      }
    }
  }
}

/// The backstops armed and not fired yet, in deadline order: the pure state behind
/// ``Backstops``, with no lock and no thread. `Owner` is the executor type (generic, so that
/// the rules are tested without one).
///
/// Arming is an append. An entry hands its owner over as it fires, so that the schedule holds
/// an executor only until its deadline, and fired entries are dropped as they pile up. Under
/// steady arming (tests back to back, nearly every step of an advance arming one) the entries
/// never all fire at once: fired entries that kept their executors (as they once did) kept
/// every test's executor alive, and with it the task that an executor a clock opened retains,
/// about a kilobyte per test for the life of the process.
///
/// ```swift
/// var schedule = BackstopSchedule<TestExecutor>()
/// schedule.arm(executor, deadline: now + 5_000_000)
/// let (due, next) = schedule.takeDue(at: later)   // due: [executor]; next: nil, none left
/// ```
package struct BackstopSchedule<Owner: AnyObject> {
  /// A backstop armed: a struct, not a tuple, whose metadata a debug build would look up at
  /// every use of the array.
  private struct Armed {
    let deadline: UInt64
    var owner: Owner?
  }

  /// `armed[head...]` is in deadline order; the entries before `head` have fired, and hold
  /// nothing.
  private var armed: [Armed] = []
  private var head = 0

  package init() {}

  /// When the thread wakes for a backstop due at `deadline`: at the end of the slack period
  /// `deadline` falls in, after it and at most ``Guesses/backstopSlackNanoseconds`` later.
  package static func wakeTime(for deadline: UInt64) -> UInt64 {
    let slack = Guesses.backstopSlackNanoseconds
    return (deadline / slack + 1) * slack
  }

  /// How many entries are stored, fired or not (for tests: it stays within twice the number
  /// armed and not fired yet).
  package var storedCount: Int { armed.count }

  /// Arms a backstop for `owner`, due at `deadline`: no earlier than any armed before, since
  /// every backstop is the same distance from its arming.
  package mutating func arm(_ owner: Owner, deadline: UInt64) {
    armed.append(Armed(deadline: deadline, owner: owner))
  }

  /// Takes the owners whose deadline is `now` or earlier, in deadline order, which the caller
  /// tells and lets go of (after unlocking); answers the next deadline too, nil if none is
  /// armed.
  package mutating func takeDue(at now: UInt64) -> (due: [Owner], next: UInt64?) {
    var due: [Owner] = []
    while head < armed.count, armed[head].deadline <= now {
      if let owner = armed[head].owner.take() { due.append(owner) }
      head += 1
    }
    if head == armed.count {
      armed.removeAll(keepingCapacity: true)
      head = 0
      return (due, nil)
    }
    // The fired entries go once they are half of the array: each entry moved is paid for by
    // one dropped, and the array never outgrows twice what is armed.
    if head >= armed.count - head {
      armed.removeSubrange(..<head)
      head = 0
    }
    return (due, armed[head].deadline)
  }
}
