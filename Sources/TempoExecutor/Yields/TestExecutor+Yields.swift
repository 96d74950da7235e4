import Dispatch
import Synchronization
import TempoRuntimeABI
@_spi(TempoInternals) import TempoSupport

// A yield the executor cannot see: a task of the test parked in `Task.yield()` whose
// continuation went to the platform's executor, past the hooks (see `YieldResumePoint`). The
// executor retains the tasks it meets, and before it answers that the test's work is quiet,
// looks whether one of them is parked so; if one is, it waits for it to come back.

/// The last few tasks a test executor noted as its members, and
/// ``TestRegistry/membershipChanges`` as it was read before those notes: while it still reads
/// the same, the registry still says the executor met each of them, and another note would
/// change nothing. (Kept by each executor, under its lock: a task yielding in a loop, or fed by a
/// stream, is resumed by jobs that are not its own, a test's few tasks take turns on the main
/// actor, an advance's task rejoins after each wait, and each would otherwise take the
/// registry's lock again.)
///
/// ```swift
/// var noted = LastNoted()
/// noted.noted(task, membershipChanges: TestRegistry.membershipChanges.load(ordering: .relaxed))
/// noted.isCurrent(task)   // true until the registry's membership changes
/// ```
@available(TempoTestExecutor 1.0, *)
struct LastNoted {
  // Four entries in stored properties, not an array: a debug build runs every array operation
  // unspecialized, on the path of most jobs.
  private var address0: UnsafeRawPointer?
  private var address1: UnsafeRawPointer?
  private var address2: UnsafeRawPointer?
  private var address3: UnsafeRawPointer?
  private var id0: UInt32 = 0
  private var id1: UInt32 = 0
  private var id2: UInt32 = 0
  private var id3: UInt32 = 0
  /// The entry the next note replaces.
  private var next = 0
  private var membershipChanges: UInt64 = 0

  init() {}

  /// `task` was noted after ``TestRegistry/membershipChanges`` read `membershipChanges`: it
  /// replaces the entry noted longest ago, and if the membership had changed since the others
  /// were noted, they go.
  mutating func noted(_ task: TaskRef, membershipChanges: UInt64) {
    if membershipChanges != self.membershipChanges {
      self = LastNoted()
      self.membershipChanges = membershipChanges
    } else if holds(task) {
      return
    }
    switch next {
    case 0:
      address0 = task.address
      id0 = task.id
    case 1:
      address1 = task.address
      id1 = task.id
    case 2:
      address2 = task.address
      id2 = task.id
    default:
      address3 = task.address
      id3 = task.id
    }
    next = (next + 1) & 3
  }

  /// Whether `task` is one of those noted last, and the registry's membership is unchanged
  /// since.
  func isCurrent(_ task: TaskRef) -> Bool {
    isCurrent(task, membershipChanges: TestRegistry.membershipChanges.load(ordering: .relaxed))
  }

  /// Whether `task` is one of those noted last, and `membershipChanges` is the count they were
  /// noted at.
  func isCurrent(_ task: TaskRef, membershipChanges: UInt64) -> Bool {
    holds(task) && membershipChanges == self.membershipChanges
  }

  private func holds(_ task: TaskRef) -> Bool {
    (address0 == task.address && id0 == task.id) || (address1 == task.address && id1 == task.id)
      || (address2 == task.address && id2 == task.id)
      || (address3 == task.address && id3 == task.id)
  }
}

@available(TempoTestExecutor 1.0, *)
extension TestExecutor {
  /// Remembers `task`, alive, as one of this test's; the first time, watches it for yields
  /// (unless not `watches`: it cannot be kept, see ``retainToWatch(_:)``). `isRetained` says
  /// the caller has retained it for that already, a retain this call keeps or lets go.
  ///
  /// The task becomes the one noted last (``LastNoted``): until the registry's membership
  /// changes, a job of it from another context needs no new note.
  func noteMember(_ task: TaskRef, isRetained: Bool = false, watches: Bool = true) {
    // Read before the note: a change after it makes the next job note again, which is safe.
    let changes = TestRegistry.membershipChanges.load(ordering: .relaxed)
    if TestRegistry.note(task, memberOf: self, watches: watches) {
      watch(task.address, isRetained: isRetained)
    } else if isRetained {
      tempo_task_release(task.address)
    }
    lock.lock()
    lastNoted.noted(task, membershipChanges: changes)
    lock.unlock()
  }

