/// A task as the runtime knows it: its address and the low 32 bits of its ID. An address alone
/// says little, since an ended task's memory is reused by later tasks; with the ID it names one
/// task.
package struct TaskRef: Hashable, @unchecked Sendable {
  // Invariant: the address is an identity only; nothing reads through it.
  package let address: UnsafeRawPointer
  package let id: UInt32

  package init(address: UnsafeRawPointer, id: UInt32) {
    self.address = address
    self.id = id
  }

  /// Whether this task was created before `other` (IDs count up; compared as a distance, so
  /// that they may wrap around).
  package func isOlder(than other: TaskRef) -> Bool {
    Int32(bitPattern: other.id &- id) > 0
  }
}

/// Who started whom, and which jobs of whom are on their way, while no test executor has claimed
/// them yet: the pure state behind ``TaskLineage``, with no lock and no side effects.
///
/// A test clock made outside any task (an XCTest property, a synchronous `setUp`) learns its
/// test's task only at its first async advance. By then the test may have started tasks whose
/// jobs went to the global executor. So while such a clock waits for its test, every job that
/// no executor takes is recorded here on its way out: a task seen for the first time is a new
/// task, created by the task that enqueued it (the runtime enqueues a new task's first job on its
/// creator's thread), and each job counts as in flight until it has run. At the first advance,
/// the executor opened for the advancing task adopts its descendants (``adopt(descendantsOf:by:)``)
/// and waits for their jobs still in flight.
///
/// A task whose own job is seen here is retained when it can be
/// (``leaves(task:current:retainable:)``), so that its adopter can watch it for a yield it
/// cannot see (`YieldedTasks`): by the first advance, a task that hopped to an actor and left
/// it may be parked in a yield that went past every hook, and only a task kept alive can be
/// read. The retain goes to the adopter, or is let go of once the task has ended
/// (``releaseEnded(isComplete:)``) or nobody watches (``removeUnadopted()``).
///
/// Its owners are plain objects (``Owner``), so that the rules are tested without an executor;
/// not a generic parameter, for the reason ``TestRegistryState`` gives.
package struct LineageState: ~Copyable {
  /// An executor that adopts tasks: any object (see the type's documentation).
  package typealias Owner = AnyObject

  /// Jobs on their way outside any test executor, and how many of them an adopter counts.
  package struct Flight {
    /// Queued or running.
    package var inFlight = 0
    /// How many of those the adopting executor counts as its test's work.
    package var counted = 0
  }

  package struct Entry {
    package var id: UInt32
    /// The task's creators, oldest first, as far as they were seen.
    package var ancestors: [TaskRef]
    /// The task's own jobs.
    package var jobs = Flight()
    /// Jobs it enqueued that are no task's (an actor's processing job, which may run a task
    /// it started on that actor).
    package var others = Flight()
    /// The executor that adopted the task.
    package var adoptedBy: Owner?
    /// Whether the task was first seen by a job of its own enqueued from no task: started
    /// by a thread, not by another task.
    package var isStartedOutsideAnyTask = false
    /// How many entries were made before this one (see ``made``).
    package var madeAt = 0
    /// Whether the lineage holds a retain of the task (see ``leaves(task:current:retainable:)``).
    package var isRetained = false
  }

  /// A job on its way, as ``leaves(task:current:retainable:)`` counted it.
  package struct OutsideJob: Sendable {
    /// The task it counts for.
    package let task: TaskRef
    /// Whether it is that task's own job.
    package let isTasks: Bool
    /// Whether the task is new, and adopted with its creator: its executor must remember it.
    package let isNewlyAdopted: Bool
    /// Whether the lineage now holds a retain of the task, which the caller takes.
    package let retainsTask: Bool

    package init(
      task: TaskRef, isTasks: Bool, isNewlyAdopted: Bool = false, retainsTask: Bool = false
    ) {
      self.task = task
      self.isTasks = isTasks
      self.isNewlyAdopted = isNewlyAdopted
      self.retainsTask = retainsTask
    }
  }

  /// What ``adopt(descendantsOf:by:countingRoot:)`` did.
  package struct Adoption {
    /// The tasks adopted, the owner's members from now on.
    package var tasks: [TaskRef] = []
    /// Those of them the lineage had retained: the retains go to the owner, which watches them.
    package var retained: [UnsafeRawPointer] = []
    /// Retains the lineage no longer needs (the root's), for the caller to drop after unlocking.
    package var released: [UnsafeRawPointer] = []
    /// How many jobs in flight the owner counts until each ``finished(_:)``.
    package var inFlight = 0
  }

  /// The tasks seen, by address. An entry whose ID differs from the task now at its address
  /// belongs to an ended task, and is replaced when that address is seen again.
  package private(set) var entries: [UnsafeRawPointer: Entry] = [:]
  /// The addresses of the entries each owner adopted, so that ``forget(_:)`` reads only its
  /// own. An address whose entry has been made anew since is skipped then.
  // Invariant: every entry adopted by an owner is listed under it here.
  private var adoptedAt: [ObjectIdentifier: [UnsafeRawPointer]] = [:]

  /// How many entries have been made: a clock made outside any task notes it, and tells the
  /// tasks seen before it from those seen since (``testTask(of:clockMade:)``).
  package private(set) var made = 0

  /// How many entries hold a retain.
  package private(set) var retainedCount = 0
  /// The count of retains at which ``needsReleasingEnded`` turns true.
  private var releaseEndedAt = 64

  package init() {}

  /// Whether enough tasks are retained that those that have ended should be let go of
  /// (``releaseEnded(isComplete:)``), so that a long watch does not keep every task it saw.
  package var needsReleasingEnded: Bool { retainedCount >= releaseEndedAt }

  /// A job leaves for outside any test executor: `task` if the job is a task's, else the task
  /// that enqueued it (`current`). A task not seen before is new, and `current` created it
  /// (if older: a creator is always older than what it creates). Returns how the job counts,
  /// to hand to ``finished(_:)`` when it has run.
  ///
  /// - Parameter retainable: Whether `task` (the job's own, alive now) can be kept by a retain;
  ///   if so, a new entry not adopted at once holds one, which the caller takes
  ///   (``OutsideJob/retainsTask``).
  package mutating func leaves(
    task: TaskRef?, current: TaskRef?, retainable: Bool = false
  ) -> OutsideJob? {
    guard let owner = task ?? current else { return nil }
    var isNew = false
    var retains = false
    if entries[owner.address]?.id != owner.id {
      let ancestors = task == nil ? [] : ancestors(ofNew: owner, by: current)
      // A task started by an adopted task, after the adoption, is adopted too: its creator's
      // executor may not have seen it start.
      var adopter: Owner?
      if let parent = ancestors.last { adopter = self.adopter(of: parent) }
      // (An entry replaced here held no retain: a retained task's address is not reused.)
      retains = task != nil && retainable && adopter == nil
      entries[owner.address] = Entry(
        id: owner.id, ancestors: ancestors, adoptedBy: adopter,
        isStartedOutsideAnyTask: task != nil && current == nil, madeAt: made,
        isRetained: retains)
      made += 1
      if retains { retainedCount += 1 }
      if let adopter { adoptedAt[ObjectIdentifier(adopter), default: []].append(owner.address) }
      isNew = adopter != nil
    }
    let job = OutsideJob(
      task: owner, isTasks: task != nil, isNewlyAdopted: isNew, retainsTask: retains)
    update(job) { $0.inFlight += 1 }
    return job
  }

  /// The executor that adopted `task`, if any.
  package func adopter(of task: TaskRef) -> Owner? {
    guard let entry = entries[task.address], entry.id == task.id else { return nil }
    return entry.adoptedBy
  }

  /// Whether `task` was seen, and no task of this process started it: a test's own task, which
  /// the test runner started from a thread of its own (as XCTest starts an async test method).
  package func isStartedOutsideAnyTask(_ task: TaskRef) -> Bool {
    guard let entry = entries[task.address], entry.id == task.id else { return false }
    return entry.isStartedOutsideAnyTask
  }

  /// The task of the test that `task` belongs to, for a clock made outside any task when
  /// `clockMade` entries had been made, as far as the lineage tells: the newest of `task` and
  /// its ancestors that either no task started (``isStartedOutsideAnyTask(_:)``: the task a
  /// test runner started from a thread, as XCTest starts an async test method, after the
  /// clock) or was seen before the clock was made (the task that made the clock and then
  /// started the work). The newest, so that a long-lived task above it (a runner, a task
  /// running tests in parallel) is never taken for it. Nil if none is.
  ///
  /// An ancestor never seen counts as seen before the clock: since the watch began, every new
  /// task's first job that no executor took was seen, so one never seen existed before it (a
  /// Swift Testing test's task, whose first job ran before any clock watched). An ancestor
  /// whose address now holds another task has ended, and is no test's task any more.
  package func testTask(of task: TaskRef, clockMade: Int) -> TaskRef? {
    guard let entry = entries[task.address], entry.id == task.id else { return nil }
    for candidate in [task] + entry.ancestors.reversed() {
      guard let seen = entries[candidate.address] else { return candidate }
      guard seen.id == candidate.id else { continue }
      if seen.isStartedOutsideAnyTask || seen.madeAt < clockMade { return candidate }
    }
    return nil
  }

  /// The task a test runner started from a thread that `task` descends from (or is), if the
  /// lineage holds a retain of it: the newest of `task` and its ancestors that no task started
  /// (``isStartedOutsideAnyTask(_:)``). Nil if there is none, or it is not retained (it was
  /// adopted, or it has ended), or `task` is not known.
  package func retainedTestTask(of task: TaskRef) -> UnsafeRawPointer? {
    guard let entry = entries[task.address], entry.id == task.id else { return nil }
    for candidate in [task] + entry.ancestors.reversed() {
      guard let seen = entries[candidate.address], seen.id == candidate.id else { continue }
      if seen.isStartedOutsideAnyTask { return seen.isRetained ? candidate.address : nil }
    }
    return nil
  }

  /// The adopter of the job's task counts `job`, which just left, as its test's work.
  package mutating func count(_ job: OutsideJob) {
    update(job) { $0.counted += 1 }
  }

  /// A job that ``leaves(task:current:retainable:)`` counted has run; returns the executor that counted
  /// it as its test's work, which must count it as finished too. (Jobs of one kind of one task
  /// are told apart by count only; the ones no executor counts are taken first, so an executor
  /// never stops waiting early.)
  package mutating func finished(_ job: OutsideJob) -> Owner? {
    var wasCounted = false
    update(job) { flight in
      guard flight.inFlight > 0 else { return }
      flight.inFlight -= 1
      guard flight.counted > flight.inFlight else { return }
      flight.counted -= 1
      wasCounted = true
    }
    return wasCounted ? adopter(of: job.task) : nil
  }

  /// `owner`, opened for `root`, adopts every task `root` started, directly or through its
  /// descendants, that no executor has adopted yet. Returns them, and how many jobs are in
  /// flight that the owner counts until each ``finished(_:)``: every job of the tasks it adopts,
  /// and those of `root` that are no task's. `root`'s own jobs count only if `countingRoot`:
  /// not when `root` advances, since it is the task that waits for the work then.
  ///
  /// The retains of the tasks adopted go to `owner` (``Adoption/retained``); the root's is let
  /// go of.
  package mutating func adopt(
    descendantsOf root: TaskRef, by owner: Owner, countingRoot: Bool = false
  ) -> Adoption {
    var adoption = Adoption()
    var adopted: [UnsafeRawPointer] = []
    defer {
      if !adopted.isEmpty { adoptedAt[ObjectIdentifier(owner), default: []] += adopted }
    }
    for (address, entry) in entries where entry.adoptedBy == nil && entry.ancestors.contains(root) {
      adopted.append(address)
      entries[address]!.adoptedBy = owner
      entries[address]!.jobs.counted = entry.jobs.inFlight
      entries[address]!.others.counted = entry.others.inFlight
      adoption.tasks.append(TaskRef(address: address, id: entry.id))
      adoption.inFlight += entry.jobs.inFlight + entry.others.inFlight
      if entry.isRetained {
        adoption.retained.append(address)
        dropRetain(at: address)
      }
    }
    if let entry = entries[root.address], entry.id == root.id, entry.adoptedBy == nil {
      adopted.append(root.address)
      entries[root.address]!.adoptedBy = owner
      entries[root.address]!.others.counted = entry.others.inFlight
      adoption.inFlight += entry.others.inFlight
      if countingRoot {
        entries[root.address]!.jobs.counted = entry.jobs.inFlight
        adoption.inFlight += entry.jobs.inFlight
      }
      if entry.isRetained {
        adoption.released.append(root.address)
        dropRetain(at: root.address)
      }
    }
    return adoption
  }

  /// Lets go of the retains of the tasks that have ended, as `isComplete` reads them (each a
  /// retained task, alive): answers them, for the caller to release after unlocking. Their
  /// entries stay, by name.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entries.
  package mutating func releaseEnded(
    isComplete: (UnsafeRawPointer) -> Bool
  ) -> [UnsafeRawPointer] {
    var ended: [UnsafeRawPointer] = []
    for (address, entry) in entries where entry.isRetained && isComplete(address) {
      ended.append(address)
      dropRetain(at: address)
    }
    releaseEndedAt = max(64, retainedCount * 2)
    return ended
  }

  private mutating func dropRetain(at address: UnsafeRawPointer) {
    entries[address]!.isRetained = false
    retainedCount -= 1
  }

  private mutating func update(_ job: OutsideJob, _ body: (inout Flight) -> Void) {
    guard entries[job.task.address]?.id == job.task.id else { return }
    if job.isTasks {
      body(&entries[job.task.address]!.jobs)
    } else {
      body(&entries[job.task.address]!.others)
    }
  }

  /// Forgets that `owner` adopted its tasks (it has closed): their jobs count for nobody any
  /// more. The entries stay, with their jobs in flight: a task's entry made anew while its
  /// earlier jobs still run would count their ends against its new ones. Returns the
  /// references to `owner` it dropped, to be released by the caller.
  ///
  /// - Complexity: O(*a*), where *a* is the number of entries `owner` adopted.
  package mutating func forget(_ owner: Owner) -> [Owner] {
    // An executor opened by a clock made in its test adopts nothing: the usual close.
    guard !adoptedAt.isEmpty else { return [] }
    var released: [Owner] = []
    for address in adoptedAt.removeValue(forKey: ObjectIdentifier(owner)) ?? []
    where entries[address]?.adoptedBy === owner {
      released.append(owner)
      entries[address]!.adoptedBy = nil
      entries[address]!.jobs.counted = 0
      entries[address]!.others.counted = 0
    }
    return released
  }

  /// Forgets the tasks nobody adopted and that have no job in flight (nothing watches for a
  /// test any more; a task with jobs still running keeps its count, for the same reason as in
  /// ``forget(_:)``), and lets go of every retain the lineage holds: answers those tasks, for
  /// the caller to release after unlocking.
  package mutating func removeUnadopted() -> [UnsafeRawPointer] {
    var released: [UnsafeRawPointer] = []
    if retainedCount > 0 {
      for (address, entry) in entries where entry.isRetained {
        released.append(address)
        dropRetain(at: address)
      }
    }
    // Asked at every executor's close while nobody watches, when there is usually nothing: a
    // filter would build a new dictionary even then.
    guard !entries.isEmpty else { return released }
    entries = entries.filter {
      $0.value.adoptedBy != nil || $0.value.jobs.inFlight > 0 || $0.value.others.inFlight > 0
    }
    return released
  }

  private func ancestors(ofNew task: TaskRef, by creator: TaskRef?) -> [TaskRef] {
    guard let creator, creator.isOlder(than: task) else { return [] }
    guard let entry = entries[creator.address], entry.id == creator.id else { return [creator] }
    var ancestors = entry.ancestors + [creator]
    // A task that starts its successor, round after round, would grow the list without end:
    // keep the oldest (where a test's task stands) and the newest.
    if ancestors.count > Self.maximumAncestors {
      ancestors.removeSubrange(
        Self.maximumAncestors / 2..<ancestors.count - Self.maximumAncestors / 2)
    }
    return ancestors
  }

  /// How many ancestors an entry keeps at most.
  package static var maximumAncestors: Int { 64 }
}
