// expect: ambiguous use of 'unimplemented(fileID:filePath:line:column:)'
import Dependencies
import TempoClocks

func snippet() { let _: any Clock<Duration> = .unimplemented() }
