import TempoCore
import Testing

@testable import TempoExecutor

/// The rules of the hang watch, fed observations directly: a sleep is reported only after
/// holding its quiet, running test up for four looks in a row with nothing moving.
@Suite struct HangWatchStateTests {
  final class Sleep {}
  let sleep = Sleep()
  var key: ObjectIdentifier { ObjectIdentifier(sleep) }
  let test = ObjectIdentifier(Sleep.self)

  func seen(
    progress: UInt64 = 0, accepted: Int = 0, quiet: Bool = true, outside: Bool = false,
    running: Bool = true, bodyWaits: Bool = true, pending: Bool = true, executor: Bool = true,
    driven: Bool = false, work: Bool = true
  ) -> HangObservation {
    HangObservation(
      progress: progress,
      activity: executor
        ? TestActivity(
          accepted: accepted, isQuiet: quiet, waitsOnOutsideWork: outside, isRunningTest: running,
          testTaskIsWaiting: bodyWaits)
        : nil,
      isPending: pending, isAdvancedByItself: driven, hasWork: work)
  }

  /// Records `observation` for `looks` looks; answers the number of the look that fired, if any.
  func look(
    _ state: inout HangWatchState<String>, _ observation: HangObservation, looks: Int,
    afterGapAt gap: Int? = nil
  ) -> Int? {
    for number in 1...looks {
      let fired = state.record([(key, observation)], afterGap: number == gap)
      if !fired.isEmpty { return number }
    }
    return nil
  }

  @Test func aSleepThatHoldsItsTestUpFiresAtTheFourthLook() {
    var state = HangWatchState<String>(looksToFire: 4)
    state.add(key, "sleep", group: test, first: seen())
    #expect(look(&state, seen(), looks: 10) == 4)
    #expect(state.isEmpty)
  }

  @Test func anythingThatMovesStartsTheCountAgain() {
    for moved in [seen(progress: 1), seen(accepted: 1)] {
      var state = HangWatchState<String>(looksToFire: 4)
      state.add(key, "sleep", group: test, first: seen())
      #expect(look(&state, seen(), looks: 3) == nil)
      #expect(look(&state, moved, looks: 1) == nil)  // the clock advanced, or a job ran
      #expect(look(&state, moved, looks: 4) == 4)  // counted again from there
    }
  }

  /// Busy: a job queued or running, the scope's body running (or queued to run) work the
  /// executor may not see, or an auto-advance driver between its steps (perhaps waiting for a
  /// thread).
  @Test func aTestThatIsBusyWaitsOnOutsideWorkOrHasEndedIsNeverReported() {
    let cases = [
      seen(quiet: false), seen(bodyWaits: false), seen(outside: true), seen(running: false),
      seen(driven: true),
    ]
    for notHeldUp in cases {
      var state = HangWatchState<String>(looksToFire: 4)
      state.add(key, "sleep", group: test, first: notHeldUp)
      #expect(look(&state, notHeldUp, looks: 20) == nil)
      #expect(!state.isEmpty)  // still watched: the test may go quiet later
    }
  }

  @Test func aSleepWithNoExecutorCountsAsQuiet() {
    var state = HangWatchState<String>(looksToFire: 4)
    state.add(key, "sleep", group: test, first: seen(executor: false))
    #expect(look(&state, seen(executor: false), looks: 10) == 4)
  }

  @Test func aSleepThatEndedIsDropped() {
    var state = HangWatchState<String>(looksToFire: 4)
    state.add(key, "sleep", group: test, first: seen())
    #expect(look(&state, seen(pending: false), looks: 1) == nil)
    #expect(state.isEmpty)
  }

  /// A time source followed as a whole (a scheduler a pipeline waits on) stays watched while
  /// nothing is pending on it, and holds its test up only once work is.
  @Test func aSourceWithNothingPendingIsKeptButNeverFires() {
    var state = HangWatchState<String>(looksToFire: 6)
    state.add(key, "source", group: key, first: seen(work: false))
    #expect(look(&state, seen(work: false), looks: 20) == nil)
    #expect(!state.isEmpty)
    // Work arriving is a change: the count starts at the look after.
    #expect(look(&state, seen(), looks: 20) == 7)
  }

  @Test func aGapInTheLooksStartsTheCountAgain() {
    // The watch did not run for a while (a debugger stopped the process): nobody could act.
    var state = HangWatchState<String>(looksToFire: 4)
    state.add(key, "sleep", group: test, first: seen())
    #expect(look(&state, seen(), looks: 10, afterGapAt: 3) == 7)
  }

  @Test func sleepsOfOneTestFireTogetherInTheOrderTheyBegan() {
    var state = HangWatchState<String>(looksToFire: 1)
    let other = Sleep()
    let third = Sleep()
    let otherTest = ObjectIdentifier(Sleep.Type.self)
    state.add(ObjectIdentifier(other), "second", group: test, first: seen())
    state.add(key, "third", group: test, first: seen())
    state.add(ObjectIdentifier(third), "elsewhere", group: otherTest, first: seen())
    let fired = state.record(
      [(key, seen()), (ObjectIdentifier(third), seen()), (ObjectIdentifier(other), seen())],
      afterGap: false)
    #expect(fired == [["second", "third"], ["elsewhere"]])
    #expect(state.remove(key) == nil)
  }

  /// A sleep of the same test that began a look later, and holds the test up too, is named in
  /// the same report; one that does not hold it up (its test's task is busy) is not, nor is a
  /// sleep of another test.
  @Test func aLaterSleepOfTheSameTestFiresWithTheFirst() {
    var state = HangWatchState<String>(looksToFire: 2)
    let later = Sleep()
    let busy = Sleep()
    let elsewhere = Sleep()
    let otherTest = ObjectIdentifier(Sleep.Type.self)
    state.add(key, "first", group: test, first: seen())
    #expect(state.record([(key, seen())], afterGap: false) == [])
    state.add(ObjectIdentifier(later), "later", group: test, first: seen())
    state.add(ObjectIdentifier(busy), "busy", group: test, first: seen(bodyWaits: false))
    state.add(ObjectIdentifier(elsewhere), "elsewhere", group: otherTest, first: seen())
    let fired = state.record(
      [
        (key, seen()), (ObjectIdentifier(later), seen()),
        (ObjectIdentifier(busy), seen(bodyWaits: false)), (ObjectIdentifier(elsewhere), seen()),
      ],
      afterGap: false)
    #expect(fired == [["first", "later"]])
    #expect(state.remove(ObjectIdentifier(busy)) == "busy")
    #expect(state.remove(ObjectIdentifier(elsewhere)) == "elsewhere")
  }
}
