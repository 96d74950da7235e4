import Dispatch
import Synchronization
@_spi(TempoInternals) import TempoSupport

/// The queue where the runtime runs every job of a task that has no executor of its own: the
/// global concurrent executor. A task's `Task.yield()` continuation waits there, past Tempo's
/// hooks (see ``YieldResumePoint``), for one of its few threads.
///
/// That queue is not the platform's global dispatch queue. On Linux the runtime makes a queue of
/// its own per priority, as wide as the machine has logical processors (two threads on a
/// two-core machine), shared by every task of the process that runs on no actor and no task
/// executor; on Apple platforms it is the cooperative pool, as wide. Beside a whole parallel
/// test suite that queue can be hundreds of jobs deep while the global dispatch queue, with
/// threads to spare, runs a block at once: a yield's continuation was seen waiting 58 seconds
/// there, while looks queued on the global dispatch queue ran every millisecond.
///
/// So a wait for such a task looks through this queue: ``after(priority:_:)`` runs its body on
/// the global dispatch queue once a job queued now, at the priority given, has started here.
/// The queue starts its jobs in order, so by then every job queued before at that priority has
/// started too, the continuation waited for among them. A look that runs late because this
/// queue was deep counts little (``LookCredit``): the wait stretches for as long as the queue
/// keeps the task waiting.
///
/// ```swift
/// TasksQueue.after(priority: JobIdentity.priority(task)) {
///   // every job queued on the tasks' queue before the call, at that priority, has started
/// }
/// ```
///
/// The job is a task's (no public API makes a job of a closure), made so that Tempo's own
/// hooks send it straight on to the runtime's queue: no test executor takes it and the lineage
/// does not relay it (``isCreatingOnThisThread``).
@available(TempoTestExecutor 1.0, *)
enum TasksQueue {
  /// How many threads are making such a task now: while none is, the global hook reads no
  /// thread-specific value (one relaxed load on the path of every job).
  private static let creating = Atomic<Int>(0)
  /// Set on the thread making such a task, while it makes it.
  private static let key = Platform.ThreadSpecific()

  /// Runs `body` on the global dispatch queue once a job queued now on the tasks' queue at
  /// `priority` (a task priority's raw value) has started.
  static func after(priority: UInt8, _ body: @escaping @Sendable () -> Void) {
    // Off the tasks' queue at once: what a look does (resuming a waiter, starting the next
    // look) is no task's, as it was when looks ran on the global dispatch queue.
    enqueue(priority: priority) { DispatchQueue.global().async(execute: body) }
  }

  /// Runs `body` in a job queued now on the tasks' queue at `priority`, in a task of its own
  /// that no test executor takes and the lineage does not relay.
  static func enqueue(priority: UInt8, _ body: @escaping @Sendable () -> Void) {
    creating.add(1, ordering: .relaxed)
    key.value = UnsafeMutableRawPointer(bitPattern: 1)
    Task.detached(priority: TaskPriority(rawValue: priority)) { body() }
    key.value = nil
    creating.subtract(1, ordering: .relaxed)
  }

  /// Whether the current thread is making the task of ``after(priority:_:)``, whose first job
  /// the global hook sends on to the runtime's own queue untouched.
  static var isCreatingOnThisThread: Bool {
    creating.load(ordering: .relaxed) > 0 && key.value != nil
  }
}
