// How a timeline takes new work: one-shot actions, and handles that can be cancelled and may
// repeat.

@_spi(TempoInternals) package import TempoSupport

extension Timeline {
  /// Schedules `action` to run once at `date` (or at `now`, if `date` is in the past).
  ///
  /// - Complexity: O(log n)
  package func schedule(after date: Time, at location: SourceLocation, _ action: @escaping Action) {
    let (problem, released, auto, watch) = lock.withLock {
      () -> (TimelineState<Time, Interval>.DateProblem?, AnyObject?, AutoAdvance?, Bool) in
      let problem = TimelineEvents.insert(
        &state, .once(action), after: date, sequence: takeSequence())
      return (problem, updateHold(), self.auto, startsWatchingPendingWork())
    }
    withExtendedLifetime(released) {}
    if let problem { report(problem, date: date, at: location) }
    if let auto { workArrived(auto) }
    if watch, scope.mayWatchPendingWork { scope.watchPendingWork(of: self) }
  }

  /// Schedules `action` to run at `date` and then, if `interval` is given, every `interval`
  /// after that, until the returned handle is cancelled.
  ///
  /// - Complexity: O(log n)
  package func schedule(
    after date: Time,
    interval: Interval?,
    at location: SourceLocation,
    _ action: @escaping Action
  ) -> Handle {
    if let interval { return schedule(after: date, every: interval, at: location, action) }
    return schedule(after: date, interval: .zero, repeats: false, at: location, action)
  }

  /// Schedules `action` to run once at `date`, listed in pending work as `label` says, until
  /// the returned handle is cancelled.
  ///
  /// - Complexity: O(log n)
  package func schedule(
    after date: Time, labeled label: String, at location: SourceLocation,
    _ action: @escaping Action
  ) -> Handle {
    schedule(after: date, interval: .zero, repeats: false, label: label, at: location, action)
  }

  /// Schedules `action` to run at `date` and then every `interval` after that, until the
  /// returned handle is cancelled; an interval that is not positive is reported, and the
  /// action runs once.
  ///
  /// - Complexity: O(log n)
  package func schedule(
    after date: Time,
    every interval: Interval,
    at location: SourceLocation,
    _ action: @escaping Action
  ) -> Handle {
    let repeats = interval > .zero
    let handle = schedule(after: date, interval: interval, repeats: repeats, at: location, action)
    if !repeats {
      location.report(TimelineMessage.nonPositiveInterval(name, interval))
    }
    return handle
  }

  /// Schedules the wake-up of `sleeper` at `date`, until the returned handle is cancelled: the
  /// sleep is then one of the ``pendingSleeps`` the end of a test ends.
  ///
  /// - Complexity: O(log n)
  package func scheduleWake(
    of sleeper: Sleeper, after date: Time, at location: SourceLocation
  ) -> Handle {
    schedule(
      after: date, interval: .zero, repeats: false, sleeper: sleeper, at: location
    ) { sleeper.wake() }
  }

  private func schedule(
    after date: Time,
    interval: Interval,
    repeats: Bool,
    label: String? = nil,
    sleeper: Sleeper? = nil,
    at location: SourceLocation,
    _ action: @escaping Action
  ) -> Handle {
    let handle = handleType.init(
      timeline: self, interval: interval, repeats: repeats, start: date, action: action)
    // Only a system sleep has a label: the others skip the store (unspecialized code writes a
    // generic class's field through its metadata). The sleeper is a field of the non-generic
    // base class, written before any other thread can see the handle.
    if label != nil { handle.label = label }
    if let sleeper { handle.sleeper = sleeper }
    let (problem, released, auto, watch) = lock.withLock {
      () -> (TimelineState<Time, Interval>.DateProblem?, AnyObject?, AutoAdvance?, Bool) in
      (
        TimelineEvents.schedule(&state, handle, after: date, sequence: takeSequence()),
        updateHold(), self.auto,
        startsWatchingPendingWork()
      )
    }
    withExtendedLifetime(released) {}
    if let problem { report(problem, date: date, at: location) }
    if let auto { workArrived(auto) }
    if watch, scope.mayWatchPendingWork { scope.watchPendingWork(of: self) }
    return handle
  }

  /// Whether the hang watch is to be asked to follow this timeline's pending work now: no
  /// watch follows it (see ``WatchedWorkSource``). Call with the lock held.
  private func startsWatchingPendingWork() -> Bool { !isPendingWorkWatched }

  /// Work was scheduled while auto-advance is on: starts its driver unless one runs.
  @inline(never)
  private func workArrived(_ auto: AutoAdvance) {
    guard auto.workArrived() else { return }
    if let sharing {
      sharing.group.startAutoDriver(auto)
    } else {
      startAutoDriver(auto)
    }
  }

  private func report(
    _ problem: TimelineState<Time, Interval>.DateProblem, date: Time, at location: SourceLocation
  ) {
    switch problem {
    case .invalid: location.report(TimelineMessage.invalidDate(name))
    case .unrepresentable: location.report(TimelineMessage.unrepresentableDate(name, date))
    }
  }
}

extension Timeline {
  /// A sleeper for a sleep on this timeline: it borrows the timeline's lock (the timeline never
  /// calls a sleeper with it held, nor a sleeper the timeline), which saves the allocation of a
  /// lock per sleep, and counts its wake-ups in ``wakeUps``.
  package func makeSleeper() -> Sleeper { Sleeper(lock: lock, wakeUps: wakeUps) }
}
