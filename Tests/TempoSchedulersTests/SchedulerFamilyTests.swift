import Foundation
import TempoTestHelpers
import Testing

@testable import TempoSchedulers

@Suite struct ImmediateSchedulerTests {
  @Test func runsEveryKindOfWorkAtOnceWithoutMovingTime() {
    let scheduler = DispatchQueue.immediate
    var log: [String] = []
    scheduler.schedule { log.append("now") }
    scheduler.schedule(after: scheduler.now.advanced(by: 100)) { log.append("delayed") }
    let timer = scheduler.schedule(after: scheduler.now, interval: 1) { log.append("interval") }
    #expect(log == ["now", "delayed", "interval"])
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 1)
    timer.cancel()
  }

  @Test func collapsesReceiveOnAndDelayIntoSynchrony() {
    var output: [Int] = []
    let cancellable = Just(1)
      .delay(for: 10, scheduler: RunLoop.immediate)
      .receive(on: OperationQueue.immediate)
      .sink { output.append($0) }
    #expect(output == [1])
    _ = cancellable
  }

  @Test func standsInForAnErasedScheduler() {
    let schedulers: [AnySchedulerOf<DispatchQueue>] = [
      .immediate, DispatchQueue.immediate.eraseToAnyScheduler(),
    ]
    for scheduler in schedulers {
      var ran = false
      scheduler.schedule { ran = true }
      #expect(ran)
    }
  }
}

@Suite struct UnimplementedSchedulerTests {
  @Test func everyUseIsReportedAndNoActionRuns() {
    let scheduler = DispatchQueue.unimplemented("mainQueue")
    var ran = false
    expectIssues(
      "Unimplemented scheduler: mainQueue - A scheduler's current time was read.",
      "minimum tolerance was read",
      "An action was scheduled.",
      "An action was scheduled after",
      "repeating every"
    ) {
      _ = scheduler.now
      _ = scheduler.minimumTolerance
      scheduler.schedule { ran = true }
      let date = DispatchQueue.SchedulerTimeType(.init(uptimeNanoseconds: 5))
      scheduler.schedule(after: date, tolerance: .zero, options: nil) { ran = true }
      _ = scheduler.schedule(after: date, interval: 1, tolerance: .zero, options: nil) {
        ran = true
      }
    }
    #expect(!ran)
  }

  @Test func anErasedUnimplementedSchedulerReportsThroughAPublisher() {
    let scheduler: AnySchedulerOf<RunLoop> = .unimplemented
    var output: [Int] = []
    // One for the value, one for the completion.
    expectIssues("An action was scheduled.", "An action was scheduled.") {
      let cancellable = Just(1).receive(on: scheduler).sink { output.append($0) }
      _ = cancellable
    }
    #expect(output == [])
  }

  @Test func anUnusedUnimplementedSchedulerReportsNothing() {
    let scheduler = UnimplementedSchedulerOf<OperationQueue>(now: OperationQueue._tempoEpoch)
    #expect(scheduler.prefix == "")
  }

  @available(*, deprecated)
  @Test func theFailingSpellingsStillWork() {
    let scheduler: FailingSchedulerOf<DispatchQueue> = DispatchQueue.failing
    let erased: AnySchedulerOf<DispatchQueue> = .failing("old")
    expectIssues("Unimplemented scheduler - An action", "Unimplemented scheduler: old") {
      scheduler.schedule {}
      erased.schedule {}
    }
    #expect(DispatchQueue.testScheduler.now == DispatchQueue.test.now)
    #expect(RunLoop.immediateScheduler.now == RunLoop.immediate.now)
  }
}

