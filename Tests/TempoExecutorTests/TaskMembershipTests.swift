import Testing

@testable import TempoExecutor

/// Which test a task belongs to is remembered by the task's address and ID: a task that reuses
/// the memory of an ended task of another test is not taken for it.
@Suite struct TaskMembershipTests {
  /// A job header as the runtime lays it out: two words of object header, two the scheduler
  /// owns, then the 32 bits of flags (kind 0, a task) and the 32 low bits of the task's ID.
  final class FakeTask {
    let header = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
    init(id: UInt32) {
      header.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
      self.id = id
    }
    var id: UInt32 {
      get { header.load(fromByteOffset: 36, as: UInt32.self) }
      set { header.storeBytes(of: newValue, toByteOffset: 36, as: UInt32.self) }
    }
    var pointer: UnsafeRawPointer { UnsafeRawPointer(header) }
    deinit { header.deallocate() }
  }

  @Test func theHeaderGivesTheTasksKindAndID() async {
    let fake = FakeTask(id: 41)
    #expect(JobIdentity.isTask(fake.pointer))
    #expect(JobIdentity.taskID(fake.pointer) == 41)
    let id = withUnsafeCurrentTask { task in
      task.map { JobIdentity.taskID(unsafeBitCast($0, to: UnsafeRawPointer.self)) }
    }
    let child = await Task {
      withUnsafeCurrentTask { task in
        task.map { JobIdentity.taskID(unsafeBitCast($0, to: UnsafeRawPointer.self)) }
      }
    }.value
    #expect(id != nil && child != nil && id != child)
  }

  @Test func aTaskAtTheAddressOfAnEndedMemberIsNoMember() async {
    guard #available(TempoTestExecutor 1.0, *) else {
      return
    }
    let executor = TestExecutor()
    defer { executor.close() }
    let task = FakeTask(id: 7)
    TestRegistry.note(TaskRef(task.pointer), memberOf: executor)
    #expect(TestRegistry.executorThatMet(TaskRef(task.pointer)) === executor)
    task.id = 8  // the task ended, and a new one lives at its address
    #expect(TestRegistry.executorThatMet(TaskRef(task.pointer)) == nil)
  }

  /// An executor remembers the last four tasks it noted, by address and ID, while the
  /// registry's membership is unchanged: a fifth replaces the one noted longest ago, a task at a
  /// noted address with another ID is not taken for it, and a change of membership forgets them
  /// all.
  @Test func anExecutorRemembersTheLastFourTasksItNoted() {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let tasks = (1...5).map {
      TaskRef(address: UnsafeRawPointer(bitPattern: $0 * 0x100)!, id: UInt32($0))
    }
    var noted = LastNoted()
    for task in tasks.prefix(4) { noted.noted(task, membershipChanges: 7) }
    #expect(tasks.prefix(4).allSatisfy { noted.isCurrent($0, membershipChanges: 7) })
    noted.noted(tasks[0], membershipChanges: 7)  // held already: nothing is replaced
    noted.noted(tasks[4], membershipChanges: 7)
    #expect(
      tasks.map { noted.isCurrent($0, membershipChanges: 7) } == [false, true, true, true, true])
    let reused = TaskRef(address: tasks[1].address, id: 99)
    #expect(!noted.isCurrent(reused, membershipChanges: 7))
    #expect(!noted.isCurrent(tasks[2], membershipChanges: 8))
    noted.noted(tasks[0], membershipChanges: 8)
    #expect(
      tasks.map { noted.isCurrent($0, membershipChanges: 8) } == [true, false, false, false, false])
  }
}
