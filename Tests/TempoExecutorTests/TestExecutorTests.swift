import Foundation
import TempoClocks
import TempoCore
import TempoExecutor
import TempoScenarios
import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

/// The async scenarios of the stress run (Benchmarks/Sources/AsyncStress), each repeated a few
/// times on a test executor: a regression in deterministic advancing fails here first.
@Suite struct AsyncScenarioTests {
  /// Runs per scenario; `TEMPO_SCENARIO_REPETITIONS` raises it for a longer local check.
  static let repetitions =
    Int(
      ProcessInfo.processInfo.environment["TEMPO_SCENARIO_REPETITIONS"] ?? "20") ?? 20

  @Test(arguments: AsyncScenario.all.map(\.name))
  func scenarioPassesEveryTimeInAScope(_ name: String) async {
    let scenario = AsyncScenario.all.first { $0.name == name }!
    if let only = ProcessInfo.processInfo.environment["TEMPO_SCENARIO"], only != name { return }
    var failures: [String] = []
    for _ in 0..<Self.repetitions {
      failures += await runOnTestExecutor(scenario)
    }
    #expect(failures == [], "\(name)")
  }

  /// The same without `withTestExecutor`: the clock, created in the test's task, opens the
  /// executor itself.
  @Test(arguments: AsyncScenario.all.map(\.name))
  func scenarioPassesEveryTimeWithoutAWrapper(_ name: String) async {
    let scenario = AsyncScenario.all.first { $0.name == name }!
    if let only = ProcessInfo.processInfo.environment["TEMPO_SCENARIO"], only != name { return }
    var failures: [String] = []
    for _ in 0..<Self.repetitions {
      failures += await runOnTestClock(scenario)
    }
    #expect(failures == [], "\(name)")
  }

  /// The same with the clock made outside any task, as an XCTest property is, and advanced from
  /// the test's task: exact, and with no issue reported.
  @Test(arguments: AsyncScenario.all.map(\.name))
  func scenarioPassesEveryTimeWithTheClockMadeOutsideATask(_ name: String) async {
    let scenario = AsyncScenario.all.first { $0.name == name }!
    if let only = ProcessInfo.processInfo.environment["TEMPO_SCENARIO"], only != name { return }
    var failures: [String] = []
    let issues = await countingIssues {
      for _ in 0..<Self.repetitions {
        failures += await runOnTestClock(scenario, clock: clockMadeOutsideATask())
      }
    }
    #expect(failures == [], "\(name)")
    #expect(issues == [], "\(name)")
  }
}

/// Runs one scenario on a fresh test clock inside a test executor.
func runOnTestExecutor(_ scenario: AsyncScenario) async -> [String] {
  await withTestExecutor { await runOnTestClock(scenario) }
}

/// Runs one scenario on a fresh test clock (created in the current task unless given).
func runOnTestClock(
  _ scenario: AsyncScenario, clock: TestClock<Duration> = TestClock()
) async -> [String] {
  await scenario.run(on: clock) { await $0.advance(by: $1) }
}

