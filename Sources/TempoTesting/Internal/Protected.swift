@_spi(TempoInternals) import TempoSupport

/// A value behind a ``Lock``.
final class Protected<Value: Sendable>: @unchecked Sendable {
  // Invariant: `lock` guards `value`; `body` must not call out or release user values.
  private let lock = Lock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock { try body(&value) }
  }
}
