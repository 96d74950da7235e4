import Foundation
import TempoClocks
import Testing

@testable import TempoSchedulers

/// Every test scheduler keeps its position as its start plus an exact `Duration`, and derives
/// `now` and `date` from it with one rounding: however many steps a test takes, neither drifts.
/// `RunLoop` and `OperationQueue` keep their time in a `Date` (a `Double`), where adding a
/// stride at each step would round at each step.
@Suite struct ExactDateTests {
  /// A day a test sets its scheduler's date to: 2026-11-26 09:00:00 UTC plus a fraction, so
  /// that a `Date` cannot hold it on a round number of seconds.
  static let someDay = Date(timeIntervalSince1970: 1_795_683_600.25)

  /// The four test schedulers.
  enum Kind: String, CaseIterable, CustomTestStringConvertible {
    case dispatchQueue, runLoop, operationQueue, uiScheduler
    var testDescription: String { rawValue }

    /// A fresh scheduler of this kind.
    func make() -> Probe {
      switch self {
      case .dispatchQueue: Probe(TestSchedulerOf<DispatchQueue>(now: DispatchQueue._tempoEpoch))
      case .runLoop: Probe(TestSchedulerOf<RunLoop>(now: RunLoop._tempoEpoch))
      case .operationQueue:
        Probe(TestSchedulerOf<OperationQueue>(now: OperationQueue._tempoEpoch))
      case .uiScheduler: Probe(TestSchedulerOf<UIScheduler>(now: UIScheduler._tempoEpoch))
      }
    }
  }

  /// One test scheduler, whatever its time type, as closures: advance by a number of
  /// microseconds, the time since its start, its date, and setting its date.
  struct Probe {
    let advance: (Int) -> Void
    let elapsed: () -> Duration
    let date: () -> Date
    let setDate: (Date) -> Void

    init<Time: _TempoEpochTime, Options>(_ scheduler: TestScheduler<Time, Options>) {
      advance = { scheduler.advance(by: .microseconds($0)) }
      elapsed = { scheduler.now._tempoElapsed }
      date = { scheduler.date }
      setDate = scheduler.setDate
    }
  }

  @Test(arguments: Kind.allCases)
  func aMillionStepsOfAMicrosecondLandExactly(_ kind: Kind) {
    let scheduler = kind.make()
    for _ in 0..<1_000_000 { scheduler.advance(1) }
    #expect(scheduler.elapsed() == .seconds(1))
    #expect(scheduler.date() == Date(timeIntervalSince1970: 1))
  }

  @Test(arguments: Kind.allCases)
  func aThousandStepsOfAMillisecondAfterSettingTheDateLandExactly(_ kind: Kind) {
    let scheduler = kind.make()
    scheduler.setDate(Self.someDay)
    for _ in 0..<1_000 { scheduler.advance(1_000) }
    #expect(scheduler.elapsed() == .seconds(1))
    #expect(scheduler.date() == Self.someDay.addingTimeInterval(1))
  }

  /// The factory properties keep exact time too, and so does a scheduler that starts at a date
  /// that is not on a microsecond: its `now` is the date it was given until it moves.
  @Test func factoriesAndAnyStartKeepExactTime() {
    let runLoop = RunLoop.test
    let operationQueue = OperationQueue.test
    for _ in 0..<1_000 {
      runLoop.advance(by: .milliseconds(1))
      operationQueue.advance(by: .milliseconds(1))
    }
    #expect(runLoop.now.date == Date(timeIntervalSince1970: 1))
    #expect(operationQueue.now.date == Date(timeIntervalSince1970: 1))

    let start = Date(timeIntervalSinceReferenceDate: 0.123_456_7)
    let scheduler = TestSchedulerOf<RunLoop>(now: .init(start))
    #expect(scheduler.now.date == start)
    for _ in 0..<1_000 { scheduler.advance(by: .milliseconds(1)) }
    #expect(scheduler.now.date == start.addingTimeInterval(1))
  }

  /// An action scheduled at a date the code computed by adding to `now` (as Combine's
  /// operators do) runs when an advance by the same stride reaches it, however far along.
  @Test func anActionAtNowPlusAStrideRunsAtThatAdvance() {
    let scheduler = RunLoop.test
    var ran = 0
    for _ in 0..<1_000 {
      scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(300))) { ran += 1 }
      scheduler.advance(by: .milliseconds(300))
    }
    #expect(ran == 1_000)
    #expect(scheduler.now.date == Date(timeIntervalSince1970: 300))
  }
}
