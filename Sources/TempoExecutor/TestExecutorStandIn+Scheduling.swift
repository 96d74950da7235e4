// The one file that uses the runtime's experimental scheduling SPI (issue #38): a change to it in
// a later toolchain breaks this file, not the package. What reaches it, and why the design is
// so, is in Documentation/system-sleeps-probe-2026-11-26.md.
//
// Compiled with Swift 6.3 or later on Linux. On Apple platforms the SDK's interface for this SPI
// is not verified yet (the protocol is declared in the private interface only, from macOS and
// iOS 26.4): define TEMPO_SYSTEM_SLEEPS to try it there.
#if compiler(>=6.3) && (os(Linux) || TEMPO_SYSTEM_SLEEPS)
  @_spi(ExperimentalScheduling) import _Concurrency
  import TempoRuntimeABI

  /// The system clocks' sleeps of every job a test executor runs reach its stand-in: the runtime
  /// asks the task executor of the running job for a scheduling executor before it falls back to
  /// the platform's. Each goes to the test clock that controls its test's system sleeps, or to
  /// real time (``SystemSleep``).
  @available(TempoSystemSleeps 1.0, *)
  extension TestExecutorStandIn: SchedulingExecutor {
    func enqueue<C: Clock>(
      _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
      SystemSleep.route(UnownedJob(job), at: instant, clock: clock)
    }

    func enqueue<C: Clock>(
      _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
    ) {
      SystemSleep.route(UnownedJob(job), at: clock.now.advanced(by: delay), clock: clock)
    }
  }

  @available(TempoTestExecutor 1.0, *)
  extension SystemSleep {
    /// Whether this build and system hand system sleeps to test executors.
    package static var areAvailable: Bool {
      if #available(TempoSystemSleeps 1.0, *) {
        return true
      }
      return false
    }

    /// Where a task suspended in each of the system sleeps resumes (see ``resumePoints``).
    static func learnResumePoints() -> [UnsafeRawPointer] {
      guard #available(TempoSystemSleeps 1.0, *) else { return [] }
      let sleeps: [@Sendable () async throws -> Void] = [
        { try await Task.sleep(for: .seconds(3_600)) },
        { try await Task.sleep(nanoseconds: 3_600_000_000_000) },
        { try await Task.sleep(until: .now + .seconds(3_600), clock: .continuous) },
        { try await ContinuousClock().sleep(for: .seconds(3_600)) },
        { try await SuspendingClock().sleep(for: .seconds(3_600)) },
      ]
      var points: [UnsafeRawPointer] = []
      for sleep in sleeps {
        if let point = HoldingExecutor.resumePoint(of: sleep), !points.contains(point) {
          points.append(point)
        }
      }
      return points
    }
  }

  /// A task executor that keeps the jobs and the sleeps it is given, to run them one at a time:
  /// a probe task sleeps on it once, and is read while its sleep is held.
  @available(TempoSystemSleeps 1.0, *)
  private final class HoldingExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // Invariant: `jobs` and `sleeps` are touched only by the thread of `resumePoint(of:)`,
    // which runs every job itself; nothing else enqueues here.
    var jobs: [UnownedJob] = []
    var sleeps: [UnownedJob] = []

    func enqueue(_ job: consuming ExecutorJob) { jobs.append(UnownedJob(job)) }

    func enqueue<C: Clock>(
      _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
      sleeps.append(UnownedJob(job))
    }

    func enqueue<C: Clock>(
      _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
    ) {
      sleeps.append(UnownedJob(job))
    }

    /// Where a task suspended in `sleep` resumes; nil if the sleep did not reach the executor.
    /// The probe task is cancelled, and every job run, so nothing is left behind.
    static func resumePoint(
      of sleep: @escaping @Sendable () async throws -> Void
    )
      -> UnsafeRawPointer?
    {
      let executor = HoldingExecutor()
      let task = Task(executorPreference: executor) { try? await sleep() }
      guard executor.jobs.count == 1 else {
        executor.runAll()
        return nil
      }
      let first = executor.jobs.removeFirst()
      let pointer = unsafeBitCast(first, to: UnsafeRawPointer.self)
      first.runSynchronously(on: executor.asUnownedTaskExecutor())
      let slept = executor.sleeps.count == 1 && !tempo_task_is_complete(pointer)
      let point = slept ? tempo_task_resume_function(pointer) : nil
      task.cancel()
      executor.runAll()
      withExtendedLifetime(task) {}
      return point
    }

    /// Runs what is held: the cancelled sleeper, then the wake jobs (which, after the
    /// cancellation, only free what their sleeps kept).
    func runAll() {
      while !jobs.isEmpty || !sleeps.isEmpty {
        if !jobs.isEmpty {
          jobs.removeFirst().runSynchronously(on: asUnownedTaskExecutor())
        } else {
          sleeps.removeFirst().runSynchronously(on: TaskLineage.genericExecutor)
        }
      }
    }
  }
#else
  @available(TempoTestExecutor 1.0, *)
  extension SystemSleep {
    /// Whether this build and system hand system sleeps to test executors.
    package static var areAvailable: Bool { false }

    static func learnResumePoints() -> [UnsafeRawPointer] { [] }
  }
#endif
