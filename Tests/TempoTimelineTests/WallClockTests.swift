import Foundation
import TempoClocks
import TempoSchedulers
import TempoTestHelpers
import Testing

/// A session whose token expires an hour after it is issued: it reads the date to stamp the
/// token and to check it, and sleeps on a clock until the expiry.
@MainActor final class SessionModel {
  let clock: any Clock<Duration>
  let now: @Sendable () -> Date
  var issuedAt: Date?
  var refreshedAt: [Date] = []

  init(clock: any Clock<Duration>, now: @escaping @Sendable () -> Date) {
    self.clock = clock
    self.now = now
  }

  var isExpired: Bool { issuedAt.map { now().timeIntervalSince($0) >= 3_600 } ?? true }

  /// Signs in, then refreshes the token each time it expires, `count` times.
  func run(refreshes count: Int) async {
    issuedAt = now()
    for _ in 0..<count {
      try? await clock.sleep(for: .seconds(3_600))
      guard isExpired else { return }
      issuedAt = now()
      refreshedAt.append(now())
    }
  }
}

/// A note list that stamps each note with the date once the typing pauses (a debounce on the
/// main queue).
final class NotesModel: @unchecked Sendable {
  // Invariant: `lock` guards `saved`; the subject and cancellable are set once.
  private let lock = NSLock()
  private var saved: [(String, Date)] = []
  private let edits = PassthroughSubject<String, Never>()
  private var cancellable: AnyCancellable?

  init(mainQueue: AnySchedulerOf<DispatchQueue>, now: @escaping @Sendable () -> Date) {
    cancellable =
      edits
      .debounce(for: .seconds(2), scheduler: mainQueue)
      .sink { [weak self] text in
        guard let self else { return }
        lock.withLock { saved.append((text, now())) }
      }
  }

  func edit(_ text: String) { edits.send(text) }
  var notes: [(String, Date)] { lock.withLock { saved } }
}

let signIn = Date(timeIntervalSince1970: 1_800_000_000)

