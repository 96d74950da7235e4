import Dispatch
package import TempoCore
@_spi(TempoInternals) package import TempoSupport

/// What the hang watch sees of one sleep at one look.
package struct HangObservation: Equatable, Sendable {
  /// The sleep's time source: any change means it advanced or ran an action.
  package var progress: UInt64
  /// The test's executor, if the sleep has one.
  package var activity: TestActivity?
  /// Whether the sleep is still pending.
  package var isPending: Bool
  /// Whether the sleep's time source moves by itself now (its auto-advance driver runs): the
  /// driver reaches the sleep once the test is quiet, even if it waits for a thread meanwhile.
  package var isAdvancedByItself: Bool
  /// For a time source watched as a whole (``WatchedWorkSource``), whether any work is pending
  /// on it; always true for a sleep, which is pending while watched.
  package var hasWork: Bool

  package init(
    progress: UInt64, activity: TestActivity?, isPending: Bool, isAdvancedByItself: Bool = false,
    hasWork: Bool = true
  ) {
    self.progress = progress
    self.activity = activity
    self.isPending = isPending
    self.isAdvancedByItself = isAdvancedByItself
    self.hasWork = hasWork
  }

  /// The first observation of a watch that has not been looked at yet: pending, holding nothing
  /// up, so that the first look records what it sees and counts from there.
  static var unobserved: HangObservation {
    HangObservation(progress: 0, activity: nil, isPending: true, hasWork: false)
  }

  /// Whether, as seen now, the sleep holds its test up: pending, its time source not moving by
  /// itself, its test still running, quiet and not waiting on outside work.
  package var holdsTestUp: Bool {
    guard isPending, hasWork, !isAdvancedByItself else { return false }
    guard let activity else { return true }
    return activity.isRunningTest && activity.isQuiet && !activity.waitsOnOutsideWork
      && activity.testTaskIsWaiting
  }
}

/// How long a watched thing has been stalled, look after look: the one rule of both watches
/// (sleeps, ``HangWatchState``; the main queue, ``MainQueueWatchState``). A look stalls when
/// the thing holds its test up and nothing changed since the previous look; any change, a look
/// that does not hold the test up, or a gap in the looks (the watch itself was held up, say by
/// a debugger stopping the process) starts the count again.
struct StallCount<Observation: Equatable> {
  /// What the previous look saw.
  private(set) var last: Observation
  /// Looks in a row that stalled.
  private(set) var stalledLooks = 0

  init(first: Observation) {
    last = first
  }

  /// Records a look that saw `observation`, which `holdsTestUp` or not.
  mutating func look(_ observation: Observation, holdsTestUp: Bool, afterGap: Bool) {
    if !afterGap, holdsTestUp, observation == last {
      stalledLooks += 1
    } else {
      stalledLooks = 0
      last = observation
    }
  }
}

