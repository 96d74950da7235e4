import TempoExecutor
import Testing

/// The rules of ``LineageState``: who started whom, and which jobs of an adopted task its
/// executor waits for.
@Suite struct TaskLineageTests {
  final class Owner {}

  /// Task addresses are only identities here: nothing reads through them.
  static func task(_ address: Int, id: UInt32) -> TaskRef {
    TaskRef(address: UnsafeRawPointer(bitPattern: address)!, id: id)
  }

  let test = task(0x100, id: 10)
  let child = task(0x200, id: 11)
  let grandchild = task(0x300, id: 12)
  let stranger = task(0x400, id: 13)

  @Test func aNewTaskIsTheChildOfTheTaskThatEnqueuedIt() {
    var state = LineageState()
    _ = state.leaves(task: child, current: test)
    _ = state.leaves(task: grandchild, current: child)
    #expect(state.entries[grandchild.address]?.ancestors == [test, child])
  }

  /// A task seen for the first time when an older task resumes it is older than that task:
  /// it was not created by it.
  @Test func aCreatorIsAlwaysOlderThanWhatItCreates() {
    var state = LineageState()
    _ = state.leaves(task: test, current: stranger)
    #expect(state.entries[test.address]?.ancestors == [])
  }

  @Test func anAdvancingTaskAdoptsEveryDescendantWithTheirJobsInFlight() {
    var state = LineageState()
    let owner = Owner()
    _ = state.leaves(task: child, current: test)
    _ = state.leaves(task: grandchild, current: child)
    _ = state.leaves(task: grandchild, current: grandchild)
    _ = state.leaves(task: stranger, current: nil)
    let adoption = state.adopt(descendantsOf: test, by: owner)
    #expect(Set(adoption.tasks) == [child, grandchild])
    #expect(adoption.inFlight == 3)
    #expect(state.adopter(of: child) === owner)
    #expect(state.adopter(of: stranger) == nil)
    // Adopted once: a second advance adopts nothing again.
    #expect(state.adopt(descendantsOf: test, by: Owner()).tasks.isEmpty)
  }

  /// The test's task is the newest of a task and its ancestors that no task started (the one a
  /// test runner started from a thread, after the clock, as XCTest runs an async test) or that
  /// was seen before the clock was made (the task that made it and started the work).
  @Test func theTestsTaskIsTheNewestStartedOutsideAnyTaskOrSeenBeforeTheClock() {
    var state = LineageState()
    _ = state.leaves(task: test, current: nil)
    _ = state.leaves(task: child, current: test)
    _ = state.leaves(task: grandchild, current: child)
    #expect(state.testTask(of: grandchild, clockMade: 0) == test)
    #expect(state.testTask(of: test, clockMade: 0) == test)
    _ = state.leaves(task: stranger, current: nil)
    #expect(state.testTask(of: stranger, clockMade: 0) == stranger)
    // A task seen before the clock is its own test's task, not the older task above it.
    #expect(state.testTask(of: grandchild, clockMade: state.made) == grandchild)
  }

  /// A long-lived task above the test's (a runner that some thread once resumed) is never
  /// taken for it: the newest match wins. A creator never seen was there before the watch (a
  /// Swift Testing test's task): it is the test's task. With no match, the lineage does not
  /// tell.
  @Test func aRunnerAboveTheTestsTaskIsNeverTakenForIt() {
    var state = LineageState()
    let runner = Self.task(0x500, id: 5)
    _ = state.leaves(task: runner, current: nil)  // started outside any task
    _ = state.leaves(task: test, current: runner)  // seen before the clock
    let clockMade = state.made
    _ = state.leaves(task: child, current: test)
    _ = state.leaves(task: grandchild, current: child)
    #expect(state.testTask(of: grandchild, clockMade: clockMade) == test)
    #expect(state.testTask(of: child, clockMade: clockMade) == test)
    var unrooted = LineageState()
    _ = unrooted.leaves(task: child, current: test)
    _ = unrooted.leaves(task: grandchild, current: child)
    #expect(unrooted.testTask(of: grandchild, clockMade: 0) == test)
    #expect(unrooted.testTask(of: child, clockMade: 0) == test)
    #expect(unrooted.testTask(of: stranger, clockMade: 0) == nil)
    // A creator whose address now holds a newer task has ended: no test's task.
    _ = unrooted.leaves(task: Self.task(0x100, id: 20), current: nil)
    #expect(unrooted.testTask(of: grandchild, clockMade: 0) == nil)
  }

