package import TempoCore
@_spi(TempoInternals) import TempoSupport

/// What a test executor knows of the work its test may leave behind: the time sources made for
/// the test, and the tasks it started as background work.
///
/// ```swift
/// executor.leftovers.add(timeline)             // a clock or scheduler made in the test
/// let pending = executor.leftovers.pending     // what is still due on them
/// ```
package final class Leftovers: @unchecked Sendable {
  // Invariant: `lock` guards `sources` and `background`, and is held only inside these
  // methods, which call nothing out; the references they answer are released after unlocking.
  // The lock is the executor's: no method here is called with it held.
  private let lock: Lock
  private var sources: [WeakSource] = []
  private var background: [BackgroundWork] = []

  private struct WeakSource {
    weak var source: (any LeftoverWorkSource)?
  }

  /// Guards the lists with `lock`, its executor's (which saves a lock's allocations per test).
  init(lock: Lock) {
    self.lock = lock
  }

  /// Lists `source`'s pending work when the test ends (once, however often it is added).
  package func add(_ source: any LeftoverWorkSource) {
    let live = lock.withLock { () -> [any LeftoverWorkSource] in
      // A new executor's list is empty, with nothing to prune or look through.
      guard !sources.isEmpty else {
        sources.append(WeakSource(source: source))
        return []
      }
      // The sources gone are dropped. Each live one is read strongly, and released only after
      // unlocking: if its owner let go of it meanwhile, that release runs its `deinit`, which
      // releases the actions it still holds, and whatever they hold may enqueue a job on this
      // executor, whose lock this is.
      var live: [any LeftoverWorkSource] = []
      var isListed = false
      sources.removeAll { weak in
        guard let listed = weak.source else { return true }
        if listed === source { isListed = true }
        live.append(listed)
        return false
      }
      if !isListed { sources.append(WeakSource(source: source)) }
      return live
    }
    withExtendedLifetime(live) {}
  }

  /// The sources still alive.
  package var liveSources: [any LeftoverWorkSource] {
    // By hand: a debug build applies a key path given as a function through the runtime's
    // key path machinery, and runs `compactMap` generically, at the end of every test.
    lock.withLock { () -> [any LeftoverWorkSource] in
      var live: [any LeftoverWorkSource] = []
      for weak in sources {
        if let source = weak.source { live.append(source) }
      }
      return live
    }
  }

  /// The pending work of every source still alive that has some, one description each.
  package var pending: [String] { Self.pendingWork(of: liveSources) }

  /// The pending work of each of `sources` that has some, one description each.
  package static func pendingWork(of sources: [any LeftoverWorkSource]) -> [String] {
    var descriptions: [String] = []
    for source in sources {
      if let description = source.leftoverDescription { descriptions.append(description) }
    }
    return descriptions
  }

  /// Remembers background work, to end when the test ends.
  package func add(_ work: BackgroundWork) {
    lock.withLock { background.append(work) }
  }

  /// The background work started so far; it is forgotten here.
  package func takeBackground() -> [BackgroundWork] {
    lock.withLock {
      defer { background = [] }
      return background
    }
  }
}
