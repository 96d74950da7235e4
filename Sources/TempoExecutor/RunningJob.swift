@_spi(TempoInternals) import TempoSupport

/// Which test executor's job the current thread is running, kept in a thread-specific value.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
enum RunningJob {
  private static let key = Platform.ThreadSpecific()

  static var executor: TestExecutor? {
    get {
      key.value.map { Unmanaged<TestExecutor>.fromOpaque($0).takeUnretainedValue() }
    }
    set {
      key.value = newValue.map { Unmanaged.passUnretained($0).toOpaque() }
    }
  }
}

/// What kind of job a job is, read from the runtime's job header.
package enum JobIdentity {
  /// Whether `job` is a task (rather than an actor's processing job, or the continuation job of
  /// `Task.yield()`). Only a task has an identity that outlives one job: an executor remembers
  /// tasks, never other jobs, whose addresses say nothing about whose work they carry.
  ///
  /// The runtime's job header is a heap object header (two words), two words the scheduler
  /// owns, and then 32 bits of flags whose low 8 bits are the job's kind; kind 0 is a task. The
  /// layout is part of the runtime's ABI.
  package static func isTask(_ job: UnsafeRawPointer) -> Bool {
    let flags = job.load(
      fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size, as: UInt32.self)
    return flags & 0xFF == 0
  }
}
