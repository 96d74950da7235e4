/// The opening task's job, in the state machine: the second blind spot the runtime forces
/// (see the contributor's page). An executor a clock opened for a running task holds the test
/// unquiet until that job has ended; ``TestExecutorStateMachine/isQuiet`` reads only whether an
/// opener is still watched.
///
/// ```swift
/// var watch = TestExecutorStateMachine.OpenerWatch()
/// watch.start(task, onMainQueue: false)
/// _ = watch.read(runnable: false, at: now)   // suspended: confirmed after 5 ms of reads
/// ```
extension TestExecutorStateMachine {
  /// The task a clock opened the executor for, while the job it was running then, or where that
  /// job led it without coming here, may still run: that job came to no executor, yet it is
  /// the test's work, and may start more (the second child of two `async let`s, after the
  /// first has slept), or leave for an actor whose job no executor takes (a job of the default
  /// main executor gives the hooks no task to go by). It is known to have ended (``end()``)
  /// when a job of the task arrives here, when the task begins to wait for quiet itself, or
  /// when its status reads as suspended (``read(runnable:at:)``, trusted as ``Reads`` says).
  struct OpenerWatch: ~Copyable {
    /// How far a read of the opener's status is trusted. A task marks itself suspended before it
    /// publishes itself as waiting (on a task's result, a continuation, a group), and marks
    /// itself running again, and goes on in the same job, if what it waits for has completed in
    /// between: one read of "suspended" may be that window, stretched by the thread being
    /// preempted in it.
    enum Reads: Equatable {
      /// The opener's job runs on the main queue, and the pass through the queue queued as the
      /// executor opened has not run: that job is still running, whatever a read says.
      case ignoredUntilMainQueuePass
      /// Only reads that say "suspended" for ``OpenerWatch/confirmation`` end the job: the
      /// opener's job runs elsewhere, and nothing else tells when it ends.
      case confirmed
      /// One read that says "suspended" ends it: the job the executor opened in is over, and a
      /// read only follows where it led (an actor no executor took).
      case trusted
    }

    /// The opening task, while its job may still run; nil once it has ended, or if the
    /// executor was not opened for a running task.
    private(set) var opener: UnsafeRawPointer?
    /// The opening task, for as long as the executor lives, if its job ran on the main queue:
    /// its function read the main actor's executor before Tempo's hooks answered, so each of
    /// its later hops back to the main actor goes to the platform's main queue, unseen, as its
    /// first job did (see ``resumedUnseen(quietByCounts:isDriver:)``).
    private(set) var mainQueueOpener: UnsafeRawPointer?
    /// Passes through the main queue queued for the opener's job that have not run: its reads
    /// count once the last has (a pass queued after a read that found it runnable runs after
    /// the job that read saw).
    private(set) var passesPending = 0
    /// How far a read of the opener's status is trusted.
    private(set) var reads = Reads.trusted
    /// Whether someone looks at the opener's status until it suspends.
    private(set) var isWatched = false
    /// When the opener's status first read as suspended with no read since saying otherwise, in
    /// nanoseconds of uptime.
    private(set) var suspendedSince: UInt64?

    /// The executor was opened for `task`, which is running a job, on the main queue if
    /// `onMainQueue`.
    mutating func start(_ task: UnsafeRawPointer, onMainQueue: Bool) {
      guard opener == nil else {
        preconditionFailure("test executor: opened for a running task while another one ran")
      }
      opener = task
      if onMainQueue {
        mainQueueOpener = task
        passesPending += 1
      }
      reads = onMainQueue ? .ignoredUntilMainQueuePass : .confirmed
      isWatched = false
      suspendedSince = nil
    }

    /// A job of `task` came to the executor, here or for the main queue: if `task` is the
    /// opener, the job it was running has ended. (That releases no waiter: the job that came is
    /// the test's work.)
    mutating func jobArrived(of task: UnsafeRawPointer) {
      if task == opener { _ = end() }
    }

    /// The opener's job has ended; false if it had already (or there was none).
    mutating func end() -> Bool {
      guard opener != nil else { return false }
      opener = nil
      isWatched = false
      suspendedSince = nil
      return true
    }

    /// The main-queue opener read as runnable (queued or running) while its job had ended: if
    /// nothing of the test is queued or running by the counts, and the opener does not wait for
    /// quiet itself, it can only be in a job of the platform's main queue, which no hook sees
    /// (or of an executor of its own). Its job is watched again as the first was: until a pass
    /// through the main queue, queued now, has run behind it. Answers whether the caller
    /// queues that pass.
    ///
    /// A rule, not a guess: the main queue runs its blocks in order, so the pass runs after the
    /// job the read saw queued or running there.
    mutating func resumedUnseen(quietByCounts: Bool, isDriver: Bool) -> Bool {
      guard opener == nil, let task = mainQueueOpener, quietByCounts, !isDriver else {
        return false
      }
      start(task, onMainQueue: true)
      return true
    }

    /// A pass through the main queue has run; answers whether reads count from now on (they
    /// were waiting for it, and no later pass is pending).
    mutating func mainQueuePassRan() -> Bool {
      guard passesPending > 0 else {
        preconditionFailure("test executor: a pass through the main queue ran that was not queued")
      }
      passesPending -= 1
      guard passesPending == 0, reads == .ignoredUntilMainQueuePass else { return false }
      reads = .trusted
      return true
    }

    /// The opener's status read `runnable` (running or queued) or not at `now`; answers whether
    /// that tells its job has ended, which the caller then ends (``end()``).
    mutating func read(runnable: Bool, at now: UInt64) -> Bool {
      guard opener != nil else { return false }
      switch reads {
      case .ignoredUntilMainQueuePass:
        return false
      case .trusted:
        return !runnable
      case .confirmed:
        guard !runnable else {
          suspendedSince = nil
          return false
        }
        guard let since = suspendedSince else {
          suspendedSince = now
          return false
        }
        return now &- since >= Guesses.openerConfirmationNanoseconds
      }
    }

    /// The opener to watch, if `waited` (someone waits for quiet), its reads count, and nobody
    /// watches it yet; from then on someone does.
    mutating func watch(whileWaitedFor waited: Bool) -> UnsafeRawPointer? {
      guard let opener, reads != .ignoredUntilMainQueuePass, !isWatched, waited else {
        return nil
      }
      isWatched = true
      return opener
    }

    /// Called by ``TestExecutorStateMachine/checkInvariants()``.
    func checkInvariants() {
      precondition(
        opener != nil || (!isWatched && suspendedSince == nil),
        "test executor: the opener is watched after its job ended")
      precondition(
        !isWatched || reads != .ignoredUntilMainQueuePass,
        "test executor: the opener is watched before the main queue's pass")
      precondition(
        suspendedSince == nil || reads == .confirmed,
        "test executor: a suspension of the opener is timed where one read is enough")
      precondition(
        passesPending >= 0 && (passesPending == 0 || mainQueueOpener != nil),
        "test executor: a pass through the main queue is pending for no opener there")
    }
  }
}