@Suite struct AnySchedulerTests {
  @Test func anErasedTestSchedulerFollowsTheTestScheduler() {
    let test = DispatchQueue.test
    let scheduler = test.eraseToAnyScheduler()
    var log: [Int] = []
    scheduler.schedule { log.append(0) }
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) { log.append(1) }
    let timer = scheduler.schedule(after: scheduler.now.advanced(by: 2), interval: 2) {
      log.append(2)
    }
    test.advance(by: 4)
    #expect(log == [0, 1, 2, 2])
    #expect(scheduler.now == test.now)
    #expect(scheduler.minimumTolerance == .zero)
    timer.cancel()
    test.advance(by: 10)
    #expect(log == [0, 1, 2, 2])
  }

  @Test func theClosureInitializerCallsEachClosure() {
    var calls: [String] = []
    let scheduler = AnySchedulerOf<DispatchQueue>(
      minimumTolerance: {
        calls.append("tolerance"); return .zero
      },
      now: {
        calls.append("now"); return .init(.init(uptimeNanoseconds: 7))
      },
      scheduleImmediately: { _, action in
        calls.append("immediately"); action()
      },
      delayed: { _, _, _, action in
        calls.append("delayed"); action()
      },
      interval: { _, _, _, _, action in
        calls.append("interval")
        action()
        return AnyCancellable {}
      }
    )
    _ = scheduler.minimumTolerance
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 7)
    scheduler.schedule {}
    scheduler.schedule(after: scheduler.now) {}
    _ = scheduler.schedule(after: scheduler.now, interval: 1) {}
    // Combine's `schedule(after:)` conveniences read the tolerance before scheduling.
    #expect(
      calls == [
        "tolerance", "now", "immediately", "now", "tolerance", "delayed", "now", "tolerance",
        "interval",
      ]
    )
  }

  @Test func liveFactoriesWrapTheLiveSchedulers() {
    #expect(
      AnySchedulerOf<DispatchQueue>.main.minimumTolerance == DispatchQueue.main.minimumTolerance)
    _ = AnySchedulerOf<DispatchQueue>.global(qos: .utility)
    _ = AnySchedulerOf<RunLoop>.main
    _ = AnySchedulerOf<OperationQueue>.main
    _ = AnySchedulerOf<UIScheduler>.shared
  }
}

@Suite struct ActionWrappingTests {
  @Test func eachActionRunsInsideTheWrapperOnTheBaseSchedulersTime() {
    let scheduler = DispatchQueue.test
    var log: [String] = []
    let wrapped = scheduler.wrappingActions { action in
      log.append("before")
      action()
      log.append("after")
    }
    wrapped.schedule { log.append("now") }
    wrapped.schedule(after: wrapped.now.advanced(by: 1)) { log.append("later") }
    let timer = wrapped.schedule(after: wrapped.now.advanced(by: 2), interval: 5) {
      log.append("tick")
    }
    scheduler.advance()
    #expect(log == ["before", "now", "after"])
    scheduler.advance(by: 2)
    #expect(log.suffix(6) == ["before", "later", "after", "before", "tick", "after"])
    #expect(wrapped.now == scheduler.now)
    timer.cancel()
    #expect(scheduler.pendingWorkCount == 0)
  }
}

/// Serialized: the UI scheduler's queue of pending main-queue work is shared by the process.
@Suite(.serialized) struct UISchedulerTests {
  @MainActor @Test func runsAtOnceOnTheMainThread() {
    var ran = false
    UIScheduler.shared.schedule { ran = true }
    #expect(ran)
  }

  @MainActor @Test func laterWorkNeverOvertakesWorkQueuedFromAnotherThread() async {
    let log = MainLog()
    // Queued from a background thread: it must hop to the main queue.
    DispatchQueue.global().sync {
      UIScheduler.shared.schedule { log.append("background") }
    }
    // Scheduled from the main thread while the background action is still queued.
    UIScheduler.shared.schedule { log.append("main") }
    #expect(log.entries == [])
    // The main queue is first in, first out: once this block runs, both actions have run.
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    #expect(log.entries == ["background", "main"])
    // With nothing queued, the main thread runs at once again.
    UIScheduler.shared.schedule { log.append("immediate") }
    #expect(log.entries == ["background", "main", "immediate"])
  }
}

/// A log that main-queue actions append to.
final class MainLog: @unchecked Sendable {
  // Invariant: appended to and read on the main thread only.
  var entries: [String] = []
  func append(_ entry: String) { entries.append(entry) }
}
