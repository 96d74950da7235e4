import TempoExecutor
@_spi(TempoInternals) package import TempoSupport

// How a timeline is driven, shares its time, and describes what is pending.

extension Timeline {
  /// The dates of the first `first` pending actions in the order they will run, how many are
  /// pending in all, and `now`; for diagnostics.
  ///
  /// - Complexity: O(n + k log n)
  package func pendingSummary(first: Int) -> (dates: [Time], count: Int, now: Time) {
    lock.withLock { (state.entries(first: first).map(\.date), state.pendingCount, state.now) }
  }

  /// Records where the front that owns this timeline was created, for listings of pending work.
  package func setCreation(_ location: SourceLocation) {
    lock.withLock { creation = location }
  }

  /// How listings of pending work name this timeline: "TestClock created at Tests.swift:12".
  package var sourceName: String {
    describeSource(name, createdAt: lock.withLock { creation })
  }

  /// The first `first` pending items in the order they run, how many are pending in all, and
  /// `now`, each time written as the front writes it.
  ///
  /// - Complexity: O(n + k log n)
  package func pendingItems(first: Int) -> (items: [PendingItem], count: Int, now: String) {
    let (entries, count, now) = lock.withLock {
      (state.entries(first: first), state.pendingCount, state.now)
    }
    let source = sourceName
    let items = entries.map { entry in
      PendingItem(due: describe(entry.date), source: source, interval: interval(of: entry.job))
    }
    return (items, count, describe(now))
  }

  /// The pending work, one line per item (the first 20) under a head line naming this
  /// timeline, its count and `now`; a member of a shared timeline lists its own work, dated
  /// in the shared time.
  ///
  /// - Complexity: O(n + k log n)
  package var pendingWorkDescription: String {
    let (items, count, now) = pendingItems(first: 20)
    return describePending(of: sourceName, items: items, count: count, now: now)
  }

  /// The interval of a repeating job, as a listing writes it; nil for a job that runs once.
  private func interval(of job: TimelineJob) -> String? {
    guard case .handle(let handle) = job, handle.repeats else { return nil }
    let interval = unsafeDowncast(handle, to: Handle.self).interval
    if let seconds = interval as? Duration { return describeSeconds(seconds) }
    return readable(interval)
  }

  /// Reports an issue if anything is pending, naming how much and when it is due; `noun` names
  /// the pending things ("action", "sleeper").
  package func expectNothingPending(noun: String, at location: SourceLocation) {
    let (dates, count, now) = pendingSummary(first: 5)
    guard count > 0 else { return }
    location.report(
      TimelineMessage.pending(
        name, count: count, noun: noun, dates: dates.map { readable($0) }, now: readable(now)))
  }

  /// "a, b, c and 7 more".
  package static func describe(_ dates: [Time], of count: Int) -> String {
    describeDates(dates.map { readable($0) }, of: count)
  }
}

extension Timeline: TimelineDriving {
  package var driveName: String { name }

  package var everythingDue: DueBound { .everything }

  package func dueBound(through target: Time) -> DueBound {
    // The pending work is never replaced, and making a bound reads none of its state; the lock
    // only keeps the read of `state` from racing with a writer.
    lock.lock()
    let pending = state.pending
    lock.unlock()
    return pending.bound(through: target)
  }

  package func pendingDescription(first: Int) -> (dates: [String], count: Int, now: String) {
    let (dates, count, now) = pendingSummary(first: first)
    return (dates.map(describe), count, describe(now))
  }

  package var nextTarget: Time? { nextDate }

  package var lastTarget: Time? { lock.withLock { state.lastDate() } }
}

extension Timeline: LeftoverWorkSource {
  package var leftoverDescription: String? {
    pendingCount == 0 ? nil : pendingWorkDescription
  }
}

extension Timeline: SharedTimelineMember {
  package func nextShared() -> (date: Duration, sequence: UInt64)? {
    guard let sharing else { return nil }
    return lock.withLock {
      state.next().map { (state.sharedDate(of: $0.date, toShared: sharing.toShared), $0.sequence) }
    }
  }

  package func pendingShared(
    first: Int
  ) -> [(date: Duration, sequence: UInt64, item: PendingItem)] {
    guard let sharing else { return [] }
    let entries = lock.withLock {
      state.entries(first: first).map {
        (state.sharedDate(of: $0.date, toShared: sharing.toShared), $0.sequence, $0.job)
      }
    }
    let source = sourceName
    return entries.map { date, sequence, job in
      let item = PendingItem(
        due: describeSeconds(date), source: source, interval: interval(of: job))
      return (date, sequence, item)
    }
  }

  package func lastShared() -> Duration? {
    guard let sharing else { return nil }
    return lock.withLock {
      state.lastDate().map { state.sharedDate(of: $0, toShared: sharing.toShared) }
    }
  }

  package func takeFirst(at location: SourceLocation) -> SharedTimeline.Action? {
    takeNext(dueBy: .everything, at: location)
  }

  package func catchUp(toShared date: Duration) {
    guard let sharing else { return }
    let moved = sharing.fromShared(date)
    lock.withLock {
      state.catchUp(to: moved, shared: date)
      progress &+= 1
    }
  }
}
