@_spi(TempoInternals) package import TempoSupport

extension Timeline {
  /// The instant an `advance(by:)` of `stride` moves to; reports a negative or invalid stride
  /// and answers `now` for it.
  package func target(advancingBy stride: Interval, at location: SourceLocation) -> Time {
    lock.lock()
    var target = TimelineEvents.now(state)
    let problem = timelineTarget(
      from: target, advancingBy: stride, advancedBy: state.advancedBy, into: &target)
    lock.unlock()
    switch problem {
    case nil: break
    case .unrepresentableTarget:
      location.report(TimelineMessage.unrepresentableTarget(name, stride, now: target))
    default:
      location.report(TimelineMessage.negativeStride(name, stride, now: target))
    }
    return target
  }

  /// The instant an `advance(to:)` `instant` moves to; reports an instant before `now` (or an
  /// invalid one) and answers `now` for it.
  package func target(advancingTo instant: Time, at location: SourceLocation) -> Time {
    let (target, problem) = lock.withLock { state.target(advancingTo: instant) }
    switch problem {
    case nil: break
    case .invalidInstant:
      location.report(TimelineMessage.invalidInstant(name, now: target))
    default:
      location.report(TimelineMessage.instantInPast(name, instant, now: target))
    }
    return target
  }

  /// Advances by `stride` (validated), running the work due on the way: on this timeline, or
  /// on every member of the shared timeline it belongs to.
  package func advance(by stride: Interval, at location: SourceLocation) {
    let target = target(advancingBy: stride, at: location)
    if sharing != nil { return advanceShared(to: target, by: stride, at: location) }
    drive(to: target, at: location)
  }

  /// The shared branch of ``advance(by:at:)``, in a function of its own: unspecialized code
  /// looks up the metadata of every type a function uses when it is entered, and this branch
  /// uses an optional of `Interval`, which a lone timeline's advance should not pay for.
  @inline(never)
  private func advanceShared(to target: Time, by stride: Interval, at location: SourceLocation) {
    sharing?.group.drive(to: sharedTarget(target, by: stride), at: location)
  }

  /// Advances to `instant` (validated), running the work due on the way.
  package func advance(to instant: Time, at location: SourceLocation) {
    let target = target(advancingTo: instant, at: location)
    if let sharing {
      sharing.group.drive(to: sharedTarget(target, by: nil), at: location)
    } else {
      drive(to: target, at: location)
    }
  }

  /// Runs pending work until none is left, within a ``RunBudget`` of `limit` actions (or the
  /// default bounds if nil).
  package func run(limit: Int?, at location: SourceLocation) {
    if let sharing {
      sharing.group.drive(through: nil, budget: RunBudget(limit: limit), at: location)
    } else {
      drive(through: nil, budget: RunBudget(limit: limit), at: location)
    }
  }

  /// ``advance(by:at:)`` for async code, settling after each action.
  package func advance(
    by stride: Interval,
    isolation: isolated (any Actor)? = #isolation, at location: SourceLocation
  ) async {
    let target = target(advancingBy: stride, at: location)
    if let sharing {
      await sharing.group.drive(to: sharedTarget(target, by: stride), at: location)
    } else {
      await drive(to: target, at: location)
    }
  }

  /// ``advance(to:at:)`` for async code, settling after each action.
  package func advance(
    to instant: Time,
    isolation: isolated (any Actor)? = #isolation, at location: SourceLocation
  ) async {
    let target = target(advancingTo: instant, at: location)
    if let sharing {
      await sharing.group.drive(to: sharedTarget(target, by: nil), at: location)
    } else {
      await drive(to: target, at: location)
    }
  }

  /// ``run(limit:at:)`` for async code, settling after each action.
  package func run(
    limit: Int?,
    isolation: isolated (any Actor)? = #isolation, at location: SourceLocation
  ) async {
    if let sharing {
      await sharing.group.drive(through: nil, budget: RunBudget(limit: limit), at: location)
    } else {
      await drive(through: nil, budget: RunBudget(limit: limit), at: location)
    }
  }

  /// Advances to `stop`'s pending date (of any member of a shared timeline) and runs what is
  /// due by then.
  package func advance(toPending stop: PendingStop, at location: SourceLocation) {
    if let sharing { return sharing.group.drive(toPending: stop, at: location) }
    drive(toPending: stop, at: location)
  }

  /// ``advance(toPending:at:)`` for async code.
  package func advance(
    toPending stop: PendingStop, isolation: isolated (any Actor)? = #isolation,
    at location: SourceLocation
  ) async {
    if let sharing { return await sharing.group.drive(toPending: stop, at: location) }
    await drive(toPending: stop, at: location)
  }

  /// The actor on which an async verb of the front, called from `caller`, has this timeline
  /// run its actions: the one place that decides it, for every front to pass as the `isolation`
  /// of the verbs below.
  ///
  /// The caller's actor, so that in a `@MainActor` test a main-actor model's `sink` runs on the
  /// main actor, as it does on the main queue in the app; a shared timeline's drive runs every
  /// member's actions, a scheduler's among them, so it takes the caller's too. A lone test
  /// clock's actions only resume sleepers, whose tasks go on where they belong: its drive runs
  /// off the caller's actor (nil), which measured faster.
  package func actor(forActionsOf caller: (any Actor)?) -> (any Actor)? {
    actionsRunOnTheCallersActor ? caller : nil
  }

  /// The shared time a member's advance to `target` moves to. An advance that does not move
  /// this member's `now` (a stride of zero, or one that was reported) keeps the shared time
  /// exactly; an advance by `stride` moves the shared time by the stride, measured in shared
  /// time, rather than by the difference of two coarse dates.
  private func sharedTarget(_ target: Time, by stride: Interval?) -> Duration {
    guard let sharing else { return .zero }
    let base = sharing.group.now
    guard now < target else { return base }
    if let stride {
      let origin = sharing.fromShared(.zero)
      let moved = lock.withLock { state.advancedBy }(origin, stride)
      return base + (sharing.toShared(moved) - sharing.toShared(origin))
    }
    return max(base, sharing.toShared(target))
  }
}