  /// For an auto-advance driver, which waits instead of the test's task, that task's own jobs
  /// in flight are the test's work too; for an advance of the test's task, they are not.
  @Test(arguments: [false, true])
  func theRootsOwnJobsCountOnlyWhenAsked(countingRoot: Bool) {
    var state = LineageState()
    let owner = Owner()
    _ = state.leaves(task: test, current: nil)
    let running = state.leaves(task: test, current: test)!
    let adoption = state.adopt(descendantsOf: test, by: owner, countingRoot: countingRoot)
    #expect(adoption.inFlight == (countingRoot ? 2 : 0))
    #expect((state.finished(running) === owner) == countingRoot)
  }

  /// The jobs the adopter counts are told apart from the others by count: those it does not
  /// count finish first, so it never stops waiting while a counted one may still run.
  @Test func onlyCountedJobsFinishForTheAdopter() {
    var state = LineageState()
    let owner = Owner()
    let first = state.leaves(task: child, current: test)!
    _ = state.adopt(descendantsOf: test, by: owner)
    let second = state.leaves(task: child, current: child)!  // not counted by the adopter
    #expect(state.finished(second) == nil)
    #expect(state.finished(first) === owner)
    #expect(state.entries[child.address]?.jobs.inFlight == 0)
  }

  /// What the advancing task enqueued that is no task's (an actor's processing job, which may
  /// run a task it started on that actor) is waited for; its own jobs are not.
  @Test func theAdvancingTasksOtherJobsAreWaitedForButNotItsOwn() {
    var state = LineageState()
    let owner = Owner()
    _ = state.leaves(task: test, current: nil)
    let processing = state.leaves(task: nil, current: test)!
    #expect(!processing.isTasks)
    let adoption = state.adopt(descendantsOf: test, by: owner)
    #expect(adoption.tasks.isEmpty)
    #expect(adoption.inFlight == 1)
    #expect(state.finished(processing) === owner)
  }

  /// A task that an adopted task starts after the adoption (the adopter's hooks may not have
  /// seen it start) is adopted too, and its executor is told to remember it.
  @Test func aTaskStartedByAnAdoptedTaskIsAdopted() {
    var state = LineageState()
    let owner = Owner()
    _ = state.leaves(task: child, current: test)
    _ = state.adopt(descendantsOf: test, by: owner)
    let job = state.leaves(task: grandchild, current: child)!
    #expect(job.isNewlyAdopted)
    #expect(state.adopter(of: grandchild) === owner)
    #expect(state.leaves(task: stranger, current: nil)?.isNewlyAdopted == false)
  }

  @Test func aTaskAtTheAddressOfAnEndedOneIsANewTask() {
    var state = LineageState()
    _ = state.leaves(task: child, current: test)
    let reused = Self.task(0x200, id: 20)
    _ = state.leaves(task: reused, current: stranger)
    #expect(state.entries[child.address]?.id == 20)
    #expect(state.entries[child.address]?.ancestors == [stranger])
    // The ended task's jobs count for nobody.
    #expect(state.finished(.init(task: child, isTasks: true)) == nil)
    #expect(state.entries[child.address]?.jobs.inFlight == 1)
  }

  @Test func aClosedAdopterIsForgottenAndUnadoptedTasksGoWhenNobodyWatches() {
    var state = LineageState()
    let owner = Owner()
    _ = state.leaves(task: child, current: test)
    let strangersJob = state.leaves(task: stranger, current: nil)!
    _ = state.adopt(descendantsOf: test, by: owner)
    _ = state.removeUnadopted()
    // A task with a job still in flight keeps its count.
    #expect(state.entries.keys.sorted() == [child.address, stranger.address])
    _ = state.finished(strangersJob)
    _ = state.removeUnadopted()
    #expect(state.entries.keys.sorted() == [child.address])
    #expect(state.forget(owner).count == 1)
    #expect(state.adopter(of: child) == nil)
  }

  /// After its adopter closes, a task keeps the count of its jobs in flight: the executor that
  /// adopts it next counts exactly those still running and the ones it sees leave, and one end
  /// too many counts for nobody. (Made anew, the entry would have counted the ends of the
  /// earlier jobs against the new executor, which then stopped waiting early, or crashed on a
  /// count below zero.)
  @Test func aForgottenAdoptersTasksKeepTheirCount() {
    var state = LineageState()
    let (first, second) = (Owner(), Owner())
    let early = state.leaves(task: child, current: test)!
    _ = state.adopt(descendantsOf: test, by: first)
    _ = state.forget(first)
    #expect(state.adopt(descendantsOf: test, by: second).inFlight == 1)
    let late = state.leaves(task: child, current: child)!
    state.count(late)
    #expect(state.finished(early) === second)
    #expect(state.finished(late) === second)
    #expect(state.finished(late) == nil)
    #expect(state.entries[child.address]?.jobs.inFlight == 0)
  }

