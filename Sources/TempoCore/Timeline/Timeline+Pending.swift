@_spi(TempoInternals) package import TempoSupport

// What a timeline has pending, as listings and issues describe it.

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
    if let sharing, sharing.group.isSoleSourcesOwn { sharing.group.setCreation(location) }
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
      PendingItem(
        due: describe(entry.date), source: source, interval: interval(of: entry.job),
        what: label(of: entry.job))
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

  /// What a job is, if it was scheduled with a label (see ``Handle/label``).
  func label(of job: TimelineJob) -> String? {
    guard case .handle(let handle) = job else { return nil }
    return unsafeDowncast(handle, to: Handle.self).label
  }

  /// The interval of a repeating job, as a listing writes it; nil for a job that runs once.
  func interval(of job: TimelineJob) -> String? {
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
}

extension Timeline: LeftoverWorkSource {
  package var leftoverDescription: String? {
    pendingCount == 0 ? nil : pendingWorkDescription
  }

  package var scheduledCount: UInt64 {
    if let sharing { return sharing.group.scheduledCount }
    return lock.withLock { state.scheduledCount }
  }

  package var creationLine: SourceLocation? {
    lock.withLock { creation }.flatMap { $0.isCallerUnknown || $0.factory != nil ? nil : $0 }
  }

  package var pendingSleeps: [PendingSleep] {
    // The sleepers and handles are released after unlocking, with the array.
    lock.withLock { state.pendingSleeps() }
  }
}

extension Timeline: WatchedWorkSource {
  package var hasPendingWork: Bool { pendingCount > 0 }

  package var isAdvancedByItself: Bool {
    // The driver's state is read after unlocking: nothing is called under the lock.
    let auto = lock.withLock { self.auto }
    return auto?.isDriverRunning ?? false
  }

  package func watchStarted() {
    lock.withLock { isPendingWorkWatched = true }
  }

  package func watchEnded() {
    lock.withLock { isPendingWorkWatched = false }
  }
}
