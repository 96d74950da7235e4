// expect: ambiguous use of 'timerPublisher(every:tolerance:options:)'
import Dependencies
import TempoSchedulers

func snippet() async throws {
  let scheduler = DispatchQueue.TempoSchedulers::test
  _ = scheduler.timerPublisher(every: 1)
}
