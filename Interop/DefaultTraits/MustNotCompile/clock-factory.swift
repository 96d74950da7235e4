// expect: ambiguous
import Dependencies
import TempoClocks

func snippet() { let _: any Clock<Duration> = .immediate }
