// expect: ambiguous use of 'unimplemented'
import Dependencies
import TempoSchedulers

func snippet() { _ = OperationQueue.unimplemented("queue") }
