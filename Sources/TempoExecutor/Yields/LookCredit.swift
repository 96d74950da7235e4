import Dispatch

/// How long a wait for a task Tempo cannot see run has given that task threads: the limits of
/// such waits (a task parked in a `Task.yield()` no hook saw, the job a clock opened an executor
/// in) count this, not the time on the wall, so that they do not run out while every thread is
/// busy with other work.
///
/// The wait looks again and again, each look queued where the task waited for waits: a task
/// parked in a yield waits for a thread of the tasks' queue, the runtime's global concurrent
/// executor, as wide as the machine has processors (``TasksQueue``), so each look goes
/// through that queue. A look that runs long after it was due waited behind other work (the
/// tests beside, a busy machine), and so did the task waited for. A look counts the time since
/// the one before, but at most twice the delay it was due after: with a free thread that is the
/// time on the wall; while that queue's threads are all busy, the limit stretches for as long
/// as they are, and a wait ends only once its task has had threads and still not come back.
/// (Looks queued on the global dispatch queue measured the wrong queue: it had threads to spare
/// while a yield's continuation waited 58 seconds on the tasks' queue beside a whole parallel
/// test suite.)
///
/// ```swift
/// var credit = LookCredit.starting(on: RealTime.system)
/// // A look due 5 ms after the last one, which runs 2 s after it: counts 10 ms.
/// credit.lookNow(dueAfterMicroseconds: 5_000, on: RealTime.system)
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

  /// A wait that begins now, as `time` reads it.
  static func starting(on time: any WallTime) -> LookCredit {
    LookCredit(startingAt: time.nanoseconds)
  }

  /// A look runs now, as `time` reads it, due `microseconds` after the last.
  mutating func lookNow(dueAfterMicroseconds microseconds: Int, on time: any WallTime) {
    look(at: time.nanoseconds, dueAfter: UInt64(microseconds) * 1_000)
  }

  /// A look ran at `now` (nanoseconds of uptime), due `delay` nanoseconds after the last.
  mutating func look(at now: UInt64, dueAfter delay: UInt64) {
    let elapsed = now >= last ? now - last : 0
    nanoseconds += min(elapsed, Guesses.lookCreditFactor * delay)
    last = now
  }
}
