import TempoCore
@_spi(TempoInternals) import TempoSupport

/// One ``Publishers/Pace`` subscription: a ``SteppingSubscriber`` upstream, and a
/// ``PaceStateMachine`` behind a lock for the demand and the one-value slot downstream.
///
/// Every event runs the machine under the lock, then does what it answered after unlocking:
/// calls to the downstream, the promise and the scheduler, and the release of anything the
/// machine let go of (a value, a promise, the downstream), which may run user code in a `deinit`.
final class PaceStorage<Output, Failure: Error, Context: Scheduler>: Subscription,
  @unchecked Sendable
{
  // Invariant: `lock` guards `machine`; `interval`, `scheduler` and `stepping` are set in `init`
  // and never change. Nothing is called or released while `lock` is held.
  private let lock = Lock()
  private var machine: PaceStateMachine<Output, Failure>
  private let interval: Context.SchedulerTimeType.Stride
  private let scheduler: Context
  private(set) var stepping: SteppingSubscriber<Output, Failure>!

  init(
    downstream: AnySubscriber<Output, Failure>,
    interval: Context.SchedulerTimeType.Stride,
    scheduler: Context
  ) {
    self.machine = PaceStateMachine(downstream: downstream)
    self.interval = interval
    self.scheduler = scheduler
    self.stepping = SteppingSubscriber { [weak self] event in self?.step(event) }
  }

  func request(_ more: Subscribers.Demand) {
    lock.withLock { machine.request(more) }
    drain()
  }

  func cancel() {
    let cancelled = lock.withLock { machine.cancel() }
    withExtendedLifetime(cancelled) {}
    stepping.cancel()
  }

  private func step(_ event: SteppingSubscriber<Output, Failure>.Event) {
    switch event {
    case .input(let value, let promise):
      let replaced = lock.withLock { machine.receive(value, promise: promise) }
      withExtendedLifetime(replaced) {}
    case .completion(let completion):
      lock.withLock { machine.receive(completion: completion) }
    }
    drain()
  }

  private func intervalDidElapse() {
    lock.withLock { machine.intervalElapsed() }
    drain()
  }

  /// Does whatever the machine allows, one call-out at a time, until nothing is left to do.
  private func drain() {
    while true {
      switch lock.withLock({ machine.next() }) {
      case .deliver(let value, let downstream):
        let more = downstream.receive(value)
        // The interval is measured from the delivery of each value.
        guard lock.withLock({ machine.didDeliver(demanding: more) }) else { return }
        scheduler.schedule(after: scheduler.now.advanced(by: interval)) { [weak self] in
          self?.intervalDidElapse()
        }
      case .complete(let completion, let downstream, let promise):
        downstream.receive(completion: completion)
        withExtendedLifetime(promise) {}
        return
      case .askForMore(let promise):
        promise(.more)
      case .none:
        return
      }
    }
  }
}