/// The rules of the hang watch, a pure value with no clock, lock or thread: fed what was seen
/// of each sleep at each look, it answers the sleeps that have held their test up for
/// `looksToFire` looks in a row with nothing moving.
package struct HangWatchState<Payload> {
  private struct Entry {
    let payload: Payload
    /// The test the sleep belongs to: sleeps of one test are reported together.
    let group: ObjectIdentifier
    /// Registration order: the first sleep of a group carries its report.
    let serial: UInt64
    var count: StallCount<HangObservation>
  }

  /// How many looks in a row a sleep must hold its test up, unchanged, to be reported.
  package let looksToFire: Int
  private var entries: [ObjectIdentifier: Entry] = [:]
  private var serial: UInt64 = 0

  package init(looksToFire: Int) {
    self.looksToFire = looksToFire
  }

  package var isEmpty: Bool { entries.isEmpty }

  /// Starts watching a sleep, as `first` saw it when it began.
  package mutating func add(
    _ key: ObjectIdentifier, _ payload: Payload, group: ObjectIdentifier, first: HangObservation
  ) {
    serial += 1
    entries[key] = Entry(
      payload: payload, group: group, serial: serial, count: StallCount(first: first))
  }

  /// What is watched under `key`, if anything.
  package func payload(of key: ObjectIdentifier) -> Payload? { entries[key]?.payload }

  /// Stops watching a sleep; answers its payload, for the caller to release after unlocking.
  package mutating func remove(_ key: ObjectIdentifier) -> Payload? {
    entries.removeValue(forKey: key)?.payload
  }

  /// The sleeps watched now, to observe outside the lock.
  package var watched: [(key: ObjectIdentifier, payload: Payload)] {
    entries.map { ($0.key, $0.value.payload) }
  }

  /// Records one look. A sleep that is no longer pending is dropped. A sleep stalls for a look
  /// when it holds its test up and nothing changed since the previous look: not its time
  /// source, not the test's jobs. After a gap (the watch itself was held up, say by a debugger
  /// stopping the process) no sleep counts as stalled, since no one could act meanwhile.
  /// Answers the sleeps that stalled for ``looksToFire`` looks, by test, each test's sleeps in
  /// the order they began; they are no longer watched. With them go the test's other sleeps
  /// that hold it up at this look, however recently they began (a task that reached its sleep
  /// a look later, on a slow machine): one report names every sleep the test is blocked on,
  /// rather than a second report a look later.
  package mutating func record(
    _ observations: [(key: ObjectIdentifier, observation: HangObservation)], afterGap: Bool
  ) -> [[Payload]] {
    var fired: [ObjectIdentifier: [(serial: UInt64, payload: Payload)]] = [:]
    var holding: [ObjectIdentifier] = []
    for (key, observation) in observations {
      guard var entry = entries[key] else { continue }
      guard observation.isPending else {
        entries[key] = nil
        continue
      }
      entry.count.look(observation, holdsTestUp: observation.holdsTestUp, afterGap: afterGap)
      if entry.count.stalledLooks >= looksToFire {
        entries[key] = nil
        fired[entry.group, default: []].append((entry.serial, entry.payload))
      } else {
        entries[key] = entry
        if !afterGap, observation.holdsTestUp { holding.append(key) }
      }
    }
    for key in holding {
      guard let entry = entries[key], fired[entry.group] != nil else { continue }
      entries[key] = nil
      fired[entry.group, default: []].append((entry.serial, entry.payload))
    }
    return fired.values
      .map { $0.sorted { $0.serial < $1.serial } }
      .sorted { $0[0].serial < $1[0].serial }
      .map { $0.map(\.payload) }
  }
}

