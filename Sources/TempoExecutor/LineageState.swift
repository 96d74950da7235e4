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
/// `Owner` is the executor type (generic, so that the rules are tested without one).
package struct LineageState<Owner: AnyObject> {
  package struct Entry {
    package var id: UInt32
    /// The task's creators, oldest first, as far as they were seen.
    package var ancestors: [TaskRef]
    /// Jobs of this task (or jobs it enqueued that are no task's) queued or running outside any
    /// test executor.
    package var inFlight = 0
    /// How many of those the adopting executor counts as its test's work.
    package var counted = 0
    /// The executor that adopted the task.
    package var adoptedBy: Owner?
  }

  /// The tasks seen, by address. An entry whose ID differs from the task now at its address
  /// belongs to an ended task, and is replaced when that address is seen again.
  package private(set) var entries: [UnsafeRawPointer: Entry] = [:]

  package init() {}

  /// A job leaves for outside any test executor: `task` if the job is a task's, else the task
  /// that enqueued it (`current`). A task not seen before is new, and `current` created it
  /// (if older: a creator is always older than what it creates). Returns the task the job
  /// counts for, to hand to ``finished(_:)`` when it has run.
  package mutating func leaves(task: TaskRef?, current: TaskRef?) -> TaskRef? {
    guard let counted = task ?? current else { return nil }
    if entries[counted.address]?.id != counted.id {
      let ancestors = task == nil ? [] : ancestors(ofNew: counted, by: current)
      entries[counted.address] = Entry(id: counted.id, ancestors: ancestors)
    }
    entries[counted.address]!.inFlight += 1
    return counted
  }

  /// The executor that adopted `task`, if any.
  package func adopter(of task: TaskRef) -> Owner? {
    guard let entry = entries[task.address], entry.id == task.id else { return nil }
    return entry.adoptedBy
  }

  /// The adopter of `task` counts the job that just left (``leaves(task:current:)``) as its
  /// test's work.
  package mutating func countLastJob(of task: TaskRef) {
    guard entries[task.address]?.id == task.id else { return }
    entries[task.address]!.counted += 1
  }

  /// A job that ``leaves(task:current:)`` counted for `task` has run; returns the executor
  /// that counted it as its test's work, which must count it as finished too. (The jobs of a
  /// task are told apart by count only; the ones no executor counts are taken first, so an
  /// executor never stops waiting early.)
  package mutating func finished(_ task: TaskRef) -> Owner? {
    guard var entry = entries[task.address], entry.id == task.id else { return nil }
    defer { entries[task.address] = entry }
    entry.inFlight -= 1
    guard entry.counted > entry.inFlight else { return nil }
    entry.counted -= 1
    return entry.adoptedBy
  }

  /// `owner` adopts every task `root` started, directly or through its descendants, that no
  /// executor has adopted yet. Returns them, and how many of their jobs are in flight (the
  /// owner counts them until each ``finished(_:)``).
  package mutating func adopt(
    descendantsOf root: TaskRef, by owner: Owner
  ) -> (tasks: [TaskRef], inFlight: Int) {
    var tasks: [TaskRef] = []
    var inFlight = 0
    for (address, entry) in entries where entry.adoptedBy == nil && entry.ancestors.contains(root) {
      entries[address]!.adoptedBy = owner
      entries[address]!.counted = entry.inFlight
      tasks.append(TaskRef(address: address, id: entry.id))
      inFlight += entry.inFlight
    }
    return (tasks, inFlight)
  }

  /// Forgets the tasks `owner` adopted (it has closed); returns their entries, to be released
  /// by the caller.
  package mutating func forget(_ owner: Owner) -> [Entry] {
    var forgotten: [Entry] = []
    for (address, entry) in entries where entry.adoptedBy === owner {
      forgotten.append(entries.removeValue(forKey: address)!)
    }
    return forgotten
  }

  /// Forgets the tasks nobody adopted (nothing watches for a test any more).
  package mutating func removeUnadopted() {
    entries = entries.filter { $0.value.adoptedBy != nil }
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
