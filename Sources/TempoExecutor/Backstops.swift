import Dispatch
@_spi(TempoInternals) import TempoSupport

/// The timer of every test executor's backstop: one system thread that waits for the earliest
/// deadline armed and tells each executor whose deadline has come.
///
/// A backstop is armed whenever a driver's action releases a job (see
/// ``ExecutorQueue/Wake/backstop``), which is at nearly every step of an advance; it fires
/// only if the driver has not run that job by then. Arming costs a lock and an append: the
/// thread is signalled only when it waits with nothing armed, and every deadline is the same
/// distance from its arming, so one armed later is never due earlier. (A
/// `DispatchQueue.asyncAfter` per step wrote to libdispatch's timer thread and woke a worker
/// each time: about 10 µs of a step's 40.)
@available(TempoTestExecutor 1.0, *)
final class Backstops: @unchecked Sendable {
  // Invariant: `lock` guards `armed`, `head` and `isIdle`; executors are told after
  // unlocking. `armed[head...]` is in deadline order, and holds each executor until its
  // deadline (5 ms at most).
  static let shared = Backstops()

  private let lock = Lock()
  private var armed: [(deadline: UInt64, executor: TestExecutor)] = []
  private var head = 0
  /// Whether the thread waits with nothing armed, for a signal.
  private var isIdle = false
  private let wake = DispatchSemaphore(value: 0)

  /// Made at the first backstop armed, and starts the thread then: a serial queue's, which
  /// libdispatch gives even when its shared pool is busy.
  private init() {
    DispatchQueue(label: "Tempo test executor backstops").async { self.fireForever() }
  }

  /// Tells `executor` that its backstop is due (``TestExecutor/backstopIsDue()``) once
  /// `milliseconds` have passed.
  func arm(_ executor: TestExecutor, milliseconds: Int) {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    let signal = lock.withLock { () -> Bool in
      armed.append((deadline, executor))
      defer { isIdle = false }
      return isIdle
    }
    if signal { wake.signal() }
  }

  private func fireForever() {
    while true {
      let now = DispatchTime.now().uptimeNanoseconds
      let (due, next) = lock.withLock { () -> ([TestExecutor], UInt64?) in
        var due: [TestExecutor] = []
        while head < armed.count, armed[head].deadline <= now {
          due.append(armed[head].executor)
          head += 1
        }
        if head == armed.count {
          armed.removeAll(keepingCapacity: true)
          head = 0
          isIdle = true
          return (due, nil)
        }
        return (due, armed[head].deadline)
      }
      for executor in due { executor.backstopIsDue() }
      if let next {
        _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: next))
      } else {
        wake.wait()
      }
    }
  }
}
