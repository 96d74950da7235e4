// expect: ambiguous use of 'timer(interval:tolerance:options:)'
import Dependencies
import TempoSchedulers

func snippet() async throws {
  let scheduler = DispatchQueue.TempoSchedulers::test
  for await _ in scheduler.timer(interval: 1) {}
}
