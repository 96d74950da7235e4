// expect: ambiguous use of 'init(every:tolerance:scheduler:options:)'
import Dependencies
import TempoSchedulers

func snippet() async throws {
  let scheduler = DispatchQueue.TempoSchedulers::test
  _ = Publishers.Timer(every: 1, scheduler: scheduler)
}
