@_spi(TempoInternals) import TempoSupport

// Members that only Tempo's own tests use.

@available(TempoTestExecutor 1.0, *)
extension TestRegistry {
  /// Whether any executor is open or deferred, or any clock watches (for tests).
  static var isInUse: Bool { box.withLock { $0.state.needsHooks } }

  /// Whether Tempo's hooks are installed now (for tests).
  static var hooksAreInstalled: Bool { box.withLock { _ in RuntimeHooks.globalIsInstalled } }

  /// How many task entries the registry keeps: members, lineage entries and deferred
  /// executors (for tests).
  static var entryCount: Int {
    box.withLock {
      $0.state.memberCount + $0.state.lineage.entries.count + $0.state.deferred.count
    }
  }
}