/// Reports a test blocked on time instead of letting it hang: the sleeps on test clocks that
/// hold a test up while nothing moves.
///
/// A sleep is watched when it can hold its test up for good (``SleeperRole``): a sleep of the
/// test's own task, or of another task of a scope while the scope's body waits. A thread of
/// its own looks every period of real time (the system's clock, which only Tempo's own tests replace). A sleep
/// that is still pending, in a test whose work is quiet and that waits on no outside work,
/// while neither its clock nor the test's jobs moved, for ``looksToFire`` looks in a row after
/// the first that saw it (about a second), is reported: one issue per test, naming each such
/// sleep, its due time and its clock. The sleeps are then ended with `CancellationError`, so
/// that the test ends instead of hanging. The report is made by the task that slept, when it
/// resumes, so that it lands in that task's test.
///
/// The same looks follow a test whose work is pumped on the main queue while an advance waits
/// for it (``watchMainQueue(of:)``): if a pump block queued there has not started for
/// ``looksToFire`` looks (``MainQueueWatchState``), the main queue is not being drained, and
/// the advance stops waiting and reports it (``TestExecutor/mainQueueStalled(since:)``).
@available(TempoTestExecutor 1.0, *)
package final class HangWatch: @unchecked Sendable {
  // Invariant: `lock` guards `state`, `work`, `watchOfSource`, `sourcesOfTest`, `requested`,
  // `mainQueue`, `isLooking` and `lastLook`. Nothing is observed, ended or released under it:
  // payloads are copied out, observed after unlocking, and the ones that fired or were removed
  // are let go after unlocking (a watch of pending work ends in its `deinit`).
  private let lock = Lock()
  private var state: HangWatchState<Watched>
  /// The time sources followed as a whole (``WatchedWork``), each under the key of its watch
  /// (a source's address may be reused by another source while the watch of the first waits
  /// for its next look): each is its own group, and needs ``workLooksBeyondSleeps`` looks more
  /// than a sleep, so that the sleeps of a blocked test are reported and ended first.
  private var work: HangWatchState<WatchedWork>
  /// The key of the watch of each source that has one, by the source's address: an entry and
  /// its watch in `work` go together (``sourceEnded(_:)``, ``forgetSources(of:)``).
  private var watchOfSource: [ObjectIdentifier: ObjectIdentifier] = [:]
  /// How many sources are followed for each test, by its task's address (at most
  /// ``sourcesPerTest``).
  private var sourcesOfTest: [UnsafeRawPointer: Int] = [:]
  /// Watches of pending work that tests with a deferred executor asked for, followed from the
  /// next look on (``request(_:of:)``).
  private var requested: [WatchRequest] = []
  private var mainQueue: MainQueueWatchState<any MainQueueWatched>
  private var isLooking = false
  /// When the last look ended and scheduled the next (or the first was scheduled): the gap
  /// before a look is counted from here.
  private var lastLook: UInt64
  private let queue = DispatchQueue(label: "Tempo hang watch")
  /// The real time the looks are timed by: the system's, but in Tempo's own tests.
  private let time: any WallTime
  /// Whether the thread that drains the main queue could run, read once a look while a main
  /// queue is watched: the operating system's answer (``MainQueueActivity/drainerRuns``), or in
  /// Tempo's own tests the one they hand in.
  private let mainQueueThreadRuns: @Sendable () -> Bool
  /// How many looks in a row a sleep must hold its test up to be reported.
  let looksToFire: Int
  let periodNanoseconds: UInt64

  /// The one watch of the process. Its decisions are per test; the thread is shared.
  package static let shared = HangWatch(
    looksToFire: Guesses.hangLooksToFire, periodMilliseconds: Guesses.hangLookPeriodMilliseconds)

  /// A watch that looks every `periodMilliseconds` of `time`, and reports a sleep that held its
  /// test up for `looksToFire` looks in a row. It reads whether the main queue's thread could
  /// run through `mainQueueThreadRuns`.
  init(
    looksToFire: Int, periodMilliseconds: Int, time: any WallTime = RealTime.system,
    mainQueueThreadRuns: @escaping @Sendable () -> Bool = { MainQueueActivity.drainerRuns }
  ) {
    self.time = time
    self.mainQueueThreadRuns = mainQueueThreadRuns
    lastLook = time.nanoseconds
    state = HangWatchState(looksToFire: looksToFire)
    work = HangWatchState(looksToFire: looksToFire + Guesses.hangWorkLooksBeyondSleeps)
    mainQueue = MainQueueWatchState(looksToFire: looksToFire)
    self.looksToFire = looksToFire
    periodNanoseconds = UInt64(periodMilliseconds) * 1_000_000
  }

  /// A sleep the watch follows.
  struct Watched {
    let sleeper: Sleeper
    let handle: TimelineHandle
    let role: SleeperRole
    /// Where the sleep's clock was made: the report points there for a sleep of the test's
    /// own task.
    let clock: SourceLocation
    /// Whether the sleep is on a scheduler, not a clock (the report's ways out name it).
    let onScheduler: Bool

    func observe() -> HangObservation {
      var activity = role.executor?.activity
      // A sleep of a task the test started holds the test up while the test's own task awaits
      // its tasks (a task's value, a group), not a continuation, which a yield is too.
      if case .testMember = role, let read = activity {
        activity?.testTaskIsWaiting = read.testTaskAwaitsItsTasks
      }
      if case .lineageMember(let test) = role { activity = test.activity }
      return HangObservation(
        progress: handle.progressMark, activity: activity,
        isPending: sleeper.isPending, isAdvancedByItself: handle.isAdvancedByItself)
    }
  }

  /// Starts watching `sleeper`, woken by `handle`, a sleep in `role` on a clock (or scheduler,
  /// if `onScheduler`) made at `clock`.
  func watch(
    _ sleeper: Sleeper, handle: TimelineHandle, role: SleeperRole, clock: SourceLocation,
    onScheduler: Bool
  ) {
    let watched = Watched(
      sleeper: sleeper, handle: handle, role: role, clock: clock, onScheduler: onScheduler)
    // Not observed now, at every sleep of every test, nearly all of which end before a look
    // (the observation reads the test's executor under its lock).
    let first = HangObservation.unobserved
    // By hand: a debug build calls `Optional.map` generically, at every sleep.
    var group = ObjectIdentifier(sleeper)
    if let executor = role.executor { group = ObjectIdentifier(executor) }
    let startLooking = lock.withLock {
      state.add(ObjectIdentifier(sleeper), watched, group: group, first: first)
      return beginLooking()
    }
    if startLooking { scheduleLook() }
  }

  /// Starts following `executor`, whose pumps run on the main queue, while a task waits for it
  /// to go quiet; it is dropped at the first look that finds no task waiting. `looksToFire`, if
  /// given, replaces ``looksToFire`` for it.
  func watchMainQueue(of executor: any MainQueueWatched, looksToFire: Int? = nil) {
    let first = executor.mainQueueObservation
    let startLooking = lock.withLock {
      mainQueue.add(ObjectIdentifier(executor), executor, first: first, looksToFire: looksToFire)
      return beginLooking()
    }
    if startLooking { scheduleLook() }
  }

  /// `executor` has closed: its main queue is followed no more, and the watch lets go of it
  /// now rather than at its next look. A look comes every quarter of a second, and `@MainActor`
  /// tests run back to back end thousands of executors in that time: held until the look, with
  /// the tasks each retains, they raised a suite's peak memory by about 50 MB.
  func stopWatchingMainQueue(of executor: TestExecutor) {
    let removed = lock.withLock { mainQueue.remove(ObjectIdentifier(executor)) }
    withExtendedLifetime(removed) {}
  }

  /// Whether `executor`'s main queue is followed now (for tests).
  func watchesMainQueue(of executor: TestExecutor) -> Bool {
    lock.withLock { mainQueue.isWatching(ObjectIdentifier(executor)) }
  }

  /// Starts following `watched`, a time source's pending work for one test, unless a watch
  /// follows the source already; answers whether it did.
  func watch(_ watched: WatchedWork) -> Bool {
    guard let source = watched.source else { return false }
    // Not observed now: the first look sees it as it is then, and counts from there.
    let first = HangObservation.unobserved
    let key = ObjectIdentifier(watched)
    let (added, existing, startLooking) = lock.withLock { () -> (Bool, WatchedWork?, Bool) in
      let existing = watchedWork(of: source)
      let count = sourcesOfTest[watched.test, default: 0]
      guard existing == nil, count < Self.sourcesPerTest else { return (false, existing, false) }
      sourcesOfTest[watched.test] = count + 1
      watchOfSource[watched.sourceID] = key
      work.add(key, watched, group: key, first: first)
      return (true, nil, beginLooking())
    }
    withExtendedLifetime(existing) {}
    if startLooking { scheduleLook() }
    return added
  }

  /// Asks for a watch of `source`, on which the task of `deferral`'s test schedules work: made
  /// at the next look (``follow(_:)``). A test that only schedules and advances synchronously
  /// has nearly always ended by then, and costs the watch nothing more. Under Swift Testing the
  /// task that would report is started now, in the test (``WorkHangReporter``).
  func request(_ source: any WatchedWorkSource, of deferral: DeferredTest) {
    let request = WatchRequest(
      source: source, deferral: deferral,
      reporter: isInSwiftTestingTest ? WorkHangReporter() : nil)
    let startLooking = lock.withLock {
      requested.append(request)
      return beginLooking()
    }
    if startLooking { scheduleLook() }
  }

  /// Whether a watch of `source` for the test whose task is `test` would be followed: none
  /// follows the source yet, and the test has room for one more (``watch(_:)`` checks again).
  func admits(_ source: any WatchedWorkSource, forTestOf test: UnsafeRawPointer) -> Bool {
    let (existing, hasRoom) = lock.withLock {
      (watchedWork(of: source), sourcesOfTest[test, default: 0] < Self.sourcesPerTest)
    }
    return existing == nil && hasRoom
  }

  /// The source at `address` is going away (its `deinit`): its watch ends now, rather than at
  /// the next look. Its test has room for another at once, the test's task is let go of, and
  /// the watch's tables do not grow with the watches of tests that ended since the last look.
  func sourceEnded(_ address: ObjectIdentifier) {
    let removed = lock.withLock { () -> WatchedWork? in
      // Nothing followed (a source whose watch was asked for and never made): no look up.
      guard !watchOfSource.isEmpty else { return nil }
      // The source is alive until its `deinit` returns, so the entry under its address is its
      // own watch's. (A look that read the watch before still holds it, and finds it gone.)
      guard let key = watchOfSource.removeValue(forKey: address),
        let removed = work.remove(key)
      else { return nil }
      uncount(removed.test)
      return removed
    }
    // After unlocking: its deinit ends the watch and releases the test's task.
    withExtendedLifetime(removed) {}
  }

  /// Makes the watches asked for so far (``request(_:of:)``): what a look does first, and what
  /// Tempo's tests do to follow a source at once.
  func followRequested() {
    let requests = lock.withLock { () -> [WatchRequest] in
      guard !requested.isEmpty else { return [] }
      defer { requested.removeAll(keepingCapacity: true) }
      return requested
    }
    for request in requests { follow(request) }
  }

  /// Whether a watch follows the source at `address` (for Tempo's tests).
  func follows(sourceAt address: ObjectIdentifier) -> Bool {
    lock.withLock { watchOfSource[address] != nil }
  }

  /// How many sources are followed for the test whose task is `test` (for Tempo's tests).
  func sourcesFollowed(forTest test: UnsafeRawPointer) -> Int {
    lock.withLock { sourcesOfTest[test, default: 0] }
  }

  /// Forgets the index entries and counts of `dropped`, watches no longer followed, but of those
  /// whose source took them out when it went away. Called under the lock, with the watches
  /// read at the look, which holds them: no new watch has taken one's key meanwhile.
  private func forgetSources(of dropped: [(key: ObjectIdentifier, payload: WatchedWork)]) {
    for (key, watched) in dropped where work.payload(of: key) == nil {
      guard watchOfSource[watched.sourceID] == key else { continue }
      watchOfSource[watched.sourceID] = nil
      uncount(watched.test)
    }
  }

  /// One source fewer is followed for `test`. Called under the lock.
  private func uncount(_ test: UnsafeRawPointer) {
    let count = sourcesOfTest[test, default: 1] - 1
    sourcesOfTest[test] = count > 0 ? count : nil
  }

  /// The watch that follows `source`, if any. Called under the lock; the answer is released
  /// after unlocking.
  private func watchedWork(of source: any WatchedWorkSource) -> WatchedWork? {
    guard let key = watchOfSource[ObjectIdentifier(source)],
      let existing = work.payload(of: key), existing.source === source
    else { return nil }
    return existing
  }

  /// Whether the caller must schedule the first look: nobody looks yet. Called under the lock.
  private func beginLooking() -> Bool {
    guard !isLooking else { return false }
    isLooking = true
    lastLook = time.nanoseconds
    return true
  }

  /// Stops watching `sleeper` (its sleep ended).
  func unwatch(_ sleeper: Sleeper) {
    let removed = lock.withLock { state.remove(ObjectIdentifier(sleeper)) }
    withExtendedLifetime(removed) {}
  }

  private func scheduleLook() {
    time.after(nanoseconds: periodNanoseconds, on: queue) { [self] in look() }
  }

  /// One look: observes every watched sleep and main queue, records them, ends the ones that
  /// fired, and looks again later while any is watched.
  private func look() {
    // Watched from this look on, observed at it as a watch made before it would be.
    followRequested()
    let (watched, sources, executors, afterGap) = lock.withLock {
      // Later than three periods after the last look ended: the watch itself did not run
      // meanwhile.
      let gap = time.nanoseconds &- lastLook > Guesses.hangGapPeriods * periodNanoseconds
      return (state.watched, work.watched, mainQueue.watched, gap)
    }
    let observations = watched.map { (key: $0.key, observation: $0.payload.observe()) }
    // One read of each executor's activity for all the watches of its test.
    var activities: [ObjectIdentifier: TestActivity] = [:]
    let sourceObservations = sources.map { source in
      let observation = source.payload.observe { executor in
        if let read = activities[ObjectIdentifier(executor)] { return read }
        let read = executor.activity
        activities[ObjectIdentifier(executor)] = read
        return read
      }
      return (key: source.key, observation: observation)
    }
    let queues = executors.map { (key: $0.key, observation: $0.payload.mainQueueObservation) }
    // The main queue's thread, read from the operating system once a look, and only when a
    // main queue is watched: a file read on Linux, never on the path of a wait.
    let threadRuns = !executors.isEmpty && mainQueueThreadRuns()
    let (fired, firedSources, stalled, goOn) = lock.withLock {
      let fired = state.record(observations, afterGap: afterGap)
      let firedSources = work.record(sourceObservations, afterGap: afterGap)
      forgetSources(of: sources)
      let stalled = mainQueue.record(queues, afterGap: afterGap, threadRuns: threadRuns)
      isLooking = !state.isEmpty || !work.isEmpty || !mainQueue.isEmpty || !requested.isEmpty
      return (fired, firedSources, stalled, isLooking)
    }
    // Sources no longer watched go here, after unlocking: their deinit ends their watch.
    withExtendedLifetime(watched) {}
    withExtendedLifetime(sources) {}
    withExtendedLifetime(executors) {}
    for test in fired { end(test) }
    for source in firedSources.joined() { endBlockedOnWork(source) }
    for (executor, started) in stalled { executor.mainQueueStalled(since: started) }
    guard goOn else { return }
    // The next look's gap counts from here: a look slowed by what it ended and reported is not
    // the watch held up. (Counted from the look's start, every look after one that took more
    // than half a second was a gap: while looks were that slow, nothing was ever reported.)
    lock.withLock { lastLook = time.nanoseconds }
    scheduleLook()
  }

  /// Ends the sleeps of one test that fired, the first carrying the report.
  private func end(_ sleeps: [Watched]) {
    var report = HangReport(
      message: TimelineMessage.blockedOnTime(
        sleeps: sleeps.compactMap { $0.handle.describeSleep() },
        waited: describeSeconds(
          Duration.nanoseconds(Int64(periodNanoseconds) * Int64(looksToFire))),
        noun: sleeps.allSatisfy(\.onScheduler) ? "scheduler" : "clock"),
      location: location(of: sleeps[0]))
    report.reportInScope = sleeps[0].role.scopeExecutor?.reportInScope
    for (index, sleep) in sleeps.enumerated() {
      sleep.sleeper.endBlockedOnTime(index == 0 ? report : nil)
    }
  }

  /// Where the report points: the scope's line, else the clock's (if known).
  private func location(of sleep: Watched) -> SourceLocation? {
    if let scope = sleep.role.scopeExecutor?.scope { return scope }
    return sleep.clock.isCallerUnknown || sleep.clock.factory != nil ? nil : sleep.clock
  }
}

