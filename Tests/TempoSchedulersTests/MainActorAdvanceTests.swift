import Dispatch
import TempoClocks
import TempoSchedulers
import TempoTestHelpers
import Testing

// An async advance runs the scheduler's actions where the test runs: a `@MainActor` test that
// awaits `advance` sees its main-actor model's Combine sinks run on the main actor, as they do
// in the app (the sink is a main-actor closure, which traps if run anywhere else).

/// A search view model on the main actor: its sink is a main-actor closure.
@MainActor private final class SearchViewModel {
  var results: [String] = []
  var ranOffTheMainActor = false
  let query = PassthroughSubject<String, Never>()
  private var cancellable: AnyCancellable?

  init(mainQueue: AnySchedulerOf<DispatchQueue>) {
    cancellable =
      query
      .debounce(for: .milliseconds(300), scheduler: mainQueue)
      .receive(on: mainQueue)
      .sink { [weak self] in
        if !isOnMainQueue() { self?.ranOffTheMainActor = true }
        self?.results.append($0)
      }
  }
}

@MainActor @Suite struct MainActorAdvanceTests {
  @Test func anAsyncAdvanceRunsAMainActorSinkOnTheMainActor() async {
    let mainQueue = DispatchQueue.test
    let model = SearchViewModel(mainQueue: mainQueue.eraseToAnyScheduler())
    #expect(isOnMainQueue())
    model.query.send("te")
    await mainQueue.advance(by: .milliseconds(100))
    model.query.send("tempo")
    await mainQueue.advance(by: .milliseconds(299))
    #expect(model.results == [])
    await mainQueue.advance(by: .milliseconds(1))
    #expect(model.results == ["tempo"])
    #expect(!model.ranOffTheMainActor)
  }

  @Test func anAsyncRunAndTheOtherVerbsDoToo() async {
    let mainQueue = DispatchQueue.test
    let model = SearchViewModel(mainQueue: mainQueue.eraseToAnyScheduler())
    model.query.send("a")
    await mainQueue.advanceToNextDueTime()
    model.query.send("b")
    await mainQueue.runPending()
    model.query.send("c")
    await mainQueue.run()
    model.query.send("d")
    await mainQueue.advance(to: mainQueue.now.advanced(by: .seconds(1)))
    #expect(model.results == ["a", "b", "c", "d"])
    #expect(!model.ranOffTheMainActor)
  }

  @Test func aSharedTimelineToo() async {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let model = SearchViewModel(mainQueue: mainQueue.eraseToAnyScheduler())
    model.query.send("a")
    await time.advance(by: .seconds(1))
    model.query.send("b")
    await time.run()
    model.query.send("c")
    await time.advanceToNextDueTime()
    await time.advance()
    #expect(model.results == ["a", "b", "c"])
    #expect(!model.ranOffTheMainActor)
  }

  @Test func aClockOnASharedTimelineRunsTheSchedulersActionsOnTheMainActorToo() async {
    let time = TestTimeline()
    let mainQueue = DispatchQueue.test(timeline: time)
    let clock = TestClock(timeline: time)
    let model = SearchViewModel(mainQueue: mainQueue.eraseToAnyScheduler())
    model.query.send("a")
    await clock.advance(by: .seconds(1))
    model.query.send("b")
    await clock.run()
    #expect(model.results == ["a", "b"])
    #expect(!model.ranOffTheMainActor)
  }
}
