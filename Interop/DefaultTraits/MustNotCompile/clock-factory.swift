// expect: ambiguous use of 'immediate'
import Dependencies
import TempoClocks

func snippet() { let _: any Clock<Duration> = .immediate }
