import TempoClocks
import TempoTestHelpers
import Testing

/// Tempo's clocks are `Identifiable` (SE-0526's `withDeadline(_:clock:)` takes a clock that is),
/// one identity per clock for as long as it lives.
@Suite struct IdentifiableClockTests {
  /// The identity of every clock of Tempo, each as the constraint a deadline will ask for.
  func identity<C: Clock & Identifiable>(of clock: C) -> C.ID { clock.id }

  @Test func eachClockKeepsOneIdentityAndTwoClocksHaveTwo() {
    let test = TestClock()
    #expect(identity(of: test) == identity(of: test))
    #expect(identity(of: test) != identity(of: TestClock()))

    let immediate = ImmediateClock()
    #expect(identity(of: immediate) == identity(of: immediate))
    #expect(identity(of: immediate) != identity(of: ImmediateClock()))

    let erased = AnyClock(test)
    #expect(identity(of: erased) == identity(of: erased))
    #expect(identity(of: erased) != identity(of: AnyClock(test)))
  }

  @Test func anUnimplementedClockAndItsCopiesAreOneClockAndSayNothing() {
    let clock = UnimplementedClock()
    let copy = clock
    #expect(identity(of: clock) == identity(of: copy))
    #expect(identity(of: clock) != identity(of: UnimplementedClock()))
  }

  /// A clock's identity does not move with its time.
  @Test func advancingDoesNotChangeTheIdentity() async {
    let clock = TestClock()
    let before = clock.id
    await clock.advance(by: .seconds(5))
    #expect(clock.id == before)
  }
}
