/// The deferred executors' side of the registry's state (`DeferredTest`): a test's task whose
/// time source opened no executor yet, so that routing opens one at the first job the task
/// makes runnable.
///
/// ```swift
/// var registry = TestRegistryState()
/// registry.deferOpening(of: task, to: deferral)        // .install
/// registry.deferral(at: task.address, id: task.id)      // deferral
/// registry.forgetDeferral(at: task.address, deferral)   // .restore
/// ```
extension TestRegistryState {
  /// A test's deferred executor: the deferral, an object, and the ID of the test's task.
  struct Deferred {
    let deferral: AnyObject
    let taskID: UInt32
  }

  /// `task`'s executor is deferred to `deferral`, the first of its test's time sources
  /// made in it.
  mutating func deferOpening(of task: TaskRef, to deferral: AnyObject) -> Hooks {
    let hooks: Hooks = needsHooks ? .unchanged : .install
    deferred[task.address] = Deferred(deferral: deferral, taskID: task.id)
    return hooks
  }

  /// The deferral of the task with `id` at `address`, if its executor is deferred.
  func deferral(at address: UnsafeRawPointer, id: UInt32) -> AnyObject? {
    guard let entry = deferred[address], entry.taskID == id else { return nil }
    return entry.deferral
  }

  /// Whether any executor is deferred: routing looks for deferrals only then.
  var hasDeferrals: Bool { !deferred.isEmpty }

  /// `deferral`, kept for the task at `address`, opened or was let go: routing no longer finds
  /// it. (Another deferral at that address, of a later task, is left alone.)
  mutating func forgetDeferral(at address: UnsafeRawPointer, _ deferral: AnyObject) -> Hooks {
    guard let entry = deferred[address], entry.deferral === deferral else { return .unchanged }
    deferred[address] = nil
    return needsHooks ? .unchanged : .restore
  }
}