@available(TempoTestExecutor 1.0, *)
extension HangWatch: SleepWatcher {
  package func sleepEnded(_ sleeper: Sleeper) { unwatch(sleeper) }
}

/// What a test clock or test scheduler tells the test executor of a sleep: the sleeping task is
/// one of the test's, and the hang watch follows the sleep if it can hold the test up.
///
/// ```swift
/// TestSleeps.willWait()
/// guard sleeper.install(continuation) else { return }
/// // ... schedule the wake-up, hold its handle ...
/// TestSleeps.watchForHangs(sleeper, handle: handle, clock: creation)
/// ```
package enum TestSleeps {
  /// The current task is about to sleep: remembered as one of its test's, so that its jobs come
  /// to the test's executor even when the runtime enqueues them from no context.
  package static func willWait() {
    guard #available(TempoTestExecutor 1.0, *) else { return }
    TestExecutor.noteCurrentTask()
  }

  /// Lets the hang watch follow `sleeper`, woken by `handle`, on a clock made at `clock` (a
  /// scheduler, if `onScheduler`), if the current task's sleep can hold its test up for good
  /// (``SleeperRole``). Call from the sleeping task, once the wake-up is scheduled.
  package static func watchForHangs(
    _ sleeper: Sleeper, handle: TimelineHandle, clock: SourceLocation, onScheduler: Bool = false
  ) {
    guard #available(TempoTestExecutor 1.0, *),
      let role = TestExecutor.roleOfCurrentSleeper(),
      sleeper.beginWatch(by: HangWatch.shared)
    else { return }
    // Ended meanwhile, the sleep is dropped at the watch's next look.
    HangWatch.shared.watch(
      sleeper, handle: handle, role: role, clock: clock, onScheduler: onScheduler)
  }
}
