import TempoTesting
import Testing

@Suite struct MarbleSyntaxTests {
  @Test func readsTicksValuesGroupsAndEnds() {
    let marbles = Marbles("-a-(bc)- |")
    #expect(marbles.problem == nil)
    #expect(marbles.events.map(\.tick) == [1, 3, 3, 5])
    #expect(marbles.events.map(\.symbol) == [.value("a"), .value("b"), .value("c"), .finished])
    #expect(Marbles.render(marbles.events) == "-a-(bc)-|")
  }
}
