@_spi(TempoInternals) import TempoCore
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoExecutor

/// A time source made in a task with no executor defers one (`DeferredTest`): a test that only
/// schedules and advances synchronously opens none; the first task the test starts, or an async
/// verb, opens it, with everything it would have held had it opened at once.
@Suite struct DeferredExecutorTests {
  /// A timeline whose actions are more than wake-ups, as a scheduler's are.
  private static func makeSource() -> Timeline<Int, Int> {
    Timeline<Int, Int>(now: 0, name: "TestScheduler") { $0 + $1 }
  }

  /// Scheduling (which starts the watch of the source's pending work, and under Swift Testing,
  /// as here, its reporter task), advancing and cancelling open no executor.
  @Test func synchronousUseOpensNoExecutor() throws {
    let source = Self.makeSource()
    var ran: [Int] = []
    source.schedule(after: 5, at: .unknown) { ran.append(5) }
    let cancelled = source.schedule(after: 7, interval: nil, at: .unknown) { ran.append(7) }
    source.advance(by: 5, at: .unknown)
    cancelled.cancel()
    source.advance(by: 5, at: .unknown)
    #expect(ran == [5])
    let deferral = try #require(TestRegistry.deferralOfCurrentTask())
    #expect(deferral.opened == nil)
    #expect(TestRegistry.executorThatMetCurrentTask() == nil)
    withExtendedLifetime(source) {}
  }

  /// Two sources of one test share the deferral, and the registry forgets it with the last.
  @Test func theDeferralEndsWithTheTestsLastSource() throws {
    var first: Timeline<Int, Int>? = Self.makeSource()
    let second = Self.makeSource()
    let deferral = try #require(TestRegistry.deferralOfCurrentTask())
    first = nil
    #expect(TestRegistry.deferralOfCurrentTask() === deferral)
    withExtendedLifetime((first, second)) {}
  }

  @Test func theDeferralIsForgottenWithItsSources() {
    do {
      let source = Self.makeSource()
      withExtendedLifetime(source) {}
    }
    #expect(TestRegistry.deferralOfCurrentTask() == nil)
  }

  /// The first task the test starts opens the executor before its job is routed: the task is
  /// one of the test's, and the executor then watches the job the test's task runs.
  @Test func aTaskTheTestStartsOpensTheExecutor() async throws {
    let source = Self.makeSource()
    let deferral = try #require(TestRegistry.deferralOfCurrentTask())
    let child = Task { TestRegistry.executorThatMetCurrentTask() }
    let executor = try #require(deferral.opened)
    #expect(TestRegistry.deferralOfCurrentTask() == nil)
    #expect(TestRegistry.executorThatMetCurrentTask() === executor)
    #expect(await child.value === executor)
    withExtendedLifetime(source) {}
  }

  /// The test's own hops (to the main actor and back, a yield) are no work it started: they
  /// open nothing.
  @Test func theTestsOwnHopsOpenNothing() async throws {
    let source = Self.makeSource()
    let deferral = try #require(TestRegistry.deferralOfCurrentTask())
    await MainActor.run {}
    await Task.yield()
    #expect(deferral.opened == nil)
    withExtendedLifetime(source) {}
  }

  /// A task started in an actor's method is queued on the actor and runs in its processing job,
  /// never routed as a task: the call into the actor opens the executor, and the task is the
  /// test's. (With only task jobs opening it, AsyncStress's task-from-actor-method went wrong
  /// in nearly every run: the task's sleep was not the test's, and the advance did not wait.)
  @Test func aCallIntoAnActorOpensTheExecutor() async throws {
    let source = Self.makeSource()
    let deferral = try #require(TestRegistry.deferralOfCurrentTask())
    let starter = Starter()
    let started = await starter.start()
    let executor = try #require(deferral.opened)
    #expect(await started.value === executor)
    withExtendedLifetime(source) {}
  }

  private actor Starter {
    func start() -> Task<TestExecutor?, Never> {
      Task { TestRegistry.executorThatMetCurrentTask() }
    }
  }

  /// An async advance waits on the test's executor: it opens it, and a task the advance
  /// releases runs before it returns.
  @Test func anAsyncAdvanceOpensTheExecutor() async throws {
    let source = Self.makeSource()
    let deferral = try #require(TestRegistry.deferralOfCurrentTask())
    let ran = LockedBox<[String]>([])
    source.schedule(after: 5, at: .unknown) {
      Task { ran.withLock { $0.append("released") } }
    }
    await source.advance(by: 5, at: .unknown)
    #expect(deferral.opened != nil)
    #expect(ran.withLock { $0 } == ["released"])
    withExtendedLifetime(source) {}
  }
}
