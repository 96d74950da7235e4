import TempoExecutor
@_spi(TempoInternals) import TempoSupport

/// One suspended sleep, resumed exactly once: by its wake-up or by cancellation.
///
/// The test clock and the schedulers' `sleep` both use it:
///
/// ```swift
/// let sleeper = Sleeper()
/// try await withTaskCancellationHandler {
///   try await withUnsafeThrowingContinuation { continuation in
///     guard sleeper.install(continuation) else { return }
///     let handle = timeline.schedule(after: deadline, interval: nil, at: location) {
///       sleeper.resume()
///     }
///     sleeper.hold { handle.cancel() }
///   }
/// } onCancel: {
///   sleeper.cancel()
/// }
/// ```
package final class Sleeper: @unchecked Sendable {
  // Invariant: `lock` guards every `var`; the continuation is resumed and the wake-up cancelled
  // only after unlocking.
  private let lock = Lock()
  private var continuation: UnsafeContinuation<Void, any Error>?
  private var cancelWakeUp: (() -> Void)?
  private var isFinished = false

  package init() {}

  /// Stores the continuation; answers false (after resuming it with `CancellationError`) if the
  /// sleep was already cancelled, in which case nothing should be scheduled.
  package func install(_ continuation: UnsafeContinuation<Void, any Error>) -> Bool {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
      TestExecutor.noteCurrentTask()
    }
    let cancelled = lock.withLock {
      if isFinished { return true }
      self.continuation = continuation
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
    return !cancelled
  }

  /// Keeps the way to cancel the scheduled wake-up, or calls it at once if the sleep is over.
  package func hold(_ cancelWakeUp: @escaping () -> Void) {
    let finished = lock.withLock {
      if !isFinished { self.cancelWakeUp = cancelWakeUp }
      return isFinished
    }
    if finished { cancelWakeUp() }
  }

  /// Ends the sleep normally; answers false if it had already ended. (Either way the wake-up is
  /// cancelled, in case it would repeat.)
  @discardableResult
  package func resume() -> Bool { finish(with: nil) }

  /// Ends the sleep with `CancellationError`.
  package func cancel() { finish(with: CancellationError()) }

  @discardableResult
  private func finish(with error: (any Error)?) -> Bool {
    let (finished, continuation, cancelWakeUp) = lock.withLock {
      () -> (Bool, UnsafeContinuation<Void, any Error>?, (() -> Void)?) in
      guard !isFinished else { return (false, nil, nil) }
      isFinished = true
      defer { (self.continuation, self.cancelWakeUp) = (nil, nil) }
      return (true, self.continuation, self.cancelWakeUp)
    }
    cancelWakeUp?()
    if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
    return finished
  }
}
