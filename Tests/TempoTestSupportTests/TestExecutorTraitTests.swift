import TempoClocks
import TempoExecutor
import TempoTestSupport
import Testing

/// The welcome test of the clock's parity tests, with the trait instead of `withTestExecutor`.
@Suite(.testExecutor) struct TestExecutorTraitTests {
  @MainActor
  @Test func welcomeWithTheTrait() async {
    let clock = TestClock()
    let model = WelcomeModel(clock: clock)
    Task { await model.task() }
    await clock.advance(by: .seconds(4))
    #expect(model.message == nil)
    await clock.advance(by: .seconds(1))
    #expect(model.message == "Welcome!")
  }

  @Test func aNestedScopeIsTheSameScope() async {
    let outer = TestExecutor.current
    await withTestExecutor {
      #expect(TestExecutor.current === outer)
    }
  }
}

@Suite struct WithTestExecutorTests {
  @Test func theHooksAreInstalledWhileAScopeIsOpen() async {
    await withTestExecutor {
      #expect(TestExecutor.hooksAreInstalled)
    }
  }
}

/// Shows a welcome message five seconds after it appears.
@MainActor
private final class WelcomeModel {
  var message: String?
  let clock: any Clock<Duration>

  init(clock: any Clock<Duration>) { self.clock = clock }

  func task() async {
    do {
      try await clock.sleep(for: .seconds(5))
      message = "Welcome!"
    } catch {}
  }
}
