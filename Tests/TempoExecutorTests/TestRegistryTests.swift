import Dispatch
import TempoClocks
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// The registry of test executors, driven directly: the hooks are installed exactly while
/// something needs them, a task is an executor's only while that executor is open and it was
/// the last to meet the task, and once every executor has closed and every watch has ended,
/// nothing of any test is kept.
@Suite struct TestRegistryTests {
  final class Executor {}

  let task = TaskRef(address: UnsafeRawPointer(bitPattern: 0x1000)!, id: 1)

  @Test func theHooksAreInstalledForTheFirstUserAndRestoredAfterTheLast() {
    var registry = TestRegistryState()
    let (first, second) = (Executor(), Executor())
    #expect(registry.opened(first) == .install)
    #expect(registry.watch().hooks == .unchanged)
    #expect(registry.opened(second) == .keepInstalled)
    #expect(registry.closed(first).hooks == .unchanged)
    #expect(registry.unwatch().hooks == .unchanged)
    #expect(registry.closed(second).hooks == .restore)
    #expect(registry.watch().hooks == .install)
    #expect(registry.unwatch().hooks == .restore)
    #expect(registry.closed(second).hooks == .unchanged)  // closing twice changes nothing
  }

  /// A deferred executor needs the hooks that see the job which opens it; the registry finds
  /// it for its test's task, and forgets it when it opens or is let go.
  @Test func aDeferredExecutorNeedsTheHooksUntilItIsForgotten() {
    var registry = TestRegistryState()
    let (deferral, executor) = (Executor(), Executor())
    #expect(registry.deferOpening(of: task, to: deferral) == .install)
    #expect(registry.deferral(at: task.address, id: task.id) === deferral)
    #expect(registry.deferral(at: task.address, id: 2) == nil)  // another task at that address
    #expect(registry.opened(executor) == .keepInstalled)
    #expect(registry.forgetDeferral(at: task.address, Executor()) == .unchanged)  // not its own
    #expect(registry.deferral(at: task.address, id: task.id) === deferral)
    #expect(registry.forgetDeferral(at: task.address, deferral) == .unchanged)  // still open
    #expect(registry.deferral(at: task.address, id: task.id) == nil)
    #expect(registry.closed(executor).hooks == .restore)
    _ = registry.deferOpening(of: task, to: deferral)
    #expect(registry.forgetDeferral(at: task.address, deferral) == .restore)
  }

  @Test func aTaskIsAMemberOnlyOfAnOpenExecutorThatMetIt() {
    var registry = TestRegistryState()
    let (first, second) = (Executor(), Executor())
    #expect(!registry.note(task, memberOf: first).isNew)  // not open: not remembered
    #expect(registry.member(at: task.address, id: task.id) == nil)
    _ = registry.opened(first)
    #expect(registry.note(task, memberOf: first).isNew)
    #expect(!registry.note(task, memberOf: first).isNew)  // met already
    #expect(registry.member(at: task.address, id: task.id) === first)
    #expect(registry.member(at: task.address, id: 2) == nil)  // another task at that address
    _ = registry.opened(second)
    #expect(registry.note(task, memberOf: second).isNew)  // the last to meet it
    #expect(registry.member(at: task.address, id: task.id) === second)
    _ = registry.closed(second)
    #expect(registry.member(at: task.address, id: task.id) == nil)
    #expect(registry.memberCount == 0)
  }

  /// Closing forgets the closing executor's members only: while another is open, its members
  /// stay; the last to close leaves none (cleared in place, keeping the table's capacity).
  @Test func closingForgetsOnlyTheClosingExecutorsMembers() {
    var registry = TestRegistryState()
    let (first, second) = (Executor(), Executor())
    let other = TaskRef(address: UnsafeRawPointer(bitPattern: 0x3000)!, id: 3)
    _ = registry.opened(first)
    _ = registry.opened(second)
    _ = registry.note(task, memberOf: first)
    _ = registry.note(other, memberOf: second)
    _ = registry.closed(first)
    #expect(registry.member(at: task.address, id: task.id) == nil)
    #expect(registry.member(at: other.address, id: other.id) === second)
    #expect(registry.memberCount == 1)
    _ = registry.closed(second)
    #expect(registry.memberCount == 0)
    _ = registry.opened(first)
    #expect(registry.note(other, memberOf: first).isNew)
    #expect(registry.member(at: other.address, id: other.id) === first)
  }

