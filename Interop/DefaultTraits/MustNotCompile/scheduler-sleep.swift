// expect: ambiguous use of 'sleep(for:tolerance:options:)'
import Dependencies
import TempoSchedulers

func snippet() async throws {
  let scheduler = DispatchQueue.TempoSchedulers::test
  try await scheduler.sleep(for: .seconds(1))
}
