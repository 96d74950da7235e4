import Dispatch
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

/// The executor's side of the opening task's job (``TestExecutorStateMachine/OpenerWatch``):
/// its status read, its looks, and the passes through the main queue.
///
/// ```swift
/// executor.lookWhetherOpenerSuspended()
/// ```
@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// If the job the opener was running when a clock opened the executor for it may still run
  /// (see ``TestExecutorStateMachine/OpenerWatch``), looks at the opener's status: once it
  /// reads as suspended (as often as ``TestExecutorStateMachine/OpenerWatch/Reads`` asks), that
  /// job has ended, and its next job comes here.
  func lookWhetherOpenerSuspended() {
    // The task is kept alive, so its status can be read at any time; once the job has ended
    // (however that became known), a read changes nothing.
    guard let heldOpener else { return }
    // Parked in a yield, it may be waiting for a thread of the platform's executor, unseen.
    let runnable = tempo_task_is_runnable(heldOpener) || Self.isParkedInYield(heldOpener)
    let now = time.nanoseconds
    let (released, watchAgain) = lock.withLock {
      (state.openerRead(runnable: runnable, at: now), runnable && state.openerReadRunnable())
    }
    resume(released)
    // Its job is on the main queue, unseen: the pass tells when it has run.
    if watchAgain { MainQueueActivity.async { self.mainQueuePassRan() } }
  }

  /// Whether the opener is parked in a yield, its continuation not running yet.
  private var isOpenerParked: Bool {
    guard let heldOpener else { return false }
    return Self.isParkedInYield(heldOpener) && !tempo_task_is_runnable(heldOpener)
  }

  /// The pass through the main queue queued as the executor opened for an opener there has
  /// run: the opener's job has ended, and its status now says where it went from there.
  func mainQueuePassRan() {
    let watch = lock.withLock { state.mainQueuePassRan() }
    lookWhetherOpenerSuspended()
    if watch != nil {
      watchOpener(credit: .starting(on: time), every: Guesses.openerFirstLookMicroseconds)
    }
  }

  /// Looks at the opener's status on a system thread, `microseconds` from now and then at
  /// doubling intervals up to a millisecond, until it suspends. A task that runs one job for
  /// more than a second (or a runtime whose task status reads otherwise than Tempo expects) is
  /// taken to have suspended then: time may move while it runs, as it would have without the
  /// look. An opener parked in a yield is waited for longer, up to ten seconds: its
  /// continuation waits on the tasks' queue (``TasksQueue``), and will run; each look then
  /// goes through that queue. Both are counted as ``LookCredit`` counts, from `credit`: a busy
  /// machine, or tests beside that keep every thread busy, stretch them for as long as they do.
  func watchOpener(credit: LookCredit, every microseconds: Int) {
    // Strongly, until it closes (or for a second): a weak reference would give the executor a
    // side table, and every retain and release of it on the path of every job would take the
    // runtime's slow path (a third of a main-actor yield's time, measured).
    time.after(nanoseconds: UInt64(microseconds) * 1_000, on: .global()) {
      guard let opener = self.heldOpener, self.isOpenerParked else {
        return self.lookAtOpener(credit: credit, dueAfter: microseconds)
      }
      TasksQueue.after(priority: JobIdentity.priority(opener)) {
        self.lookAtOpener(credit: credit, dueAfter: microseconds)
      }
    }
  }

  /// A look of ``watchOpener(credit:every:)``, due `microseconds` after the one before.
  private func lookAtOpener(credit: LookCredit, dueAfter microseconds: Int) {
    lookWhetherOpenerSuspended()
    // Until the opener's job has ended or the executor has closed: after that nobody waits
    // for quiet here.
    let isWatched = lock.withLock { state.opener != nil && !state.isClosed }
    guard isWatched else { return }
    var credit = credit
    credit.lookNow(dueAfterMicroseconds: microseconds, on: time)
    let waited = credit.nanoseconds
    guard Guesses.looksAtOpenerAgain(afterWaiting: waited, isParked: isOpenerParked) else {
      resume(lock.withLock { state.openerSuspended() })
      return
    }
    watchOpener(credit: credit, every: min(microseconds * 2, Guesses.openerLookCapMicroseconds))
  }
}