  /// An address is reused only once its task has ended: a task older than the one remembered
  /// there (named by an adoption from the lineage, say) does not replace it.
  @Test func anEndedTaskNeverHidesTheLiveTaskAtItsAddress() {
    var registry = TestRegistryState()
    let (own, other) = (Executor(), Executor())
    _ = registry.opened(own)
    _ = registry.opened(other)
    let live = TaskRef(address: task.address, id: 7)
    let ended = TaskRef(address: task.address, id: 3)
    _ = registry.note(live, memberOf: own)
    #expect(!registry.note(ended, memberOf: other).isNew)
    #expect(registry.member(at: live.address, id: live.id) === own)
    // A newer task at the address replaces the one that ended.
    let next = TaskRef(address: task.address, id: 9)
    #expect(registry.note(next, memberOf: other).isNew)
    #expect(registry.member(at: next.address, id: next.id) === other)
    #expect(registry.member(at: live.address, id: live.id) == nil)
  }

  @Test func anExecutorAdoptsWhatItsTaskStartedWhileWatchedAndCountsTheirJobs() {
    var registry = TestRegistryState()
    let executor = Executor()
    let child = TaskRef(address: UnsafeRawPointer(bitPattern: 0x2000)!, id: 2)
    _ = registry.watch()
    // The test's task starts a child, whose first job leaves for outside any executor.
    let (job, adopter) = registry.leaves(task: child, current: task)!
    #expect(adopter == nil)
    _ = registry.opened(executor)
    let adoption = registry.adopt(descendantsOf: task, by: executor, countingRoot: false)
    #expect(adoption.inFlight == 1)
    #expect(registry.member(at: child.address, id: child.id) === executor)
    #expect(registry.finished(job) === executor)  // counted there until it has run
    _ = registry.closed(executor)
    _ = registry.unwatch()
    #expect(registry.lineage.entries.isEmpty)
  }

