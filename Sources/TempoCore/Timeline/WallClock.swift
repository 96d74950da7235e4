@_spi(TempoInternals) import TempoSupport

// The wall clock of a timeline: a date that moves with its virtual time.
//
// Code under test often reads the date beside a clock or a scheduler (a token that expires, "last
// saved 5 s ago"). The fronts answer it from the timeline: the date at which the front had moved
// no time at all, plus the virtual time it has moved since, exact in `Duration` (a `Date` rounds
// it to its `Double`). Every source of a shared timeline reads the group's, so they agree. Setting
// the date moves the wall clock alone, as a device whose clock is changed: no virtual time
// passes and nothing runs. Dates are kept as time since 1970, so the default start is the 1970
// epoch (where `RunLoop.test` and `OperationQueue.test` start too).

extension Timeline {
  /// The wall-clock date now, as time since 1970: a lone timeline's date at its start plus
  /// `elapsed(now)`, the virtual time its front has moved since it started; a shared timeline's
  /// group's date.
  package func wallDate(elapsed: (Time) -> Duration) -> Duration {
    if let sharing { return sharing.group.wallDate }
    lock.lock()
    let (start, now) = (wallStart, state.now)
    lock.unlock()
    return start + elapsed(now)
  }

  /// Sets the wall-clock date now to `date` (time since 1970), moving no virtual time and
  /// running nothing; on a shared timeline, for every source of it. `elapsed` must only convert
  /// (it runs under the lock, so that no advance comes between reading `now` and the change).
  package func setWallDate(_ date: Duration, elapsed: (Time) -> Duration) {
    if let sharing { return sharing.group.setWallDate(date) }
    lock.lock()
    wallStart = date - elapsed(state.now)
    lock.unlock()
  }
}