  /// A job that is no task's counts for the task that enqueued it.
  @Test func aJobOfNoTaskCountsForItsEnqueuer() {
    var state = LineageState()
    #expect(state.leaves(task: nil, current: child)?.task == child)
    #expect(state.leaves(task: nil, current: nil) == nil)
    #expect(state.entries[child.address]?.others.inFlight == 1)
  }

  /// A task that starts its successor, round after round, keeps a bounded list of ancestors,
  /// with the oldest (the test's task) still in it.
  @Test func ancestorsAreBounded() {
    var state = LineageState()
    var creator = test
    for index in 1...1_000 {
      let next = Self.task(0x1000 + index * 16, id: 10 + UInt32(index))
      _ = state.leaves(task: next, current: creator)
      creator = next
    }
    let ancestors = state.entries[creator.address]!.ancestors
    #expect(ancestors.count <= LineageState.maximumAncestors)
    #expect(ancestors.first == test)
  }

  // MARK: Retains

  /// A task whose own job is seen alive is retained (when it can be), once: its adopter takes
  /// the retain to watch it for yields; the root's retain, which nobody needs, is let go of.
  @Test func theAdopterTakesTheRetainsOfTheTasksItAdopts() {
    var state = LineageState()
    #expect(state.leaves(task: test, current: nil, retainable: true)?.retainsTask == true)
    #expect(state.leaves(task: child, current: test, retainable: true)?.retainsTask == true)
    #expect(state.leaves(task: child, current: child, retainable: true)?.retainsTask == false)
    // Not a task's own job, or one that cannot be kept (an `async let` child): no retain.
    #expect(state.leaves(task: nil, current: child, retainable: true)?.retainsTask == false)
    #expect(state.leaves(task: grandchild, current: child)?.retainsTask == false)
    let retained = state.retainedCount
    #expect(retained == 2)
    let adoption = state.adopt(descendantsOf: test, by: Owner())
    #expect(Set(adoption.tasks) == [child, grandchild])
    #expect(adoption.retained == [child.address])
    #expect(adoption.released == [test.address])
    let retainedAfter = state.retainedCount
    #expect(retainedAfter == 0)
    // A task an adopted task starts later goes to the adopter by name, unretained.
    let late = Self.task(0x500, id: 14)
    #expect(state.leaves(task: late, current: child, retainable: true)?.retainsTask == false)
  }

  /// The retains of tasks that have ended are let go of once enough are held, and every retain
  /// when nobody watches any more.
  @Test func retainsAreLetGoOfWhenTheirTasksEndOrNobodyWatches() {
    var state = LineageState()
    let tasks = (0..<64).map { Self.task(0x1000 + $0 * 0x100, id: UInt32(100 + $0)) }
    for task in tasks.dropLast() { _ = state.leaves(task: task, current: nil, retainable: true) }
    let dueEarly = state.needsReleasingEnded
    #expect(!dueEarly)
    _ = state.leaves(task: tasks.last, current: nil, retainable: true)
    let due = state.needsReleasingEnded
    #expect(due)
    let ended = Set(tasks.prefix(40).map(\.address))
    let released = state.releaseEnded { ended.contains($0) }
    #expect(Set(released) == ended)
    let (retained, dueAfter, entries) = (
      state.retainedCount, state.needsReleasingEnded, state.entries.count
    )
    #expect(retained == 24)
    #expect(!dueAfter)
    // Their entries stay, by name.
    #expect(entries == 64)
    let rest = state.removeUnadopted()
    #expect(Set(rest) == Set(tasks.suffix(24).map(\.address)))
    let retainedAtEnd = state.retainedCount
    #expect(retainedAtEnd == 0)
  }

  /// A task's test task, for the hang watch before any executor opened: the newest of it and
  /// its ancestors that a thread started, while the lineage keeps it.
  @Test func theRetainedTestTaskIsTheNewestAncestorAThreadStarted() {
    var state = LineageState()
    _ = state.leaves(task: test, current: nil, retainable: true)  // started by a thread
    _ = state.leaves(task: child, current: test, retainable: true)
    _ = state.leaves(task: grandchild, current: child, retainable: true)
    #expect(state.retainedTestTask(of: grandchild) == test.address)
    #expect(state.retainedTestTask(of: test) == test.address)
    // A task whose ancestors no thread started has none; neither has a task never seen.
    _ = state.leaves(task: stranger, current: Self.task(0x50, id: 1), retainable: true)
    #expect(state.retainedTestTask(of: stranger) == nil)
    #expect(state.retainedTestTask(of: Self.task(0x600, id: 30)) == nil)
    // Once adopted, the test's task is its executor's, and the lineage keeps it no more.
    _ = state.adopt(descendantsOf: test, by: Owner())
    #expect(state.retainedTestTask(of: grandchild) == nil)
  }
}
