// expect: ambiguous
import Dependencies
import TempoClocks

func snippet() { _ = UnimplementedClock() }
