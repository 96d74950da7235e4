import Testing

@testable import TempoExecutor

/// Where a job goes, decided with stand-in executors: each row says what the enqueuing thread
/// carries, which executors have met the tasks, which admit the job's task and which take it,
/// and expects the owner and every offer made on the way, in order.
@Suite struct RoutingTests {
  final class Stand: CustomStringConvertible, Sendable {
    let description: String
    init(_ name: String) { description = name }
  }

  static let scope = Stand("scope")
  static let running = Stand("running")
  static let metCurrent = Stand("metCurrent")
  static let metJob = Stand("metJob")
  static let blocks = Stand("blocks")
  static let otherBlocks = Stand("otherBlocks")

  struct Row: CustomTestStringConvertible, Sendable {
    let name: String
    /// The executor the caller names (step 0).
    var named: String?
    var scoped: String?
    /// Whether the scope's executor has closed since its address was read: read retained, it
    /// is nil.
    var scopeHasClosed = false
    var running: String?
    var byCurrent: String?
    var byJob: String?
    var isTask = true
    /// Whether a task is current, or runs a job on the enqueuing thread.
    var hasCurrentTask = true
    var isOnMainQueue = false
    var blockTakers: [String] = []
    /// The executors that do not admit the job's task.
    var refusesTask: Set<String> = []
    /// The executors that take the job when offered it.
    var taking: Set<String> = []
    let owner: String?
    /// The offers made, in order: "admits x?" and "takes x?".
    let asked: [String]
    /// Whether the current task and the members are looked up at all (the latter under the
    /// hooks' lock).
    var looksUpMembers = true
    /// Whether the scope is read retained: only when it is not the running executor.
    var readsScope = false

    var testDescription: String { name }
  }

  static func stand(_ name: String?) -> Stand? {
    guard let name else { return nil }
    return [scope, running, metCurrent, metJob, blocks, otherBlocks]
      .first { $0.description == name }
  }

