@_spi(TempoInternals) package import TempoSupport

// A lone timeline as a member of a shared one (`SharedTimeline`): its pending work in shared
// time.

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
        due: describeSeconds(date), source: source, interval: interval(of: job),
        what: label(of: job))
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
