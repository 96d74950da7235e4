@_spi(TempoInternals) package import TempoSupport

/// One suspended sleep, resumed exactly once: by its wake-up or by cancellation.
///
/// The test clock and the schedulers' `sleep` both use it; the clock's sleep on its timeline:
///
/// ```swift
/// let sleeper = timeline.makeSleeper()
/// try await withTaskCancellationHandler {
///   try await withUnsafeThrowingContinuation { continuation in
///     guard sleeper.install(continuation) else { return }
///     let handle = timeline.schedule(after: deadline, interval: nil, at: location) {
///       sleeper.wake()
///     }
///     sleeper.hold(handle)
///   }
/// } onCancel: {
///   sleeper.cancel()
/// }
/// ```
package final class Sleeper: @unchecked Sendable {
  // Invariant: `lock` guards every `var`; the continuation is resumed and the wake-up cancelled
  // only after unlocking. `wakeUps` is immutable.
  private let lock: Lock
  private let wakeUps: WakeUps?
  private var continuation: UnsafeContinuation<Void, any Error>?
  /// Called instead of resuming a continuation, for a sleep the runtime suspends itself (a
  /// system sleep a test clock took; see ``install(ending:)``).
  private var ending: (@Sendable ((any Error)?) -> Void)?
  private var wakeUp: WakeUp?
  private var isFinished = false
  /// What follows this sleep until it ends (the hang watch; see ``beginWatch(by:)``).
  private var watcher: (any SleepWatcher)?

  /// A sleeper guarded by `lock`, which may be borrowed from its timeline (nothing here calls
  /// the timeline with it held), and whose wake-ups ``wake()`` counts in `wakeUps`.
  package init(lock: Lock = Lock(), wakeUps: WakeUps? = nil) {
    self.lock = lock
    self.wakeUps = wakeUps
  }

  /// Stores the continuation; answers false (after resuming it with `CancellationError`) if the
  /// sleep was already cancelled, in which case nothing should be scheduled.
  package func install(_ continuation: UnsafeContinuation<Void, any Error>) -> Bool {
    let cancelled = lock.withLock {
      if isFinished { return true }
      self.continuation = continuation
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
    return !cancelled
  }

  /// For a sleep whose task the runtime suspends and resumes itself: `ending` is called, once,
  /// with how the sleep ended (nil: woken), in place of resuming a continuation. Answers false
  /// (having called it with `CancellationError`) if the sleep was already over.
  package func install(ending: @escaping @Sendable ((any Error)?) -> Void) -> Bool {
    let over = lock.withLock {
      if isFinished { return true }
      self.ending = ending
      return false
    }
    if over { ending(CancellationError()) }
    return !over
  }

  /// Keeps the timeline handle of the scheduled wake-up, to cancel it when the sleep ends, or
  /// cancels it at once if the sleep is over.
  package func hold(_ handle: TimelineHandle) {
    hold(.handle(handle))
  }

  /// Keeps the way to cancel the scheduled wake-up, or calls it at once if the sleep is over.
  package func hold(_ cancelWakeUp: @escaping () -> Void) {
    hold(.closure(cancelWakeUp))
  }

  private func hold(_ wakeUp: WakeUp) {
    lock.lock()
    let finished = isFinished
    if !finished { self.wakeUp = wakeUp }
    lock.unlock()
    if finished { wakeUp.cancel() }
  }

  /// Ends the sleep from its timeline's action, counting the wake-up in the sleeper's
  /// ``WakeUps`` until the woken task acknowledges it (an advance waits for that). A scheduled
  /// action that only calls this captures the sleeper alone, and so is not allocated.
  package func wake() {
    wakeUps?.willWake()
    if !resume() { wakeUps?.didNotWake() }
  }

  /// Ends the sleep normally; answers false if it had already ended. (Either way the wake-up is
  /// cancelled, in case it would repeat.)
  @discardableResult
  package func resume() -> Bool { finish(with: nil) }

  /// Ends the sleep with `CancellationError`.
  package func cancel() { finish(with: CancellationError()) }

  /// Ends the sleep with `error`, which its sleep function knows (the end of the test ends a
  /// sleep still pending with an error of its own); answers false if it had already ended.
  @discardableResult
  package func end(throwing error: any Error) -> Bool { finish(with: error) }

  /// Whether the sleep has not ended yet.
  package var isPending: Bool { lock.withLock { !isFinished } }

  /// Lets `watcher` follow this sleep until it ends, if it has not ended yet; answers whether
  /// it does. The watcher is told when the sleep ends (``SleepWatcher/sleepEnded(_:)``).
  package func beginWatch(by watcher: any SleepWatcher) -> Bool {
    lock.withLock {
      guard !isFinished else { return false }
      self.watcher = watcher
      return true
    }
  }

  /// Ends the sleep for the hang watch: its task reports `report` (if given) and throws
  /// `CancellationError` (see ``EndedBlockedOnTime``).
  package func endBlockedOnTime(_ report: HangReport?) {
    finish(with: EndedBlockedOnTime(report: report))
  }

  @discardableResult
  private func finish(with error: (any Error)?) -> Bool {
    // `lock()` and `unlock()` rather than `withLock`: a closure returned from the generic
    // `withLock` is re-wrapped in a thunk, one allocation per sleep.
    lock.lock()
    guard !isFinished else {
      lock.unlock()
      return false
    }
    isFinished = true
    let continuation = self.continuation
    let ending = self.ending
    let wakeUp = self.wakeUp
    let watcher = self.watcher
    self.watcher = nil
    (self.continuation, self.ending, self.wakeUp) = (nil, nil, nil)
    lock.unlock()
    watcher?.sleepEnded(self)
    wakeUp?.cancel()
    if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
    ending?(error)
    return true
  }

  /// How to cancel the scheduled wake-up: a timeline's handle, or a closure (for a scheduler,
  /// whose only cancellable schedule is Combine's `Cancellable`).
  private enum WakeUp {
    case handle(TimelineHandle)
    case closure(() -> Void)

    func cancel() {
      switch self {
      case .handle(let handle): handle.cancel()
      case .closure(let cancel): cancel()
      }
    }
  }
}
