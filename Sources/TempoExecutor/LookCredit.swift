import Dispatch

/// How long a wait for a task Tempo cannot see run has given that task threads: the limits of
/// such waits (a task parked in a `Task.yield()` no hook saw, the job a clock opened an executor
/// in) count this, not the time on the wall, so that they do not run out while every thread is
/// busy with other work.
///
/// The wait looks again and again, each look queued on the platform's global dispatch queue,
/// where it runs once a thread of that queue is free. On Linux the runtime's default executor
/// queues every task's jobs on the same queue (a yield's continuation among them): a look that
/// runs long after it was due waited behind other work (the tests beside, a busy machine), and
/// so did the task waited for. A look counts the time since the one before, but at most twice
/// the delay it was due after: on a machine with a free thread that is the time on the wall;
/// while every thread is busy, the limit stretches for as long as they are, and a wait ends
/// only once its task has had threads and still not come back. (On Apple platforms tasks run
/// on the runtime's cooperative pool, not that queue: a look measures whether the machine
/// gives threads time, not whether that pool has a free thread.)
///
/// ```swift
/// var credit = LookCredit.startingNow()
/// // A look due 5 ms after the last one, which runs 2 s after it: counts 10 ms.
/// credit.lookNow(dueAfterMicroseconds: 5_000)
/// if credit.nanoseconds >= 1_000_000_000 { /* the limit: stop waiting */ }
/// ```
struct LookCredit {
  /// The time counted so far, in nanoseconds.
  private(set) var nanoseconds: UInt64 = 0
  /// When the last look ran (or the wait began), in nanoseconds of uptime.
  private var last: UInt64

  /// A wait that begins at `now`, in nanoseconds of uptime.
  init(startingAt now: UInt64) {
    last = now
  }

  /// A wait that begins now.
  static func startingNow() -> LookCredit {
    LookCredit(startingAt: DispatchTime.now().uptimeNanoseconds)
  }

  /// A look runs now, due `microseconds` after the last.
  mutating func lookNow(dueAfterMicroseconds microseconds: Int) {
    look(at: DispatchTime.now().uptimeNanoseconds, dueAfter: UInt64(microseconds) * 1_000)
  }

  /// A look ran at `now` (nanoseconds of uptime), due `delay` nanoseconds after the last.
  mutating func look(at now: UInt64, dueAfter delay: UInt64) {
    let elapsed = now >= last ? now - last : 0
    nanoseconds += min(elapsed, 2 * delay)
    last = now
  }
}
