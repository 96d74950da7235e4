@_spi(TempoInternals) package import TempoSupport

// How a timeline is driven, shares its time, and describes what is pending.

extension Timeline {
  /// The dates of the first `first` pending actions in the order they will run, how many are
  /// pending in all, and `now`. - Complexity: O(n + k log n); for diagnostics.
  package func pendingSummary(first: Int) -> (dates: [Time], count: Int, now: Time) {
    lock.withLock { (state.entries(first: first).map(\.date), state.pendingCount, state.now) }
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
}

extension Timeline: SharedTimelineMember {
  package func nextShared() -> (date: Duration, sequence: UInt64)? {
    guard let sharing else { return nil }
    return lock.withLock {
      state.next().map { (state.sharedDate(of: $0.date, toShared: sharing.toShared), $0.sequence) }
    }
  }

  package func pendingShared(first: Int) -> [(date: Duration, sequence: UInt64)] {
    guard let sharing else { return [] }
    return lock.withLock {
      state.entries(first: first).map {
        (state.sharedDate(of: $0.date, toShared: sharing.toShared), $0.sequence)
      }
    }
  }

  package func takeFirst(at location: SourceLocation) -> SharedTimeline.Action? {
    takeNext(dueBy: .everything, at: location)
  }

  package func catchUp(toShared date: Duration) {
    guard let sharing else { return }
    let moved = sharing.fromShared(date)
    lock.withLock { state.catchUp(to: moved, shared: date) }
  }
}
