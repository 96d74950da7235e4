// expect: ambiguous use of 'init()'
import Dependencies
import TempoClocks

func snippet() { _ = ImmediateClock() }
