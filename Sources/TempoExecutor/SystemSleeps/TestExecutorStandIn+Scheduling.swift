// The one file that uses the runtime's experimental scheduling SPI (issue #38): a change to it in
// a later toolchain breaks this file, not the package. What reaches it, and why the design is
// so, is in Benchmarks/Logs/system-sleeps-probe-2026-11-26.md.
//
// Compiled with Swift 6.3 or later on Linux. On Apple platforms the SDK's interface for this SPI
// is not verified yet (the protocol is declared in the private interface only, from macOS and
// iOS 26.4): define TEMPO_SYSTEM_SLEEPS to try it there.
#if compiler(>=6.3) && (os(Linux) || TEMPO_SYSTEM_SLEEPS)
  @_spi(ExperimentalScheduling) import _Concurrency

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
      let sleeps: [@Sendable () async -> Void] = [
        { try? await Task.sleep(for: .seconds(3_600)) },
        { try? await Task.sleep(nanoseconds: 3_600_000_000_000) },
        { try? await Task.sleep(until: .now + .seconds(3_600), clock: .continuous) },
        { try? await ContinuousClock().sleep(for: .seconds(3_600)) },
        { try? await SuspendingClock().sleep(for: .seconds(3_600)) },
      ]
      var points: [UnsafeRawPointer] = []
      for sleep in sleeps {
        if let point = ProbeExecutor.resumePoint(of: sleep), !points.contains(point) {
          points.append(point)
        }
      }
      return points
    }
  }

  /// A probe's sleep is held, as its wake job, for ``SystemSleep/learnResumePoints()``.
  @available(TempoSystemSleeps 1.0, *)
  extension ProbeExecutor: SchedulingExecutor {
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
  }
#else
  @available(TempoTestExecutor 1.0, *)
  extension SystemSleep {
    /// Whether this build and system hand system sleeps to test executors.
    package static var areAvailable: Bool { false }

    static func learnResumePoints() -> [UnsafeRawPointer] { [] }
  }
#endif
