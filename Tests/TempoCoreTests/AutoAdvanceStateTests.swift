import TempoSupport
import Testing

@testable import TempoCore

/// Who drives an auto-advancing timeline: work that arrives while a driver runs is never left
/// without one, even when the driver read the pending count just before it arrived.
@Suite struct AutoAdvanceStateTests {
  func made() -> AutoAdvance {
    let auto = AutoAdvance(isolation: nil, location: .unknown)
    auto.set(true)
    return auto
  }

  @Test func workThatArrivesAfterTheDriverLookedKeepsTheDriverGoing() {
    let auto = made()
    #expect(auto.workArrived())  // starts the driver
    // The driver reads "nothing pending"; then a sleeper arrives before it asks to stop.
    #expect(!auto.workArrived())  // no second driver
    #expect(!auto.driverMayStop(pending: false, afterRunaway: false))  // goes on
    #expect(auto.driverMayStop(pending: false, afterRunaway: false))  // then stops
    #expect(auto.workArrived())  // and the next work starts a driver again
  }

  @Test func aRunawayStopsTheDriverAndAutoAdvance() {
    let auto = made()
    #expect(auto.workArrived())
    #expect(!auto.workArrived())
    #expect(auto.driverMayStop(pending: true, afterRunaway: true))
    #expect(!auto.isEnabled)
    #expect(!auto.workArrived())
  }
}