  static let rows: [Row] = [
    Row(
      name: "the named executor takes it before anything is read", named: "running",
      scoped: "scope", running: "running", taking: ["running", "scope"], owner: "running",
      asked: ["takes running?"], looksUpMembers: false),
    Row(
      name: "a named executor that refuses is not offered the job again", named: "running",
      running: "running", byCurrent: "running", byJob: "running", taking: [], owner: nil,
      asked: ["takes running?"]),
    Row(
      name: "after a named executor refuses, the route goes on from the scope", named: "metJob",
      scoped: "scope", running: "running", taking: ["scope"], owner: "scope",
      asked: ["takes metJob?", "takes scope?"], looksUpMembers: false, readsScope: true),
    Row(
      name: "the running executor as the scope takes it unadmitted, the scope not read",
      scoped: "running", running: "running", refusesTask: ["running"], taking: ["running"],
      owner: "running", asked: ["takes running?"], looksUpMembers: false),
    Row(
      name: "the running executor as the scope, refused, is not offered it again",
      scoped: "running", running: "running", byCurrent: "running", owner: nil,
      asked: ["takes running?"]),
    Row(
      name: "a scope closed since its address was read is a job with no scope",
      scoped: "scope", scopeHasClosed: true, running: "running", byCurrent: "metCurrent",
      refusesTask: ["running"], taking: ["metCurrent"], owner: "metCurrent",
      asked: ["admits running?", "admits metCurrent?", "takes metCurrent?"], readsScope: true),
    Row(
      name: "the scope takes it first, and nothing else is asked", scoped: "scope",
      running: "running", byCurrent: "metCurrent", taking: ["scope", "running"],
      owner: "scope", asked: ["takes scope?"], looksUpMembers: false, readsScope: true),
    Row(
      name: "the running executor takes it without a look at the members",
      running: "running", taking: ["running"], owner: "running",
      asked: ["admits running?", "takes running?"], looksUpMembers: false),
    Row(
      name: "a running executor that does not admit the task is passed over", running: "running",
      byCurrent: "metCurrent", refusesTask: ["running"], taking: ["running", "metCurrent"],
      owner: "metCurrent",
      asked: ["admits running?", "admits metCurrent?", "takes metCurrent?"]),
    Row(
      name: "a job that is not a task is never checked for admission", running: "running",
      isTask: false, refusesTask: ["running"], taking: ["running"], owner: "running",
      asked: ["takes running?"], looksUpMembers: false),
    Row(
      name: "the executor that met the job's task is asked without admission",
      byJob: "metJob", refusesTask: ["metJob"], taking: ["metJob"], owner: "metJob",
      asked: ["takes metJob?"]),
    Row(
      name: "a known task refused by its executor goes where it was going",
      byJob: "metJob", hasCurrentTask: false, isOnMainQueue: true, blockTakers: ["blocks"],
      taking: ["blocks"], owner: nil, asked: ["takes metJob?"]),
    Row(
      name: "an executor refused once is not asked again", scoped: "scope", running: "scope",
      byCurrent: "scope", byJob: "scope", owner: nil, asked: ["takes scope?"]),
    Row(
      name: "a scope other than the running executor is offered before it", scoped: "scope",
      running: "running", byJob: "running", refusesTask: ["running"], taking: ["running"],
      owner: nil, asked: ["takes scope?", "admits running?"], readsScope: true),
    Row(
      name: "the executor that met the job's task after the one that met the current task",
      byCurrent: "metCurrent", byJob: "metJob", taking: ["metJob"], owner: "metJob",
      asked: ["admits metCurrent?", "takes metCurrent?", "takes metJob?"]),
    Row(
      name: "a plain main-queue block goes to the first taker of blocks that admits it",
      hasCurrentTask: false, isOnMainQueue: true, blockTakers: ["otherBlocks", "blocks"],
      refusesTask: ["otherBlocks"], taking: ["otherBlocks", "blocks"], owner: "blocks",
      asked: ["admits otherBlocks?", "admits blocks?", "takes blocks?"]),
    Row(
      name: "a job with no context off the main queue belongs to nobody",
      hasCurrentTask: false, blockTakers: ["blocks"], taking: ["blocks"], owner: nil, asked: []),
    Row(
      name: "a job enqueued on the main queue by a task is no plain block",
      isOnMainQueue: true, blockTakers: ["blocks"], taking: ["blocks"], owner: nil, asked: []),
  ]

  @Test(arguments: rows)
  func routes(_ row: Row) {
    var asked: [String] = []
    var lookedUp = false
    var readScope = false
    let task = UnsafeRawPointer(bitPattern: 0x1000)!
    let owner = Routing.firstTaker(
      named: Self.stand(row.named),
      readScopedAddress: { Routing.address(of: Self.stand(row.scoped)) },
      readScoped: {
        readScope = true
        return row.scopeHasClosed ? nil : Self.stand(row.scoped)
      },
      readRunning: { Self.stand(row.running) },
      taskJob: row.isTask ? task : nil,
      currentTask: {
        lookedUp = true
        return row.hasCurrentTask ? task : nil
      },
      members: { _ in
        lookedUp = true
        return (Self.stand(row.byCurrent), Self.stand(row.byJob))
      },
      isOnMainQueue: { row.isOnMainQueue },
      mainQueueBlockTakers: { row.blockTakers.compactMap(Self.stand) },
      admits: { executor, job in
        #expect(job == task)
        asked.append("admits \(executor)?")
        return !row.refusesTask.contains(executor.description)
      },
      takes: { executor in
        asked.append("takes \(executor)?")
        return row.taking.contains(executor.description)
      })
    #expect(owner?.description == row.owner)
    #expect(asked == row.asked)
    #expect(lookedUp == row.looksUpMembers)
    #expect(readScope == row.readsScope)
  }
}