@Suite struct WallClockTests {
  @MainActor @Test func aTokenExpiresWithTheClockOnALoneClock() async {
    let clock = TestClock()
    clock.setDate(signIn)
    let model = SessionModel(clock: clock, now: clock.dateGenerator)
    let task = Task { await model.run(refreshes: 2) }
    await clock.advance(by: .seconds(3_599))
    #expect(model.issuedAt == signIn)
    #expect(!model.isExpired)
    #expect(clock.date == signIn.addingTimeInterval(3_599))
    await clock.advance(by: .seconds(1))
    #expect(model.refreshedAt == [signIn.addingTimeInterval(3_600)])
    await clock.advance(by: .seconds(3_600))
    #expect(
      model.refreshedAt == [signIn.addingTimeInterval(3_600), signIn.addingTimeInterval(7_200)])
    await task.value
  }

  @Test func aDebouncedNoteIsStampedWithTheSchedulersDate() {
    let mainQueue = DispatchQueue.test
    mainQueue.setDate(signIn)
    let model = NotesModel(mainQueue: mainQueue.eraseToAnyScheduler(), now: mainQueue.dateGenerator)
    model.edit("T")
    mainQueue.advance(by: .milliseconds(500))
    model.edit("Tempo")
    mainQueue.advance(by: .seconds(2))
    #expect(model.notes.map(\.0) == ["Tempo"])
    #expect(model.notes.map(\.1) == [signIn.addingTimeInterval(2.5)])
    #expect(mainQueue.date == signIn.addingTimeInterval(2.5))
  }

  @MainActor @Test func everySourceOfASharedTimelineReadsOneDate() async {
    let time = TestTimeline()
    let clock = TestClock(timeline: time)
    let mainQueue = DispatchQueue.test(timeline: time)
    let runLoop = RunLoop.test(timeline: time)
    // Set through one source, read through all.
    mainQueue.setDate(signIn)
    #expect(time.date == signIn)
    #expect(clock.date == signIn)
    #expect(runLoop.date == signIn)

    let session = SessionModel(clock: clock, now: time.dateGenerator)
    let notes = NotesModel(mainQueue: mainQueue.eraseToAnyScheduler(), now: clock.dateGenerator)
    let task = Task { await session.run(refreshes: 1) }
    notes.edit("draft")
    await time.advance(by: .seconds(3_600))
    #expect(notes.notes.map(\.1) == [signIn.addingTimeInterval(2)])
    #expect(session.refreshedAt == [signIn.addingTimeInterval(3_600)])
    for date in [time.date, clock.date, mainQueue.date, runLoop.date] {
      #expect(date == signIn.addingTimeInterval(3_600))
    }
    await task.value
  }

  @Test func theDateStartsAtTheEpochAndMovesWithTime() {
    let runLoop = RunLoop.test
    let mainQueue = DispatchQueue.test
    #expect(runLoop.date == Date(timeIntervalSince1970: 0))
    #expect(mainQueue.date == Date(timeIntervalSince1970: 0))
    runLoop.advance(by: .seconds(90))
    mainQueue.advance(by: .milliseconds(1_500))
    // A run loop's time is a date: by default its wall clock is that date.
    #expect(runLoop.date == runLoop.now.date)
    #expect(mainQueue.date == Date(timeIntervalSince1970: 1.5))
    #expect(TestTimeline().date == Date(timeIntervalSince1970: 0))
  }

  /// A thousand steps of a millisecond move the date by exactly one second: the timeline adds
  /// `Duration`s, not `Double`s.
  @Test func manySmallStepsAddUpExactly() async {
    let clock = TestClock()
    clock.setDate(signIn)
    for _ in 0..<1_000 { await clock.advance(by: .milliseconds(1)) }
    #expect(clock.date == signIn.addingTimeInterval(1))
    let scheduler = DispatchQueue.test
    for _ in 0..<1_000 { await scheduler.advance(by: .nanoseconds(1_000)) }
    #expect(scheduler.date == Date(timeIntervalSince1970: 0.001))
  }

  /// Setting the date is a device whose clock changes: no virtual time passes, nothing wakes,
  /// and the date moves on from the new value. It may go back.
  @Test func settingTheDateFiresNothing() async {
    let clock = TestClock()
    let woke = Log<String>()
    let task = Task {
      try? await clock.sleep(for: .seconds(10))
      woke.append("woke")
    }
    await clock.advance(by: .seconds(4))
    clock.setDate(signIn)
    #expect(clock.now == .init(offset: .seconds(4)))
    #expect(clock.pendingWorkCount == 1)
    #expect(woke.values.isEmpty)
    clock.setDate(signIn.addingTimeInterval(-86_400))
    #expect(clock.date == signIn.addingTimeInterval(-86_400))
    await clock.advance(by: .seconds(6))
    #expect(woke.values == ["woke"])
    #expect(clock.date == signIn.addingTimeInterval(-86_400 + 6))
    await task.value

    let scheduler = RunLoop.test
    var ran = false
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { ran = true }
    scheduler.setDate(signIn)
    #expect(!ran)
    #expect(scheduler.now.date == Date(timeIntervalSince1970: 0))
    await scheduler.advance(by: .seconds(1))
    #expect(ran)
    #expect(scheduler.date == signIn.addingTimeInterval(1))
  }

  /// Dates far from today, and ones that are not dates at all, are clamped, never a trap.
  @Test func extremeDatesDoNotTrap() {
    let clock = TestClock()
    clock.setDate(.distantFuture)
    #expect(abs(clock.date.timeIntervalSince(.distantFuture)) < 1)
    clock.setDate(.distantPast)
    #expect(abs(clock.date.timeIntervalSince(.distantPast)) < 1)
    clock.setDate(Date(timeIntervalSince1970: .infinity))
    #expect(clock.date > .distantFuture)
    clock.setDate(Date(timeIntervalSince1970: .nan))
    #expect(clock.date == Date(timeIntervalSince1970: 0))
  }
}
