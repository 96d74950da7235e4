import Dispatch
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

  /// A test on the main actor that makes a source and then awaits stays on the main actor, with
  /// no trip through the main queue: the main actor's executor, installed with the hooks, stays
  /// once nothing needs them, so that the next test's hooks do not change it. (A function on the
  /// main actor reads its executor once, as it starts, and hops back to that one after each
  /// call: with another executor installed meanwhile, every call would go through the main
  /// queue twice.) In a process of its own, where no other test keeps the hooks installed; a
  /// block queued on the main queue first would run before a hop's job.
  @Test func aMainActorTestThatMakesASourceDoesNotHop() async {
    await #expect(processExitsWith: .success) {
      // The first source in the process installs the main actor's executor: that test hops.
      await Self.makeASourceOnTheMainActor(expectingHops: true)
      for _ in 0..<3 {
        precondition(!TestRegistry.isInUse, "the registry still needs its hooks")
        await Self.makeASourceOnTheMainActor(expectingHops: false)
      }
    }
  }

  /// A test on the main actor: makes a source, calls a function on the main actor, and
  /// answers whether a block queued on the main queue before ran meanwhile.
  @MainActor private static func makeASourceOnTheMainActor(expectingHops: Bool) async {
    let queued = LockedBox(false)
    DispatchQueue.main.async { queued.withLock { $0 = true } }
    let source = makeSource()
    await onTheMainActor()
    precondition(
      queued.withLock { $0 } == expectingHops,
      expectingHops
        ? "the first source did not install the main actor's executor"
        : "making a source made the main actor's task hop through the main queue")
    withExtendedLifetime(source) {}
  }

  /// An entry to the main actor's isolation, and a return from it: the runtime compares the
  /// executors, and goes on in place if they are the same.
  @MainActor private static func onTheMainActor() async {}
}
