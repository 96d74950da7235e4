/// Everything process-wide that the test executors share, and every rule that changes it: a
/// pure value with no lock and no side effects, behind ``TestRegistry``'s one lock.
///
/// It holds the executors open now, the tasks each has met (by address, with the task's ID), how
/// many clocks made outside any task watch for their test, and the lineage those watch
/// (``LineageState``: who started whom, and whose jobs are on their way). Its events answer
/// whether the runtime's hooks must be installed or put back, and what to release after
/// unlocking; its queries answer whose a task is.
///
/// Its executors are plain objects (``Executor``), so that the rules are tested without a test
/// executor; ``TestRegistry`` stores only `TestExecutor`s. The state is not generic over them: a
/// debug build runs generic code unspecialized, looking up the metadata of every generic type
/// it touches, and this state is read on the path of many jobs.
///
/// ```swift
/// var registry = TestRegistryState()
/// if registry.opened(executor) == .install { /* install the hooks */ }
/// registry.note(task, memberOf: executor)
/// registry.member(at: task.address, id: task.id)   // executor
/// ```
package struct TestRegistryState: ~Copyable {
  /// An executor: any object (see the type's documentation).
  package typealias Executor = AnyObject

  /// A task an executor has met.
  package struct Member {
    package let executor: Executor
    package let taskID: UInt32
    /// Whether the executor watches the task for yields (see `YieldedTasks`): it met the task
    /// alive. A task adopted from the lineage, met by name only, is not watched until one of
    /// its jobs reaches the executor.
    package var isWatched = true
  }

  /// What the runtime's hooks need after an event.
  package enum Hooks: Equatable {
    /// Nothing changes.
    case unchanged
    /// The first executor opened, or the first watch began: install them.
    case install
    /// Another executor opened while they are installed: put Tempo's global hook back if
    /// someone removed it.
    case keepInstalled
    /// Nothing needs them any more: put back what was there before.
    case restore
  }

  /// The executors open now.
  package private(set) var open: [ObjectIdentifier: Executor] = [:]
  /// The tasks each open executor has met, by address. An entry whose ID differs from the task
  /// now at that address belongs to an ended task, and says nothing.
  private var members: [UnsafeRawPointer: Member] = [:]
  /// The addresses each open executor was noted at in ``members``, so that its close removes
  /// its own entries without reading everyone's. An address whose entry another executor has
  /// taken since is skipped then.
  // Invariant: every entry of `members` is listed under its executor here.
  private var addressesOf: [ObjectIdentifier: [UnsafeRawPointer]] = [:]
  /// How many clocks, schedulers and timelines made outside any task watch for their test.
  package internal(set) var watchers = 0
  /// Who started whom while anyone watches.
  package internal(set) var lineage = LineageState()
  /// The tests whose executor is deferred until they need one (`DeferredTest`), by the address
  /// of their task.
  var deferred: [UnsafeRawPointer: Deferred] = [:]

  package init() {}

  /// Whether anything needs the hooks: an open executor, a watch, or a deferred executor.
  package var needsHooks: Bool { !open.isEmpty || watchers > 0 || !deferred.isEmpty }

  /// How many tasks are remembered as members of open executors (for tests).
  package var memberCount: Int { members.count }

  // MARK: Executors

  /// `executor` opens.
  package mutating func opened(_ executor: Executor) -> Hooks {
    let hooks: Hooks = needsHooks ? .keepInstalled : .install
    precondition(
      open.updateValue(executor, forKey: ObjectIdentifier(executor)) == nil,
      "the test registry: an executor opened twice")
    return hooks
  }

  /// What an event removed, for the caller to release after unlocking.
  package struct Released {
    var members: [Member] = []
    var adopters: [Executor] = []
    /// Tasks the lineage retained (``LineageState/removeUnadopted()``): `tempo_task_release`.
    package var tasks: [UnsafeRawPointer] = []
  }

  /// `executor` closes: its members and the tasks it adopted are forgotten. Answers what the
  /// hooks need, and the references to release after unlocking.
  ///
  /// - Complexity: O(*m* + *a*), where *m* is the number of times the executor's tasks were
  ///   noted and *a* the number of tasks it adopted: the other executors' entries are not read.
  ///   (It runs under the registry's lock, which every job routed by the global hook takes.)
  package mutating func closed(_ executor: Executor) -> (hooks: Hooks, released: Released) {
    let id = ObjectIdentifier(executor)
    guard open.removeValue(forKey: id) != nil else { return (.unchanged, Released()) }
    let addresses = addressesOf.removeValue(forKey: id) ?? []
    var dropped: [Member] = []
    if open.isEmpty {
      // Every member left is this executor's (only open executors have members), and this
      // executor outlives the call (its caller holds it), so dropping them here releases
      // nothing: cleared in place, the table keeps its capacity, and the next test's executor
      // notes its tasks with no allocation.
      members.removeAll(keepingCapacity: true)
    } else {
      dropped.reserveCapacity(addresses.count)
      for address in addresses where members[address]?.executor === executor {
        dropped.append(members.removeValue(forKey: address)!)
      }
    }
    let adopted = lineage.forget(executor)
    // Its tasks' entries go too once nobody watches (else the last watch's end removes them).
    let tasks = watchers == 0 ? lineage.removeUnadopted() : []
    return (
      needsHooks ? .unchanged : .restore,
      Released(members: dropped, adopters: adopted, tasks: tasks)
    )
  }

  // MARK: Members

  /// What ``note(_:memberOf:)`` did.
  package struct Noted {
    /// The entry replaced, to release after unlocking.
    package var replaced: Member?
    /// Whether the executor had not met this task alive before (the last to meet it was
    /// another executor, or none, or it was met by name only): it is to be watched for yields.
    package var isNew: Bool
  }

  /// Remembers `task` as one of `executor`'s, if it is open.
  ///
  /// A task older than the one remembered at its address has ended (an address is reused only
  /// once its task is gone), so it replaces nothing: an adoption that names such a task from
  /// the lineage must not make the live task at that address look unknown, which would send
  /// its next job to whichever executor takes unknown work.
  ///
  /// - Parameter watches: Whether the executor watches the task for yields: it met it alive
  ///   and can keep it (see `YieldedTasks`).
  package mutating func note(
    _ task: TaskRef, memberOf executor: Executor, watches: Bool = true
  ) -> Noted {
    guard open[ObjectIdentifier(executor)] != nil else { return Noted(replaced: nil, isNew: false) }
    if let existing = members[task.address] {
      // Met already, and watched if it is to be: nothing changes. (The usual case, on the path
      // of many jobs: no write.)
      if existing.taskID == task.id, existing.executor === executor,
        existing.isWatched || !watches
      {
        return Noted(replaced: nil, isNew: false)
      }
      if existing.taskID != task.id,
        task.isOlder(than: TaskRef(address: task.address, id: existing.taskID))
      {
        return Noted(replaced: nil, isNew: false)
      }
    }
    let replaced = members.updateValue(
      Member(executor: executor, taskID: task.id, isWatched: watches), forKey: task.address)
    if replaced?.executor !== executor {
      addressesOf[ObjectIdentifier(executor), default: []].append(task.address)
    }
    // By hand, with no `Optional.map`: a debug build calls it generically, at every note.
    var wasWatched = false
    if let replaced {
      wasWatched =
        replaced.executor === executor && replaced.taskID == task.id && replaced.isWatched
    }
    return Noted(replaced: replaced, isNew: watches && !wasWatched)
  }

  /// Marks `task`, a member of `executor` that it does not watch yet (one adopted from the
  /// lineage), as watched; true if it was not, and the executor is to watch it now.
  package mutating func watch(_ task: TaskRef, by executor: Executor) -> Bool {
    guard var member = members[task.address], member.executor === executor,
      member.taskID == task.id, !member.isWatched
    else { return false }
    member.isWatched = true
    members[task.address] = member
    return true
  }

  /// The open executor that has met the task with `id` at `address`, if any.
  package func member(at address: UnsafeRawPointer, id: UInt32) -> Executor? {
    guard let member = members[address], member.taskID == id else { return nil }
    return member.executor
  }
}
