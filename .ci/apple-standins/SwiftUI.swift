// A stand-in for Apple's SwiftUI module, for type-checking only: `.ci/apple-typecheck` compiles it
// on Linux so that Tempo's `#if canImport(SwiftUI)` branch is type-checked. It is never linked or
// run, and its members have no real bodies.
//
// It declares only what Tempo's code uses (Sources/TempoSchedulers/ActionWrapping.swift), written
// by hand in the shapes of Apple's documentation. Neither `withAnimation(_:_:)` nor
// `withTransaction(_:_:)` is main-actor isolated there; `Animation` is `Sendable`.

public struct Animation: Equatable, Sendable {
  public static let `default` = Animation()

  public static func == (lhs: Animation, rhs: Animation) -> Bool { fatalError() }
}

public struct Transaction {
  public var animation: Animation?

  public init() {}

  public init(animation: Animation?) { self.animation = animation }
}

public func withAnimation<Result>(
  _ animation: Animation? = .default, _ body: () throws -> Result
) rethrows -> Result { fatalError() }

public func withTransaction<Result>(
  _ transaction: Transaction, _ body: () throws -> Result
) rethrows -> Result { fatalError() }
