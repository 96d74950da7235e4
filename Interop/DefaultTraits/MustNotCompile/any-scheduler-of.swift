// expect: 'AnySchedulerOf' is ambiguous for type lookup
import Dependencies
import TempoSchedulers

func snippet() { let _: AnySchedulerOf<DispatchQueue> = .immediate }
