@_spi(TempoInternals) import TempoSupport

// What the one drive (`Drive.swift`) needs of a lone timeline.

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
