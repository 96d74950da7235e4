import TempoCore
import TempoExecutor
import TempoSupport

extension Scheduler {
  /// Suspends the current task for `duration` of this scheduler's time.
  ///
  /// On a ``TestScheduler`` the task resumes when the test advances past the deadline, so async
  /// code that waits on a scheduler is as testable as a publisher:
  ///
  /// ```swift
  /// Task { try await scheduler.sleep(for: .seconds(5)); model.message = "Welcome!" }
  /// await scheduler.advance(by: .seconds(5))
  /// ```
  ///
  /// A duration of zero or less still goes through the scheduler: the task resumes when the
  /// scheduler next runs the work due now (on a test scheduler, at the next `advance()`). It is
  /// never turned into a repeating timer.
  ///
  /// Cancellation is prompt: a cancelled task throws `CancellationError` at once, and the
  /// scheduled wake-up is cancelled where the scheduler allows it.
  ///
  /// On a test scheduler, erased or not, a sleep of the test's own task that nothing advances
  /// while the test's work is quiet is reported after about a second of real time and ends
  /// with `CancellationError`, as a test clock's sleep does, so that the test ends instead of
  /// hanging. A sleep still pending when its test ends throws `CancellationError` too, and its
  /// task is cancelled.
  public func sleep(
    for duration: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) async throws {
    try await sleep(until: now.advanced(by: duration), tolerance: tolerance, options: options)
  }

  /// Suspends the current task until this scheduler's time reaches `deadline`.
  ///
  /// A deadline already reached resumes when the scheduler next runs the work due now.
  /// See ``sleep(for:tolerance:options:)``.
  public func sleep(
    until deadline: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) async throws {
    if Task.isCancelled { try await TestSleeps.sleepOfCancelledTask() }
    let sleeper = Sleeper()
    do {
      try await withTaskCancellationHandler {
        try await withUnsafeThrowingContinuation { continuation in
          TestSleeps.willWait()
          guard sleeper.install(continuation) else { return }
          let wait = now.distance(to: deadline)
          if wait > .zero {
            // The repeating form is the only cancellable one `Scheduler` has; the sleeper
            // cancels it at its first tick, so it never repeats.
            let cancellable = schedule(
              after: deadline, interval: wait, tolerance: tolerance, options: options
            ) { sleeper.resume() }
            sleeper.hold { cancellable.cancel() }
            // On a test scheduler (erased or not), a sleep nobody advances is reported.
            if let scheduled = cancellable as? ScheduledOnTimeline,
              let creation = scheduled.creation
            {
              // One of the sleeps the end of the test ends, if still pending then.
              scheduled.handle.noteSleeper(sleeper)
              TestSleeps.watchForHangs(
                sleeper, handle: scheduled.handle, clock: creation, onScheduler: true)
            }
          } else {
            schedule(options: options) { sleeper.resume() }
          }
        }
      } onCancel: {
        sleeper.cancel()
      }
    } catch let ended as EndedBlockedOnTime {
      // The test was blocked on this sleep: say so where the test is, then end it.
      ended.report?.deliver()
      throw CancellationError()
    } catch let ended as EndedWithItsTest {
      // The test ended with this sleep pending: the task is cancelled.
      ended.cancelCurrentTask()
      throw CancellationError()
    }
  }

  /// An async sequence of this scheduler's time, one element every `interval`.
  ///
  /// ```swift
  /// for await _ in scheduler.timer(interval: .seconds(1)) {
  ///   count += 1
  /// }
  /// ```
  ///
  /// The first element comes one interval from now. Ending the iteration (or cancelling the
  /// task that iterates) cancels the scheduled ticks.
  public func timer(
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) -> AsyncStream<SchedulerTimeType> {
    // Invariant: the scheduler is only asked for `now`, from an action it runs itself, which
    // every scheduler allows (Combine's operators rely on it too). The time read is handed
    // over to the stream, not shared.
    let scheduler = UncheckedSendable(self)
    return AsyncStream { continuation in
      // Invariant: the only use is one `cancel()` from the stream's termination handler, and a
      // `Cancellable` may be cancelled from any thread.
      let cancellable = UncheckedSendable(
        schedule(
          after: now.advanced(by: interval), interval: interval, tolerance: tolerance,
          options: options
        ) {
          continuation.yield(scheduler.value.now)
        }
      )
      continuation.onTermination = cancelling(cancellable)
    }
  }

  /// The time `work` took on this scheduler's clock.
  ///
  /// ```swift
  /// let elapsed = scheduler.measure { scheduler.advance(by: 3) }   // 3 seconds
  /// ```
  public func measure(_ work: () throws -> Void) rethrows -> SchedulerTimeType.Stride {
    let start = now
    try work()
    return start.distance(to: now)
  }
}

/// A stream termination handler that cancels `cancellable`.
// Invariant: `cancellable` is only cancelled, which any thread may do.
private func cancelling<Element>(
  _ cancellable: UncheckedSendable<any Cancellable>
) -> @Sendable (AsyncStream<Element>.Continuation.Termination) -> Void {
  { _ in cancellable.value.cancel() }
}