@Suite struct TestExecutorBehaviourTests {
  @Test func scopesInParallelAreEachDeterministic() async {
    let welcome = AsyncScenario.all.first { $0.name == "welcome-first-timer" }!
    let failures = await withTaskGroup(of: [String].self) { group in
      for _ in 0..<8 {
        group.addTask { await runOnTestExecutor(welcome) }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    #expect(failures == [])
  }

  @Test func workThatNeverGoesQuietIsReportedAndTheAdvanceReturns() async {
    await expectAdvanceSpendsTheJobBudget { _ in
      Task.detached {
        while !Task.isCancelled { await Task.yield() }
      }
    }
  }
}

/// Starts work that never goes quiet on a test clock (`spin`, given the clock) in a
/// `withTestExecutor` scope, and expects an advance of 1 s with a job budget of 10,000 to report
/// it and return, at 1 s; then cancels the work and waits for it.
func expectAdvanceSpendsTheJobBudget(
  _ spin: (TestClock<Duration>) -> Task<Void, Never>
) async {
  await withTestExecutor {
    let clock = TestClock()
    let spinner = spin(clock)
    await expectIssues("did not go quiet after 10000 jobs") {
      await TestExecutor.$jobBudget.withValue(10_000) {
        await clock.advance(by: .seconds(1))
      }
    }
    #expect(clock.now == .init(offset: .seconds(1)))
    spinner.cancel()
    await spinner.value
  }
}

/// A test clock made on a thread that runs no task, and set to advance by itself there if
/// `automaticallyAdvances`, as an XCTest property initializer would. (It is handed over under a
/// lock, an order ThreadSanitizer sees; it does not see the one a continuation makes.)
func clockMadeOutsideATask(automaticallyAdvances: Bool = false) async -> TestClock<Duration> {
  let made = Log<TestClock<Duration>>()
  await withCheckedContinuation { continuation in
    Thread {
      let clock = TestClock()
      clock.automaticallyAdvances = automaticallyAdvances
      made.append(clock)
      continuation.resume()
    }.start()
  }
  return made.values[0]
}

/// Runs `test` as XCTest runs an async test method of a test case that holds `clock` in a
/// property: the clock is made on a thread that runs no task, and the test's task is started
/// from that thread, by no task. Answers what `test` returned.
func runAsAnXCTestMethod<Result: Sendable>(
  automaticallyAdvances: Bool = false,
  _ test: @escaping @Sendable (TestClock<Duration>) async -> Result
) async -> Result {
  let result = Log<Result>()
  await withCheckedContinuation { continuation in
    Thread {
      let clock = TestClock()
      clock.automaticallyAdvances = automaticallyAdvances
      Task {
        result.append(await test(clock))
        continuation.resume()
      }
    }.start()
  }
  return result.values[0]
}

/// The executor a clock opens by itself when no `withTestExecutor` scope is open.
@Suite struct ImplicitScopeTests {
  /// The task that awaits the test's task, as the test runner does, stays outside the test's
  /// executor when the test's task ends and wakes it. Taken in, it would make the runner, and
  /// every test it starts next, part of this test, and their clocks would lose their executor
  /// when this one closes.
  @Test func theTaskThatAwaitsTheTestsTaskStaysOutside() async {
    let test = Task { () -> (TestClock<Duration>, Bool) in
      let clock = TestClock()  // opens an executor for this task
      let woke = Log<String>()
      Task {
        try? await clock.sleep(for: .seconds(1))
        woke.append("woke")
      }
      await clock.advance(by: .seconds(1))
      return (clock, woke.values == ["woke"] && TestExecutor.ofCurrentTest != nil)
    }
    // The clock outlives the task, so its executor is still open when this task is woken.
    let (clock, wasInside) = await test.value
    #expect(wasInside)
    #expect(TestExecutor.ofCurrentTest == nil, "the awaiting task joined the test's executor")
    withExtendedLifetime(clock) {}
  }

  /// A task started after the executor opened is the test's, whoever wakes it.
  @Test func aNewerTaskWokenByATaskOfTheTestIsInside() async {
    let clock = TestClock()
    let waiting = Log<CheckedContinuation<Void, Never>>()
    let newer = Task.detached { () -> Bool in
      await withCheckedContinuation { waiting.append($0) }
      return TestExecutor.ofCurrentTest != nil
    }
    await waitUntil { waiting.values.count == 1 }
    Task { waiting.values[0].resume() }
    await clock.advance()
    #expect(await newer.value, "the newer task ran outside the test's executor")
  }

  @Test func aClockCreatedInATaskOpensAnExecutorThatClosesWithIt() async throws {
    var clock: TestClock<Duration>? = TestClock()
    let executor = try #require(TestExecutor.ofCurrentTest)
    #expect(executor.isOpen)
    #expect(clock?.now == .init(offset: .zero))
    clock = nil
    #expect(!executor.isOpen)
  }

  @Test func theClocksOfOneTaskShareItsExecutorUntilTheLastGoes() async throws {
    var first: TestClock<Duration>? = TestClock()
    let executor = try #require(TestExecutor.ofCurrentTest)
    var second: TestClock<Duration>? = TestClock()
    #expect(TestExecutor.ofCurrentTest === executor)
    first = nil
    #expect(executor.isOpen)
    #expect(second != nil && first == nil)
    second = nil
    #expect(!executor.isOpen)
  }

  @Test func aClockMadeInsideAScopeUsesTheScope() async {
    await withTestExecutor {
      let scoped = TestExecutor.current
      let clock = TestClock()
      #expect(TestExecutor.ofCurrentTest === scoped)
      await clock.advance(by: .seconds(1))
      #expect(clock.now == .init(offset: .seconds(1)))
    }
  }

  /// A clock made outside any task learns the test's task at its first async advance, which
  /// adopts the tasks the test started before it, even one whose first job has not run yet.
  @Test func aClockMadeOutsideATaskSeesTheTasksStartedBeforeItsFirstAdvance() async {
    for _ in 0..<100 {
      let clock = await clockMadeOutsideATask()
      let messages = await countingIssues {
        let woke = Log<String>()
        Task {
          Task {
            try? await clock.sleep(for: .seconds(1))
            woke.append("grandchild")
          }
          try? await clock.sleep(for: .seconds(2))
          woke.append("child")
        }
        await clock.advance(by: .seconds(1))
        #expect(woke.values == ["grandchild"])
        await clock.advance(by: .seconds(1))
        #expect(woke.values == ["grandchild", "child"])
      }
      #expect(messages == [])
      #expect(clock.now == .init(offset: .seconds(2)))
    }
  }

  /// A clock made outside any task and advanced by one test after another (a clock that
  /// outlives its test): each advancing task gets its own executor, with its own tasks.
  @Test func aClockMadeOutsideATaskFollowsEachTestThatAdvancesIt() async {
    let clock = await clockMadeOutsideATask()
    for test in 0..<20 {
      let run = Task { () -> [String] in
        let woke = Log<String>()
        Task {
          try? await clock.sleep(for: .seconds(1))
          woke.append("woke \(test)")
        }
        await clock.advance(by: .seconds(1))
        return woke.values
      }
      #expect(await run.value == ["woke \(test)"])
    }
  }

  /// Main-actor tasks started by a main-actor test before the first advance of a clock made
  /// outside any task are seen too.
  @MainActor
  @Test func mainActorTasksStartedBeforeTheFirstAdvanceAreSeen() async {
    for _ in 0..<100 {
      let clock = await clockMadeOutsideATask()
      var message: String?
      Task {
        try? await clock.sleep(for: .seconds(1))
        message = "Welcome!"
      }
      await clock.advance(by: .seconds(1))
      #expect(message == "Welcome!")
    }
  }

  @Test func aClockMadeOutsideATaskIsExactInsideAScope() async {
    let clock = await clockMadeOutsideATask()
    let messages = await countingIssues {
      await withTestExecutor {
        let model = Log<String>()
        Task {
          try? await clock.sleep(for: .seconds(1))
          model.append("woke")
        }
        await clock.advance(by: .seconds(1))
        #expect(model.values == ["woke"])
      }
    }
    #expect(messages == [])
  }

  /// Main-actor work started by main-actor work, five tasks deep, is counted: one advance sees
  /// it all.
  @MainActor
  @Test func nestedMainActorTasksAreAllWaitedFor() async {
    for _ in 0..<50 {
      let clock = TestClock()
      var levels: [Int] = []
      func start(_ level: Int) {
        Task { @MainActor in
          levels.append(level)
          if level < 5 { start(level + 1) } else { try? await clock.sleep(for: .seconds(1)) }
        }
      }
      start(1)
      await clock.advance(by: .zero)
      #expect(levels == [1, 2, 3, 4, 5])
      #expect(clock.pendingWorkCount == 1)
      await clock.run()
    }
  }
}

/// Executors that ask for plain GCD blocks on the main queue. Two such executors open at once
/// cannot tell whose a task is that a block starts with no other context (each of them takes
/// it), so these tests, which open them, run one at a time.
@Suite(.serialized) struct MainQueueBlockTests {
  /// A task of this test resumed by a plain GCD block on the main queue stays this test's while
  /// another test's executor asks for such blocks: the task is known, the block says nothing.
  @Test func aTaskResumedByAMainQueueBlockStaysWithItsTest() async {
    // Another test's executor, open meanwhile, that takes work started by main-queue blocks.
    let other = await Task.detached { TestExecutor(includingMainQueueBlocks: true) }.value
    defer { other.close() }
    let clock = TestClock()
    let own = TestExecutor.ofCurrentTest
    #expect(own != nil)
    let resumed = Task {
      await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume() }
      }
      return TestExecutor.ofCurrentTest
    }
    await clock.advance()
    let executor = await resumed.value
    #expect(executor === own, "the task went to the other test's executor")
    #expect(executor !== other)
  }

