// expect: ambiguous use of 'unimplemented'
import Dependencies
import TempoClocks

func snippet() { let _: any Clock<Duration> = .unimplemented() }
