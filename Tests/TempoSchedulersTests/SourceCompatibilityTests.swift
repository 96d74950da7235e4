import TempoSchedulers
import TempoTestHelpers
import XCTest

/// Code written against Combine Schedulers 1.x, with only its import changed. These tests pass
/// by compiling; each also checks that the spelling does what its name says.
final class SourceCompatibilityTests: XCTestCase {
  func testTestSchedulerSpellings() {
    let dispatch: TestSchedulerOf<DispatchQueue> = DispatchQueue.test
    let runLoop: TestSchedulerOf<RunLoop> = RunLoop.test
    let operation: TestSchedulerOf<OperationQueue> = OperationQueue.test
    let ui: TestSchedulerOf<UIScheduler> = UIScheduler.test
    let custom = TestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>(
      now: .init(.init(uptimeNanoseconds: 1)))
    dispatch.advance()
    dispatch.advance(by: 1)
    dispatch.advance(to: dispatch.now.advanced(by: 1))
    dispatch.run()
    runLoop.advance(by: 2)
    operation.advance(by: .seconds(2))
    ui.advance(by: .milliseconds(5))
    custom.advance(by: .microseconds(5))
    XCTAssertEqual(dispatch.now.dispatchTime.uptimeNanoseconds, 2_000_000_001)
    XCTAssertEqual(runLoop.now.date.timeIntervalSince1970, 2)
    XCTAssertEqual(operation.now.date.timeIntervalSince1970, 2)
    XCTAssertEqual(ui.now.dispatchTime.uptimeNanoseconds, 5_000_001)
    XCTAssertEqual(custom.now.dispatchTime.uptimeNanoseconds, 5_001)
  }

  func testAsyncAdvanceSpellings() async {
    let runLoop = RunLoop.test
    await runLoop.advance()
    await runLoop.advance(by: 1)
    await runLoop.advance(to: runLoop.now.advanced(by: 1))
    await runLoop.run()
    XCTAssertEqual(runLoop.now.date.timeIntervalSince1970, 2)
  }

  func testErasedSchedulerSpellings() {
    let schedulers: [AnySchedulerOf<DispatchQueue>] = [
      .main, .global(qos: .background), .immediate, DispatchQueue.test.eraseToAnyScheduler(),
      AnyScheduler(DispatchQueue.main),
    ]
    let others:
      (AnySchedulerOf<RunLoop>, AnySchedulerOf<OperationQueue>, AnySchedulerOf<UIScheduler>) =
        (.main, .immediate, .shared)
    let uiImmediate: AnySchedulerOf<UIScheduler> = .immediate
    let immediates: (ImmediateSchedulerOf<RunLoop>, ImmediateSchedulerOf<UIScheduler>) =
      (RunLoop.immediate, UIScheduler.immediate)
    XCTAssertEqual(schedulers.count, 5)
    _ = (others, uiImmediate, immediates, UIScheduler.shared)
  }

  func testUnimplementedSchedulerSpellingsCompile() {
    // Creating them reports nothing; only using them does.
    let a: UnimplementedSchedulerOf<DispatchQueue> = DispatchQueue.unimplemented
    let b: UnimplementedSchedulerOf<RunLoop> = RunLoop.unimplemented("runLoop")
    let c: AnySchedulerOf<DispatchQueue> = .unimplemented
    let d: AnySchedulerOf<OperationQueue> = .unimplemented("queue")
    let e = UnimplementedScheduler<DispatchQueue.SchedulerTimeType, Never>(
      "custom", now: .init(.init(uptimeNanoseconds: 1)))
    XCTAssertEqual(b.prefix, "runLoop")
    XCTAssertEqual(e.prefix, "custom")
    _ = (a, c, d)
  }

  func testTimerAndConcurrencySpellings() async throws {
    let scheduler = DispatchQueue.test
    var ticks = 0
    let timer = Publishers.Timer(every: .seconds(1), tolerance: .zero, scheduler: scheduler)
      .autoconnect()
      .sink { _ in ticks += 1 }
    let other = scheduler.timerPublisher(every: 1, tolerance: nil, options: nil).autoconnect()
      .sink { _ in }
    let elapsed = scheduler.measure { scheduler.advance(by: 3) as Void }
    XCTAssertEqual(ticks, 3)
    XCTAssertEqual(elapsed, .seconds(3))
    let stream: AsyncStream<DispatchQueue.SchedulerTimeType> = scheduler.timer(interval: 1)
    _ = stream
    timer.cancel()
    other.cancel()
    let base = scheduler.pendingWorkCount  // the stream's ticks
    let sleeper = Task {
      try await scheduler.sleep(for: .seconds(1), tolerance: .zero, options: nil)
      try await scheduler.sleep(until: scheduler.now.advanced(by: 1))
    }
    await waitUntil { scheduler.pendingWorkCount == base + 1 }
    await scheduler.advance(by: 1)
    await waitUntil { scheduler.pendingWorkCount == base + 1 }
    await scheduler.advance(by: 1)
    try await sleeper.value
  }
}
