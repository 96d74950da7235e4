// expect: 'TestSchedulerOf' is ambiguous for type lookup
import Dependencies
import TempoSchedulers

func snippet(_ scheduler: TestSchedulerOf<DispatchQueue>) {}
