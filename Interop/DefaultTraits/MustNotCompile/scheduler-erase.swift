// expect: ambiguous use of 'eraseToAnyScheduler()'
import Dependencies
import TempoSchedulers

func snippet() async throws {
  let scheduler = DispatchQueue.TempoSchedulers::test
  _ = scheduler.eraseToAnyScheduler()
}
