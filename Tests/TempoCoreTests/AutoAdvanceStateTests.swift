import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoCore

/// Who drives an auto-advancing timeline: work that arrives while a driver runs is never left
/// without one, even when the driver read the pending count just before it arrived; turned off,
/// a driver takes no further step.
@Suite struct AutoAdvanceStateTests {
  func made() -> AutoAdvance {
    let auto = AutoAdvance(isolation: nil, location: .unknown)
    #expect(!auto.turn(true, pending: false))
    return auto
  }

  @Test func workThatArrivesAfterTheDriverLookedKeepsTheDriverGoing() {
    let auto = made()
    #expect(auto.workArrived())  // starts the driver
    // The driver reads "nothing pending"; then a sleeper arrives before it asks to stop.
    #expect(!auto.workArrived())  // no second driver
    #expect(!auto.driverFinished(pending: false, afterRunaway: false))  // goes on
    #expect(auto.driverFinished(pending: false, afterRunaway: false))  // then stops
    #expect(auto.workArrived())  // and the next work starts a driver again
  }

  @Test func aRunawayStopsTheDriverAndAutoAdvance() {
    let auto = made()
    #expect(auto.workArrived())
    #expect(!auto.workArrived())
    #expect(auto.driverFinished(pending: true, afterRunaway: true))
    #expect(!auto.isEnabled)
    #expect(!auto.workArrived())
  }

  @Test func turnedOnWithWorkPendingStartsADriver() {
    let auto = AutoAdvance(isolation: nil, location: .unknown)
    #expect(auto.turn(true, pending: true))
    #expect(auto.isDriverRunning)
    #expect(!auto.turn(true, pending: true))  // one driver at a time
  }

  @Test func turnedOffMidDriveTheDriverTakesNoFurtherStep() {
    let auto = made()
    #expect(auto.workArrived())
    #expect(auto.driverMayStep())
    #expect(!auto.turn(false, pending: true))
    #expect(!auto.isEnabled)
    #expect(auto.isDriverRunning)  // until it has stopped
    #expect(!auto.driverMayStep())
    #expect(!auto.workArrived())  // work that arrives now starts nothing
    #expect(auto.driverFinished(pending: true, afterRunaway: false))
    #expect(!auto.isDriverRunning)
    #expect(!auto.workArrived())
  }

  @Test func turnedBackOnBeforeTheDriverStoppedItGoesOn() {
    let auto = made()
    #expect(auto.workArrived())
    #expect(!auto.turn(false, pending: true))
    #expect(!auto.turn(true, pending: true))  // the running driver is reused
    #expect(auto.driverMayStep())
    // It reads the pending count again before it stops, even if it read "none".
    #expect(!auto.driverFinished(pending: false, afterRunaway: false))
    #expect(auto.driverFinished(pending: false, afterRunaway: false))
  }

  /// Random sequences of the events, against the rules: one driver at most, a driver runs
  /// whenever work arrived while on and was not yet seen, and none steps while off.
  @Test(arguments: 0..<20)
  func randomEventsKeepTheRules(seed: UInt64) {
    var random = SplitMix(state: seed)
    var machine = AutoAdvanceStateMachine()
    var drivers = 0
    var unseenWork = false
    for _ in 0..<2_000 {
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        let on = Bool.random(using: &random)
        // Turned on again before it stopped, the driver has not looked since.
        if on, !machine.isOn, drivers == 1 { unseenWork = true }
        machine.turn(on)
        #expect(machine.isOn == on)
      case 1:
        // Work that starts a driver is what it drives; work that arrives while one runs, it
        // may not have seen.
        if machine.workArrived() {
          drivers += 1
        } else if machine.isOn {
          unseenWork = true
        }
      case 2:
        guard drivers == 1 else { continue }
        #expect(machine.driverMayStep() == machine.isOn)
      default:
        guard drivers == 1 else { continue }
        let pending = Bool.random(using: &random)
        let runaway = Int.random(in: 0..<10, using: &random) == 0
        let wasOn = machine.isOn
        let unseen = unseenWork
        unseenWork = false
        if machine.driverFinished(pending: pending, afterRunaway: runaway) {
          drivers -= 1
          // A driver stops only when off, spent, or with no work it has not seen.
          #expect(!wasOn || runaway || (!pending && !unseen))
        } else {
          #expect(wasOn && !runaway)
        }
      }
      #expect(drivers == (machine.isDriving ? 1 : 0))
      if machine.isOn && unseenWork { #expect(machine.isDriving) }
    }
  }
}
