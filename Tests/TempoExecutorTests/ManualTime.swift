import Dispatch
import Synchronization
@_spi(TempoInternals) import TempoSupport

@testable import TempoExecutor

/// Real time that a test moves by hand: what it runs after a delay runs, on its queue and
/// before `advance(byMilliseconds:)` returns, once that much of it has passed.
final class ManualTime: WallTime, @unchecked Sendable {
  // Invariant: `lock` guards `scheduled`, and `now` changes only under it; `now` is atomic, so
  // that it is read with no lock (the hang watch reads it under its own). The work due is run
  // after unlocking.
  private let lock = Lock()
  private let now = Atomic<UInt64>(1_000_000_000)
  private var scheduled: [(due: UInt64, queue: DispatchQueue, work: @Sendable () -> Void)] = []
  private let (scheduling, schedules) = AsyncStream<Void>.makeStream()

  /// One element each time something is scheduled: the event a test awaits before it moves time
  /// on, rather than a wait of its own.
  var somethingScheduled: AsyncStream<Void> { scheduling }

  var nanoseconds: UInt64 { now.load(ordering: .acquiring) }

  func after(
    nanoseconds: UInt64, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void
  ) {
    lock.withLock { scheduled.append((self.nanoseconds + nanoseconds, queue, work)) }
    schedules.yield()
  }

  /// Waits for `semaphore`, which this clock signals once it reads `nanoseconds` (a signal it
  /// gets before is kept for the next wait: a wake that finds nothing due).
  func wait(_ semaphore: DispatchSemaphore, untilNanoseconds nanoseconds: UInt64) {
    after(nanoseconds: nanoseconds &- min(nanoseconds, self.nanoseconds), on: signals) {
      semaphore.signal()
    }
    semaphore.wait()
  }

  /// Where the timed waits' signals are sent from.
  private let signals = DispatchQueue(label: "ManualTime signals")

  /// Moves time on by `milliseconds` without running anything: the thread that would have run
  /// it was held up. What came due runs, late, at the next ``advance(byMilliseconds:)``.
  func holdUp(byMilliseconds milliseconds: UInt64) {
    lock.withLock { _ = now.add(milliseconds * 1_000_000, ordering: .releasing) }
  }

  /// Moves time on by `milliseconds`, running in due order what comes due on the way (and what
  /// that schedules, if it comes due too), each at its own time.
  func advance(byMilliseconds milliseconds: UInt64) {
    advance(byNanoseconds: milliseconds * 1_000_000)
  }

  /// How much is scheduled and not run yet.
  var scheduledCount: Int { lock.withLock { scheduled.count } }

  /// How far from now the first work scheduled is due, in nanoseconds; nil if none is.
  var nextDelay: UInt64? {
    lock.withLock {
      scheduled.map(\.due).min().map { $0 &- min($0, nanoseconds) }
    }
  }

  /// Ends ``somethingScheduled``: its next element is nil, once those before have been read.
  func finishScheduling() { schedules.finish() }

  /// ``advance(byMilliseconds:)``, by `nanoseconds`.
  func advance(byNanoseconds interval: UInt64) {
    let target = nanoseconds + interval
    while true {
      let next = lock.withLock { () -> (DispatchQueue, @Sendable () -> Void)? in
        guard let index = scheduled.indices.min(by: { scheduled[$0].due < scheduled[$1].due }),
          scheduled[index].due <= target
        else {
          now.store(max(nanoseconds, target), ordering: .releasing)
          return nil
        }
        let item = scheduled.remove(at: index)
        now.store(max(nanoseconds, item.due), ordering: .releasing)
        return (item.queue, item.work)
      }
      guard let (queue, work) = next else { return }
      queue.sync(execute: work)
    }
  }
}
