// expect: ambiguous use of 'test'
import Dependencies
import TempoSchedulers

func snippet() { _ = DispatchQueue.test }