  /// A test's task that waits for its work to go quiet is resumed by a plain GCD block on the
  /// main queue when the test's last main-actor job finishes. It goes back to where a waiting
  /// task's jobs go, never to another test's executor that asks for such blocks: taken there,
  /// it and everything it starts would be that test's work, unseen by its own advances.
  @Test func aWaitingTaskResumedByAMainQueueBlockStaysOutOfOtherTests() async {
    // Another test's executor, opened before this test's task, that takes work started by
    // main-queue blocks.
    let other = await Task.detached { TestExecutor(includingMainQueueBlocks: true) }.value
    defer { other.close() }
    let location = TempoSupport.SourceLocation(
      fileID: #fileID, filePath: #filePath, line: #line, column: #column)
    let (own, landed) = await Task { () -> (TestExecutor, TestExecutor?) in
      let own = TestExecutor()
      defer { own.close() }
      // Waiting for quiet, as an advance does, until it rejoins.
      await own.settle(at: location)
      await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume() }
      }
      let landed = TestExecutor.ofCurrentTest
      await own.rejoin()
      return (own, landed)
    }.value
    #expect(landed !== other, "the waiting task went to the other test's executor")
    #expect(landed === own)
  }

  /// A task started by a plain GCD block on the main queue is not a job of the test; a scope
  /// that asks for such blocks waits for them.
  @Test func workStartedByAMainQueueBlockIsSeenWhenTheScopeAsksForIt() async {
    for _ in 0..<20 {
      await withTestExecutor(includingMainQueueBlocks: true) {
        let clock = TestClock()
        let woke = Log<String>()
        DispatchQueue.main.async {
          Task {
            try? await clock.sleep(for: .seconds(1))
            woke.append("woke")
          }
        }
        await clock.advance(by: .seconds(1))
        #expect(woke.values == ["woke"], "pending \(clock.pendingWorkCount) now \(clock.now)")
      }
    }
  }
}

