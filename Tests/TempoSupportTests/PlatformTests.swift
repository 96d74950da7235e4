import Foundation
@_spi(TempoInternals) import TempoSupport
import TempoTestHelpers
import Testing

/// The wrappers of the platform's C library in `Platform.swift`.
@Suite struct PlatformTests {
  @Test func aSymbolOfTheSwiftRuntimeIsFound() {
    #expect(Platform.symbol(named: "swift_task_enqueueGlobal_hook") != nil)
  }

  @Test func aSymbolThatNoImageDefinesIsNil() {
    #expect(Platform.symbol(named: "tempo_no_image_defines_this_symbol") == nil)
  }

  #if !canImport(Darwin)
    /// Under ThreadSanitizer the mutex is a pthread mutex, whose hand-overs the sanitizer sees;
    /// CI runs the sanitizer with `TSAN_OPTIONS` set, and the other test runs without it.
    @Test func theMutexKnowsWhetherItRunsUnderThreadSanitizer() {
      let sanitizerRun = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil
      #expect(Platform.isThreadSanitized == sanitizerRun)
    }
  #endif

  @Test func aThreadSpecificValueIsEachThreadsOwn() {
    let specific = Platform.ThreadSpecific()
    specific.value = UnsafeMutableRawPointer(bitPattern: 1)
    let seen = Log<Int>()
    let done = DispatchSemaphore(value: 0)
    Thread {
      seen.append(Int(bitPattern: specific.value))
      specific.value = UnsafeMutableRawPointer(bitPattern: 2)
      seen.append(Int(bitPattern: specific.value))
      done.signal()
    }.start()
    done.wait()
    #expect(seen.values == [0, 2])
    #expect(Int(bitPattern: specific.value) == 1)
    specific.value = nil
  }
}

@Suite struct LockTests {
  @Test func aLockLetsOneThreadAtATimeIn() {
    let lock = Lock()
    let counter = Counter()
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<10_000 {
        lock.withLock { counter.value += 1 }
      }
    }
    #expect(counter.value == 40_000)
  }

  /// More threads than cores, each giving up its core while it holds the lock: the waiters
  /// spin out and sleep in the kernel, and each release wakes one, which competes with the
  /// threads still running. No two are ever inside at once, and no increment is lost.
  @Test func aContendedLockStillLetsOneThreadAtATimeIn() {
    let lock = Lock()
    let counter = Counter()
    let overlaps = Counter()
    let threads = 3 * ProcessInfo.processInfo.activeProcessorCount + 2
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      for round in 0..<2_000 {
        lock.withLock {
          if counter.isInside { overlaps.value += 1 }
          counter.isInside = true
          counter.value += 1
          if round % 64 == 0 { sched_yield() }
          counter.isInside = false
        }
      }
    }
    #expect(counter.value == threads * 2_000)
    #expect(overlaps.value == 0)
  }

  @Test func aLockedBoxGuardsItsValue() {
    let box = LockedBox(0)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<10_000 { box.withLock { $0 += 1 } }
    }
    #expect(box.withLock { $0 } == 40_000)
    let flag = LockedBox(false)
    #expect(flag.setForTheFirstTime())
    #expect(!flag.setForTheFirstTime())
  }

  #if TEMPO_INTERNAL_CHECKS
    @Test func aThreadCountsTheLocksItHoldsAlongTheOrder() {
      let outer = Lock(rank: .timeline)
      let inner = Lock(rank: .sharedTimeline)
      let before = Lock.heldByCurrentThread
      outer.withLock {
        #expect(Lock.heldByCurrentThread == before + 1)
        inner.withLock { #expect(Lock.heldByCurrentThread == before + 2) }
        #expect(Lock.heldByCurrentThread == before + 1)
      }
      #expect(Lock.heldByCurrentThread == before)
    }

    /// Every way out of the order stops the process, naming both locks.
    @Test(arguments: 0..<4)
    func aLockTakenOutOfOrderStops(_ breach: Int) async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        [breach] in
        let pair: (Lock, Lock) =
          switch breach {
          case 0: (Lock(), Lock())  // two unordered locks
          case 1: (Lock(rank: .timeline), Lock())  // an unordered lock under a ranked one
          case 2: (Lock(), Lock(rank: .timeline))  // a ranked lock under an unordered one
          default: (Lock(rank: .sharedTimeline), Lock(rank: .timeline))  // against the order
          }
        pair.0.withLock { pair.1.withLock {} }
      }
      let message = standardError(of: result)
      #expect(message.contains("Tempo's lock order"))
      #expect(message.contains("PlatformTests.swift"))  // where each lock was made
    }
  #endif
}

/// A counter that only a `Lock` guards.
private final class Counter: @unchecked Sendable {
  // Invariant: `value` and `isInside` are read and written under the test's lock, or after
  // every thread that wrote them has finished.
  var value = 0
  var isInside = false
}
