/// The error a marble stream fails with at `#` when no error was given.
///
/// ```swift
/// let input = test.stream("-a-#")   // fails with MarbleFailure() at tick 3
/// ```
public struct MarbleFailure: Error, Equatable, Sendable {}
