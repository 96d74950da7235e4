// expect: ambiguous use of 'immediate'
import Dependencies
import TempoSchedulers

func snippet() { _ = RunLoop.immediate }
