import TempoClocks
import TempoExecutor
@_spi(TempoInternals) import TempoSupport
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

/// One trait on a suite covers every test in it, nested suites and each case of a
/// parameterized test included, each test case on an executor of its own.
@Suite(.testExecutor) struct SuiteTraitCoverageTests {
  /// The executors the cases below ran on, kept so that no address is reused.
  static let executors = LockedBox<[TestExecutor]>([])

  @Suite struct Nested {
    @Test func aTestOfANestedSuiteRunsInAScope() {
      #expect(TestExecutor.openScope != nil)
    }
  }

  @Test(arguments: 0..<4)
  func eachCaseRunsOnAnExecutorOfItsOwn(_ case: Int) {
    guard let executor = TestExecutor.openScope else {
      Issue.record("case \(`case`) ran outside a scope")
      return
    }
    let isNew = Self.executors.withLock { executors in
      defer { executors.append(executor) }
      return !executors.contains { $0 === executor }
    }
    #expect(isNew, "case \(`case`) shares an executor with another case")
  }
}
