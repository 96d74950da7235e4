import Foundation
import TempoClocks
import TempoTestSupport
import Testing

@testable import TempoExecutor

/// A job's route reads the scope a task carries (a task-local) only while some executor bound
/// as a scope's is open: a closed one takes no job, so the route is the same without it.
@Suite struct ScopeBindingTests {
  /// Inside a scope, the route sees it, by reference and by address; its executor is the
  /// scope's, any other is another scope's.
  @Test func aScopeIsSeenWhileItIsOpen() async throws {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let other = TestExecutor()
    defer { other.close() }
    #expect(TestExecutor.currentIfAnyBoundIsOpen == nil)
    #expect(!other.isInAnotherScope())
    try await withTestExecutor {
      let scoped = try #require(TestExecutor.current)
      let address = UnsafeRawPointer(Unmanaged.passUnretained(scoped).toOpaque())
      #expect(TestExecutor.currentIfAnyBoundIsOpen === scoped)
      #expect(TestExecutor.boundAddressIfAnyIsOpen == address)
      #expect(scoped.isCountedAsBoundAndOpen)
      #expect(!scoped.isInAnotherScope())
      #expect(other.isInAnotherScope())
      await Task {
        #expect(TestExecutor.currentIfAnyBoundIsOpen === scoped)
        #expect(TestExecutor.boundAddressIfAnyIsOpen == address)
        #expect(other.isInAnotherScope())
      }.value
      // Off any task, on a thread, nothing is bound.
      let unbound = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          continuation.resume(
            returning: TestExecutor.current == nil && TestExecutor.boundAddressIfAnyIsOpen == nil)
        }
      }
      #expect(unbound)
    }
    #expect(TestExecutor.boundAddressIfAnyIsOpen == nil)
  }

  /// Bound twice, an executor is counted once; closed, it is not counted, and bound after it
  /// closed, it is not counted again.
  @Test func anExecutorIsCountedOnceUntilItCloses() {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let executor = TestExecutor()
    #expect(!executor.isCountedAsBoundAndOpen)
    executor.willBindAsCurrent()
    executor.willBindAsCurrent()
    #expect(executor.isCountedAsBoundAndOpen)
    executor.close()
    #expect(!executor.isCountedAsBoundAndOpen)
    executor.willBindAsCurrent()
    #expect(!executor.isCountedAsBoundAndOpen)
  }

  /// A task that outlives its scope still carries the closed executor; its jobs go where they
  /// would with no scope, and its clock opens an executor of its own that runs its work.
  @Test func aTaskThatOutlivesItsScopeIsRoutedAsWithoutOne() async {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    var closed: TestExecutor?
    let task = await withTestExecutor(leftoverWork: .ignore) {
      closed = TestExecutor.current
      return Task {
        for await _ in stream { break }
        let clock = TestClock()
        let woke = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.advance(by: .seconds(1))
        return (try? await woke.value) != nil
      }
    }
    #expect(closed?.isOpen == false)
    #expect(closed?.isCountedAsBoundAndOpen == false)
    continuation.yield()
    #expect(await task.value)
  }
}