  /// Watches `task`, alive, for yields (see ``YieldedTasks``), unless it cannot be kept or the
  /// executor has closed. `isRetained` as for ``noteMember(_:isRetained:watches:)``.
  func watch(_ task: UnsafeRawPointer, isRetained: Bool = false) {
    guard isRetained || retainToWatch(task) else { return }
    let ended = lock.withLock { state.isClosed ? [task] : yieldedTasks.add(task) }
    for task in ended { tempo_task_release(task) }
  }

  /// Retains `task`, alive, to watch it for yields, if it can be (see ``YieldedTasks``); true
  /// if it did.
  func retainToWatch(_ task: UnsafeRawPointer) -> Bool {
    guard YieldResumePoint.function != nil, !JobIdentity.isAsyncLetChild(task) else {
      return false
    }
    tempo_task_retain(task)
    return true
  }

  /// Whether `task`, kept alive, is parked in a yield (or resumed from it, not suspended
  /// since) and has not ended.
  static func isParkedInYield(_ task: UnsafeRawPointer) -> Bool {
    guard let point = YieldResumePoint.function else { return false }
    return tempo_task_resume_function(task) == point && !tempo_task_is_complete(task)
  }

  /// Looks once more at a test whose work was found quiet: has work arrived since, or is a task
  /// of the test parked in a yield the executor cannot see? For such a task, waits until it is
  /// back (or a second at most, counted as ``LookCredit`` counts, so that threads all busy with
  /// other work do not count: then the executor stops watching a task that runs on a thread
  /// with no job it sees, which blocks that thread). Unless `waitsForYields`, a parked task is
  /// not waited for: a caller that has waited five seconds, counted so, for tasks that did not
  /// come back, goes on.
  ///
  /// It also looks for a task of a test that controls its system sleeps suspended in a system
  /// sleep the clock did not get, and reports it at `location` (see
  /// ``SystemSleeps/realSleepMessage``).
  func lookAfterQuiet(
    waitsForYields: Bool, at location: SourceLocation,
    isolation: isolated (any Actor)? = #isolation
  ) async -> AfterQuiet {
    let found = lookAtQuiet(findingRealSleeps: true)
    if found.foundRealSleep { location.report(SystemSleeps.realSleepMessage) }
    switch found.look {
    case .quiet: return .settled
    case .busy: return .busy
    case .yielding:
      guard waitsForYields else { return .settled }
      let stillParkedAfter = await withUnsafeContinuation {
        (continuation: UnsafeContinuation<UInt64?, Never>) in
        pollYields(
          resuming: continuation, credit: .starting(on: time), acceptedBefore: found.accepted,
          priority: found.yieldingPriority, every: Guesses.yieldFirstLookMicroseconds)
      }
      return stillParkedAfter.map { .stillParked(nanoseconds: $0) } ?? .yieldReturned
    }
  }

  /// What ``lookAfterQuiet(waitsForYields:)`` found.
  enum AfterQuiet {
    /// Quiet, with no task parked in an unseen yield (or none waited for).
    case settled
    /// Work has arrived since: wait for quiet again.
    case busy
    /// A task was parked in an unseen yield, and came back from it (or work arrived): wait
    /// for quiet again.
    case yieldReturned
    /// A task was parked in an unseen yield, and still is after waiting `nanoseconds` (a
    /// second, as ``LookCredit`` counts): wait for quiet again, counting the time.
    case stillParked(nanoseconds: UInt64)
  }

  /// What a look at a test whose work was found quiet finds.
  private enum QuietLook {
    /// Still quiet, and no task of the test is parked in a yield.
    case quiet
    /// A job has arrived since.
    case busy
    /// Nothing is queued or running, but a task of the test is parked in a yield, its
    /// continuation queued where no hook sees it: it comes back through one.
    case yielding
  }

  /// Reads, in one step, whether the test's work is quiet and whether a task watched is
  /// parked in a yield. Lets go of the tasks that have ended. With `findingRealSleeps`, in a
  /// test that controls its system sleeps, also answers whether a task of it is suspended in a
  /// system sleep that did not reach the test's clock (reported once per task).
  private func lookAtQuiet(findingRealSleeps: Bool = false) -> QuietLookResult {
    let result = lock.withLock { () -> QuietLookResult in
      guard state.isQuiet else { return QuietLookResult(look: .busy) }
      // Usually nothing since the last look could have left a task parked unseen.
      guard yieldedTasks.mayHaveEscaped else { return QuietLookResult(look: .quiet) }
      let findsSleeps = findingRealSleeps && systemSleeps.clock != nil
      let found = yieldedTasks.look(
        skipping: { state.isDriver($0) }, sleepPoints: findsSleeps ? SystemSleep.resumePoints : [])
      let real = found.sleeping.map(TaskRef.init).filter { systemSleeps.isReal($0) }
      return QuietLookResult(
        look: found.yielding ? .yielding : .quiet, accepted: state.accepted,
        yieldingPriority: found.yieldingPriority ?? 0,
        foundRealSleep: systemSleeps.noteReported(real), ended: found.ended)
    }
    for task in result.ended { tempo_task_release(task) }
    return result
  }

