import Synchronization
import TempoClocks
import TempoCore
import TempoSupport
import TempoTestHelpers
import TempoTestSupport
import Testing

@testable import TempoExecutor

/// A task that switches executors between two nonisolated functions, in a job its test
/// executor runs, goes on in that job: the runtime enqueues it only because the job runs with
/// Tempo's task executor, and on its own executor it would go on on its thread.
@Suite struct HandOffTests {
  final class Flag: Sendable {
    let value = Atomic<Bool>(false)
  }

  final class Log: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
  }

  /// Enters with a switch to the generic executor (the caller here is nonisolated, so its
  /// isolation is nil), as every function with an `isolated` parameter does when called from
  /// nonisolated code: `withCheckedContinuation`, `TaskLocal.withValue`, `withTestExecutor`.
  static func hop(isolation: isolated (any Actor)? = #isolation) async {}

  /// A thousand calls of one task, each switching on its way in and on its way back, cost a
  /// few dozen jobs, not two thousand.
  @Test func aTaskThatSwitchesGoesOnInItsJob() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let hops = 1_000
    await withTestExecutor {
      let executor = TestExecutor.current!
      let before = executor.jobsAccepted
      await Task {
        for _ in 0..<hops { await Self.hop() }
      }.value
      let jobs = executor.jobsAccepted - before
      // The task's first job, one through the queue every `handOffLimit` switches, and the
      // test's own task coming back.
      #expect(jobs <= 2 * hops / TestExecutor.handOffLimit + 4, "\(jobs) jobs for \(hops) calls")
    }
  }

  /// A thousand yields of one task, with nothing else of its test queued, cost a thousand jobs
  /// and a few, not two thousand, and a few dozen trips through the queue: each yield's
  /// continuation job runs next in the task's job, and the task it resumes goes on in it too.
  @Test func aYieldingTaskGoesOnInItsJob() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let yields = 1_000
    await withTestExecutor {
      let executor = TestExecutor.current!
      let acceptedBefore = executor.jobsAccepted
      let queuedBefore = executor.jobsQueued
      await Task {
        for _ in 0..<yields { await Task.yield() }
      }.value
      let jobs = executor.jobsAccepted - acceptedBefore
      let queued = executor.jobsQueued - queuedBefore
      // One continuation job a yield; through the queue: the task's first job, once every
      // `handOffLimit` hand-offs (four a yield: the switches into `Task.yield()` and back,
      // its continuation job, and the task that job resumes), and the test's own task coming
      // back. (Before, each yield's continuation job went through the queue.)
      let trips = 4 * yields / TestExecutor.handOffLimit + 4
      #expect(jobs <= yields + trips, "\(jobs) jobs for \(yields) yields")
      #expect(queued <= trips, "\(queued) jobs queued for \(yields) yields")
    }
  }

  /// A yield still lets everything queued before it run first: two tasks yielding in turn
  /// interleave, each resumed where its yield's continuation job was queued.
  @Test func aYieldStillLetsTheWorkQueuedBeforeItRun() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let log = Log()
    await withTestExecutor {
      let first = Task {
        for step in 0..<3 {
          log.append("first \(step)")
          await Task.yield()
        }
      }
      let second = Task {
        for step in 0..<3 {
          log.append("second \(step)")
          await Task.yield()
        }
      }
      await first.value
      await second.value
    }
    #expect(log.all == ["first 0", "second 0", "first 1", "second 1", "first 2", "second 2"])
  }

  /// A main-actor task that leaves the main actor and comes back, a hundred times, in a test
  /// whose jobs run on the main queue, goes on in the block of each main-actor job: a handful
  /// of pump blocks, not one a trip.
  @MainActor @Test func aTaskLeavingTheMainActorGoesOnInItsMainQueueBlock() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let trips = 100
    await withTestExecutor {
      let executor = TestExecutor.current!
      let before = executor.mainQueuePumpBlocksQueued
      await Task { @MainActor in
        for _ in 0..<trips { #expect(await Self.leaveTheMainActor()) }
      }.value
      let blocks = executor.mainQueuePumpBlocksQueued - before
      #expect(blocks <= 4, "\(blocks) pump blocks for \(trips) trips off the main actor")
    }
  }

  /// What runs on the main actor keeps its order: a main-actor task that left the main actor
  /// comes back behind the main-actor work queued meanwhile.
  @MainActor @Test func leavingTheMainActorKeepsTheOrderOfMainActorWork() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    var log: [String] = []
    await withTestExecutor {
      let first = Task { @MainActor in
        log.append("first 1")
        await Self.leaveTheMainActor()
        log.append("first 2")
      }
      let second = Task { @MainActor in log.append("second") }
      await first.value
      await second.value
    }
    #expect(log == ["first 1", "second", "first 2"])
  }

  /// A scope on the main actor stays there: its body starts in its own main-actor job, with no
  /// hop onto its executor (the rest of that job runs on the main queue, where the test's work
  /// runs one block at a time), and its end waits for quiet in its own main-actor job. An empty
  /// scope is one job (eight when its end hopped off the main actor and back, and onto its
  /// executor to leave it; five when its start still hopped onto it).
  @MainActor @Test func aScopeOnTheMainActorStaysThere() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    var executor: TestExecutor?
    await withTestExecutor { executor = TestExecutor.current }
    let jobs = executor?.jobsAccepted ?? 0
    #expect(jobs <= 1, "\(jobs) jobs for an empty scope")
  }

  /// A task executor preference pushed and popped on the main actor
  /// (`TestExecutor.withPreference`, behind `TestClock.controlSystemSleeps { }`) costs no job:
  /// each changes what the runtime compares at the next entry to the main actor's isolation,
  /// which then switches, and the main executor goes on with that switch in the same block.
  /// (Before, ten advances inside a preference were 120 main-actor jobs, the job's task
  /// executor differing from the task's preference at every entry; an empty scope with a
  /// preference, 24.)
  @MainActor @Test func aPreferenceOnTheMainActorCostsNoJob() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    await withTestExecutor {
      let executor = TestExecutor.current!
      let timeline = Timeline<Int, Int>(now: 0, name: "Timeline") { $0 + $1 }
      // Now in a main-actor job that began with no task preferring the stand-in.
      await Task.yield()
      let before = executor.jobsAccepted
      await TestExecutor.withPreference {
        for _ in 0..<10 { await timeline.advance(by: 1, at: .unknown) }
      }
      let jobs = executor.jobsAccepted - before
      #expect(jobs == 0, "\(jobs) jobs for a preference and ten advances with nothing to run")
      #expect(timeline.now == 10)
    }
  }

  /// An advance on the main actor of a timeline whose actions run on the caller's actor (a
  /// scheduler's) stays there: it waits for quiet in its own main-actor job, and goes back to
  /// its test's work where it is, its task's next main-actor job coming through the main
  /// executor. An advance with nothing to run is no job at all (three before: a trip off the
  /// main actor and back to wait, and one to rejoin).
  @MainActor @Test func anAdvanceOnTheMainActorStaysThere() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    await withTestExecutor {
      let executor = TestExecutor.current!
      let timeline = Timeline<Int, Int>(now: 0, name: "Timeline") { $0 + $1 }
      let before = executor.jobsAccepted
      for _ in 0..<10 { await timeline.advance(by: 1, at: .unknown) }
      let jobs = executor.jobsAccepted - before
      #expect(jobs == 0, "\(jobs) jobs for ten advances with nothing to run")
      #expect(timeline.now == 10)
    }
  }

  /// A main-actor task that waited for quiet in its main-actor job (an advance, which stops
  /// counting that job as the test's work) and leaves the main actor later in the same job,
  /// with another main-actor task of the test queued, leaves through the queue. Taken in place,
  /// the switch would count the main-actor job as run a second time, in place of the queued
  /// task's (a precondition failure when that task's job finished).
  @MainActor @Test func aMainActorJobThatWaitedForQuietLeavesThroughTheQueue() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    await withTestExecutor {
      let timeline = Timeline<Int, Int>(now: 0, name: "Timeline") { $0 + $1 }
      var ran = false
      for _ in 0..<10 {
        ran = false
        // Back on the main actor through the main executor: a main-actor job of the test.
        await Self.leaveTheMainActor()
        await timeline.advance(by: 1, at: .unknown)
        let other = Task { @MainActor in ran = true }
        await Self.leaveTheMainActor()
        await other.value
        #expect(ran)
      }
      await timeline.advance(by: 1, at: .unknown)
      #expect(timeline.now == 11)
    }
  }

  /// Runs off the main actor (nonisolated, on the generic executor), in a job of the test's
  /// executor.
  @discardableResult
  static func leaveTheMainActor() async -> Bool { RunningJob.executor != nil }

  /// A task that only switches, waiting for a flag that a task queued behind it sets, still
  /// lets that task run: after `handOffLimit` switches in a row it goes through the queue.
  @Test(.timeLimit(.minutes(1))) func aTaskThatOnlySwitchesLetsTheRestOfItsTestRun() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let hops = await withTestExecutor {
      let flag = Flag()
      let spinner = Task {
        var hops = 0
        while !flag.value.load(ordering: .acquiring) {
          await Self.hop()
          hops += 1
        }
        return hops
      }
      let setter = Task { flag.value.store(true, ordering: .releasing) }
      await setter.value
      return await spinner.value
    }
    #expect(hops <= TestExecutor.handOffLimit)
  }

  /// A task that switches forever once the advance has woken it, never suspending, spends the
  /// job budget: the advance that waits for it reports it and returns. (That each switch counts
  /// as a job is `TestExecutorStateMachineTests.switchesHandedOffCountAsJobsWhenTheirJobFinishes`:
  /// here a pump may run the task ahead between the advance's waits, however many there are.)
  @Test func aTaskThatSwitchesForeverSpendsTheJobBudget() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    await expectAdvanceSpendsTheJobBudget { clock in
      Task {
        do { try await clock.sleep(for: .seconds(1)) } catch { return }
        while !Task.isCancelled { await Self.hop() }
      }
    }
  }

  /// A task of the test that advances a clock, in a job its executor runs, with switches on
  /// its way in and out, waits for the rest of the test: each advance sees the sleeper it
  /// woke, and that sleeper's switches, through.
  @Test(.timeLimit(.minutes(1))) func aTaskOfTheTestThatSwitchesAndAdvancesWaitsForTheRest() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let log = Log()
    await withTestExecutor {
      let clock = TestClock()
      let sleeper = Task {
        for second in 1...3 {
          do { try await clock.sleep(for: .seconds(1)) } catch { return }
          for _ in 0..<5 { await Self.hop() }
          log.append("woke \(second)")
        }
      }
      let advancer = Task {
        for _ in 0..<3 {
          await Self.hop()
          await clock.advance(by: .seconds(1))
          await Self.hop()
          log.append("advanced to \(clock.now.offset)")
        }
      }
      await advancer.value
      await sleeper.value
    }
    #expect(
      log.all == [
        "woke 1", "advanced to 1.0 seconds", "woke 2", "advanced to 2.0 seconds", "woke 3",
        "advanced to 3.0 seconds",
      ])
  }

  /// Once a task begins waiting for quiet, nothing more goes on in the job the thread runs for
  /// it: its switches are no longer the test's work. A job of another task, or of another
  /// executor, keeps its hand-offs.
  @Test func aTaskThatBeginsWaitingForQuietHandsOffNothingMore() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    await withTestExecutor {
      let executor = TestExecutor.current!
      let task = UnsafeRawPointer(bitPattern: 0x1000)!
      let other = UnsafeRawPointer(bitPattern: 0x2000)!
      let previous = RunningJob.enter(executor, task: task, handOffs: 64)
      RunningJob.stopHandOffs(of: other, for: executor)
      let afterOther = RunningJob.current.handOffs
      RunningJob.stopHandOffs(of: task, for: executor)
      let afterOwn = RunningJob.current.handOffs
      RunningJob.leave(to: previous)
      #expect(afterOther == 64)
      #expect(afterOwn == 0)
    }
  }

  /// Switches inside an actor's method and back out of it keep the test's order: an actor
  /// hop is a real switch, and goes through the queue.
  @Test func switchesKeepTheOrderOfTheTestsWork() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    actor Log {
      var entries: [String] = []
      func append(_ entry: String) { entries.append(entry) }
    }
    let log = Log()
    let entries = await withTestExecutor {
      let first = Task {
        await log.append("first 1")
        for _ in 0..<10 { await Self.hop() }
        await log.append("first 2")
      }
      let second = Task {
        await log.append("second 1")
        for _ in 0..<10 { await Self.hop() }
        await log.append("second 2")
      }
      await first.value
      await second.value
      return await log.entries
    }
    #expect(entries == ["first 1", "second 1", "first 2", "second 2"])
  }
}