@Suite struct JobIdentityTests {
  /// An executor remembers tasks by address, and nothing else: the kind in the job header
  /// tells a task from an actor's job or a yield's continuation.
  @Test func aTaskIsATaskJob() async {
    let pointer = withUnsafeCurrentTask { $0.map { unsafeBitCast($0, to: UnsafeRawPointer.self) } }
    #expect(pointer.map(JobIdentity.isTask) == true)
  }

  /// `Task.yield()` on a task executor enqueues a continuation job there, not the task.
  @Test func aYieldsContinuationIsNotATaskJob() async {
    let executor = KindRecordingExecutor()
    await withTaskExecutorPreference(executor) {
      await Task.yield()
    }
    #expect(executor.kinds.values.contains(false))
  }
}

/// A task executor that records, for each job, whether it is a task, then runs it on the
/// global executor.
final class KindRecordingExecutor: TaskExecutor {
  let kinds = Log<Bool>()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    kinds.append(JobIdentity.isTask(unsafeBitCast(job, to: UnsafeRawPointer.self)))
    job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
  }
}

/// A task whose clock opened an executor, then opens a `withTestExecutor` scope: inside, the
/// scope takes what the task starts; after it, the clock's executor takes it again.
@Suite struct NestedScopeTests {
  @MainActor
  @Test func aScopeOpenedAfterAClockOfTheSameTaskTakesWhatTheTaskStarts() async {
    for _ in 0..<50 {
      let clock = TestClock()
      await clock.advance(by: .zero)
      await withTestExecutor {
        var ticks = 0
        let timer = Task { @MainActor in
          for await _ in clock.timer(interval: .seconds(1)) {
            ticks += 1
            if ticks == 3 { break }
          }
        }
        await clock.advance(by: .seconds(2))
        #expect(ticks == 2)
        await clock.advance(by: .seconds(1))
        await timer.value
        #expect(ticks == 3)
      }
      var woke = false
      Task { @MainActor in
        try? await clock.sleep(for: .seconds(1))
        woke = true
      }
      await clock.advance(by: .seconds(1))
      #expect(woke)
    }
  }
}