  /// A process that ran many tests keeps nothing of them once their clocks are gone: each
  /// executor closed, no hook installed, no member or lineage entry left. (In a process of its
  /// own, so that no other test's executor is open meanwhile.)
  @Test func aProcessKeepsNothingOfTheTestsItRan() async {
    await #expect(processExitsWith: .success) {
      for _ in 0..<200 {
        let clock = TestClock()
        let task = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.advance(by: .seconds(1))
        let ended = (try? await task.value) != nil
        precondition(ended, "the sleep did not end at 1 s")
      }
      // A clock made outside any task, as an XCTest property is.
      for _ in 0..<200 {
        let clock = DispatchQueue.global().sync { TestClock() }
        let task = Task { try await clock.sleep(for: .seconds(1)) }
        await Task { await clock.advance(by: .seconds(1)) }.value
        let ended = (try? await task.value) != nil
        precondition(ended, "the sleep did not end at 1 s")
      }
      precondition(!TestRegistry.isInUse, "an executor is still open, or a clock watches")
      precondition(TestRegistry.entryCount == 0, "\(TestRegistry.entryCount) entries kept")
    }
  }

  /// Random sequences of every event against a model of the rules; at the end, with every
  /// executor closed, every watch ended and every job run, the registry keeps nothing.
  @Test(arguments: 0..<20)
  func randomEventsKeepTheRulesAndLeaveNothingBehind(seed: UInt64) {
    var random = SplitMix(state: seed)
    var registry = TestRegistryState()
    let executors = (0..<3).map { _ in Executor() }
    let tasks = (0..<6).map {
      TaskRef(address: UnsafeRawPointer(bitPattern: 0x1000 * ($0 + 1))!, id: UInt32($0 + 1))
    }
    var open: Set<ObjectIdentifier> = []
    var met: [Int: Executor] = [:]  // the model's members: task index to executor
    var watchers = 0
    var installed = false
    var jobs: [LineageState.OutsideJob] = []

    func apply(_ hooks: TestRegistryState.Hooks) {
      switch hooks {
      case .install:
        #expect(!installed)
        installed = true
      case .restore:
        #expect(installed)
        installed = false
      case .keepInstalled: #expect(installed)
      case .unchanged: break
      }
    }

    for step in 0..<3_000 {
      let finishing = step >= 2_500
      let executorIndex = Int.random(in: 0..<3, using: &random)
      let executor = executors[executorIndex]
      let id = ObjectIdentifier(executor)
      let taskIndex = Int.random(in: 0..<tasks.count, using: &random)
      let task = tasks[taskIndex]
      switch finishing ? 9 : Int.random(in: 0..<9, using: &random) {
      case 0 where !open.contains(id):
        apply(registry.opened(executor))
        open.insert(id)
      case 1:
        apply(registry.closed(executor).hooks)
        open.remove(id)
        met = met.filter { $0.value !== executor }
      case 2:
        apply(registry.watch().hooks)
        watchers += 1
      case 3 where watchers > 0:
        apply(registry.unwatch().hooks)
        watchers -= 1
      case 4:
        _ = registry.note(task, memberOf: executor)
        if open.contains(id) { met[taskIndex] = executor }
      case 5:
        let creator = Bool.random(using: &random) ? tasks[max(0, taskIndex - 1)] : nil
        if let (job, adopter) = registry.leaves(task: task, current: creator) {
          jobs.append(job)
          if let adopter {
            let replaced = registry.countedOutside(job, by: adopter, counts: true)
            _ = replaced
            if job.isNewlyAdopted, open.contains(ObjectIdentifier(adopter)) {
              met[taskIndex] = adopter as? Executor
            }
          }
        }
      case 6 where !jobs.isEmpty:
        _ = registry.finished(jobs.remove(at: Int.random(in: 0..<jobs.count, using: &random)))
      case 7 where open.contains(id):
        // The tasks it adopts, but for the root itself, become its members.
        let unadopted = Set(
          registry.lineage.entries.filter { $0.value.adoptedBy == nil }.map(\.key))
        _ = registry.adopt(descendantsOf: task, by: executor, countingRoot: false)
        for (index, other) in tasks.enumerated()
        where other != task && unadopted.contains(other.address)
          && registry.lineage.adopter(of: other) === executor
        {
          met[index] = executor
        }
      case 9:
        // Wind everything down: jobs run, watches end, executors close (an executor may
        // outlive the last watch: a test's clock made outside any task goes before its
        // executor's last job has run).
        if let job = jobs.popLast() {
          _ = registry.finished(job)
        } else if watchers > 0 {
          apply(registry.unwatch().hooks)
          watchers -= 1
        } else if let closing = executors.first(where: { open.contains(ObjectIdentifier($0)) }) {
          apply(registry.closed(closing).hooks)
          open.remove(ObjectIdentifier(closing))
          met = met.filter { $0.value !== closing }
        }
      default:
        break
      }
      #expect(installed == registry.needsHooks)
      #expect(registry.needsHooks == (!open.isEmpty || watchers > 0))
      for (index, task) in tasks.enumerated() {
        #expect(registry.member(at: task.address, id: task.id) === met[index])
        // A closed executor adopts nothing (its close forgot each task it adopted).
        if let adopter = registry.lineage.adopter(of: task) {
          #expect(open.contains(ObjectIdentifier(adopter)))
        }
      }
    }
    #expect(open.isEmpty && watchers == 0 && jobs.isEmpty)
    #expect(registry.memberCount == 0)
    #expect(registry.lineage.entries.isEmpty)
    #expect(!installed)
  }
}
