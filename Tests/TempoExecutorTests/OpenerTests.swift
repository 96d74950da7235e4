import Dispatch
import TempoClocks
@_spi(TempoInternals) import TempoSupport
import Testing

@testable import TempoExecutor

/// The job the test's task was running when one of its clocks opened the executor: it came to
/// no executor, yet it is the test's work until it is known to have ended.
@Suite struct OpenerTests {
  /// A task on the main actor that makes a clock runs a job that came to no executor: that job
  /// is the test's work, whatever its status reads, until a pass through the main queue,
  /// queued as the clock was made, has run. A task reads as suspended while it publishes itself
  /// as waiting, and runs on in the same job if what it waits for is done by then. After the
  /// pass, its status says whether it went on somewhere no executor sees.
  @Test func anOpenerOnTheMainActorIsTheTestsWorkUntilItsJobHasEnded() async throws {
    let (whileRunning, afterPass) = await Task { @MainActor () async in
      let clock = TestClock()
      guard let executor = TestExecutor.ofCurrentTest else { return (false, true) }
      executor.lookWhetherOpenerSuspended()
      let running = executor.lock.withLock { executor.state.opener } != nil
      // Queued after the pass, so it runs after it; the task is suspended meanwhile.
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { continuation.resume() }
      }
      let after = executor.lock.withLock { executor.state.opener } != nil
      withExtendedLifetime(clock) {}
      return (running, after)
    }.value
    #expect(whileRunning, "the opener's job was not counted while it ran")
    #expect(!afterPass, "the opener was still counted after its job ended and it suspended")
  }

  /// An `async let` child lives in its parent's memory, which its binding's scope frees however
  /// often the child was retained: a clock made in one holds no opener, and so never retains
  /// it (a late release would land on whatever the memory holds next).
  @Test func aClockMadeInAnAsyncLetChildKeepsNoOpener() async {
    async let child = isAsyncLetChildNow()
    async let heldNothing: Bool = {
      let clock = TestClock()
      defer { withExtendedLifetime(clock) {} }
      return TestExecutor.ofCurrentTest.map { $0.heldOpener == nil } ?? false
    }()
    let inGroup = await withTaskGroup(of: Bool.self) { group in
      group.addTask { isAsyncLetChildNow() }
      return await group.next() ?? true
    }
    let unstructured = await Task { isAsyncLetChildNow() }.value
    #expect(await child)
    #expect(!inGroup && !unstructured && !isAsyncLetChildNow())
    #expect(await heldNothing, "an async let child was kept to read its status")
  }
}

/// Whether the current task is an `async let` child, read from its job flags.
private func isAsyncLetChildNow() -> Bool {
  withUnsafeCurrentTask { task in
    task.map { JobIdentity.isAsyncLetChild(unsafeBitCast($0, to: UnsafeRawPointer.self)) }
      ?? false
  }
}