  /// What ``lookAtQuiet(findingRealSleeps:)`` found, with the tasks it let go of. (A struct
  /// rather than a tuple: a debug build looks a tuple type's metadata up at every call.)
  private struct QuietLookResult {
    var look: QuietLook
    /// The executor's count of jobs accepted, as of the look (read only when it looked for
    /// yields).
    var accepted = 0
    /// The lowest priority of the tasks parked in a yield (see ``YieldedTasks/Look``).
    var yieldingPriority: UInt8 = 0
    var foundRealSleep = false
    var ended: [UnsafeRawPointer] = []
  }

  /// Looks again `microseconds` from now, then at doubling intervals up to 5 ms, and
  /// resumes `continuation` with nil once no task is parked in a yield or work has arrived
  /// (the executor has accepted a job since it counted `acceptedBefore`), or with the time
  /// waited once a second has been counted (as ``LookCredit`` counts). A task still parked
  /// then is waited for again by the caller's next look: its continuation will run.
  ///
  /// Each look goes through the tasks' queue, where the continuations wait (``TasksQueue``),
  /// at `priority`, the lowest of the parked tasks': a look that queue holds up counts little.
  ///
  /// A job accepted between two looks is a task back from its yield, even if the looks both
  /// find it parked: a task that yields in a loop comes back through a hook after each yield,
  /// runs here, and yields again, and is found parked at almost every look. Without the count,
  /// a second of such looks read as a task that never came back: the wait gave up on it, or
  /// stopped watching it if a look caught it on its way back (runnable at its yield's resume
  /// point, like a task that blocks its thread), and time moved while it still yielded.
  private func pollYields(
    resuming continuation: UnsafeContinuation<UInt64?, Never>, credit: LookCredit,
    acceptedBefore: Int, priority: UInt8, every microseconds: Int
  ) {
    time.after(nanoseconds: UInt64(microseconds) * 1_000, on: .global()) {
      TasksQueue.after(priority: priority) {
        var credit = credit
        credit.lookNow(dueAfterMicroseconds: microseconds, on: self.time)
        let found = self.lookAtQuiet()
        guard found.look == .yielding, found.accepted == acceptedBefore else {
          return continuation.resume(returning: nil)
        }
        guard Guesses.looksForYieldsAgain(afterWaiting: credit.nanoseconds) else {
          let dropped = self.lock.withLock { self.yieldedTasks.dropBlocked() }
          for task in dropped { tempo_task_release(task) }
          return continuation.resume(returning: credit.nanoseconds)
        }
        self.pollYields(
          resuming: continuation, credit: credit, acceptedBefore: acceptedBefore,
          priority: found.yieldingPriority,
          every: min(microseconds * 2, Guesses.yieldLookCapMicroseconds))
      }
    }
  }

  /// Watches `tasks`, adopted from the lineage with its retains, for yields: any of them may
  /// have left an actor before the adoption and yielded unseen, so the next look looks.
  func watchAdopted(_ tasks: [UnsafeRawPointer]) {
    guard !tasks.isEmpty else { return }
    var ended: [UnsafeRawPointer] = []
    lock.withLock {
      guard !state.isClosed else { return ended = tasks }
      for task in tasks { ended += yieldedTasks.add(task) }
      yieldedTasks.processingJobQueued()
    }
    for task in ended { tempo_task_release(task) }
  }

  /// The executor has adopted tasks it knows by name only (``YieldedTasks/hasMembersMetByName``).
  func noteMembersMetByName() {
    lock.withLock { yieldedTasks.hasMembersMetByName = true }
  }

  /// Stops watching every task: the executor has closed.
  func stopWatchingYields() {
    let tasks = lock.withLock { yieldedTasks.removeAll() }
    // A test that started no task has none: no iterator is made (generic in a debug build).
    guard !tasks.isEmpty else { return }
    for task in tasks { tempo_task_release(task) }
  }
}
