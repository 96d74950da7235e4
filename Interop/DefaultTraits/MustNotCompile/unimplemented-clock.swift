// expect: ambiguous use of 'init(name:)'
import Dependencies
import TempoClocks

func snippet() { _ = UnimplementedClock() }
