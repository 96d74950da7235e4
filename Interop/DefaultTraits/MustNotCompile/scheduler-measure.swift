// expect: ambiguous use of 'measure'
import Dependencies
import TempoSchedulers

func snippet() async throws {
  let scheduler = DispatchQueue.TempoSchedulers::test
  _ = scheduler.measure {}
}
