// A stand-in for Apple's Combine module, for type-checking only: `.ci/apple-typecheck` compiles it
// on Linux so that Tempo's `#if canImport(Combine)` branches are type-checked. It is never linked
// or run, and its members have no real bodies.
//
// It declares only what Tempo's code uses, written by hand in the shapes of Apple's documentation
// of Combine, and of Foundation's and Dispatch's `Scheduler` conformances (DispatchQueue, RunLoop,
// OperationQueue), which Apple's SDK declares in those modules' overlays. Linux's Foundation and
// Dispatch cannot be extended from outside, so those conformances are declared here, at the end;
// Tempo sees all three modules through one file (TempoSchedulers/Internal/CombinePlatform.swift),
// so the difference does not show.
//
// Concurrency annotations: only what Swift infers for Combine's `@frozen` value types
// (`Subscribers.Demand`, and `Subscribers.Completion` when its failure is Sendable), written out
// here. Every other type is left non-Sendable, the stricter choice: code that passes here does not
// lean on a conformance the SDK may lack. `ImmediateScheduler` is declared although Tempo never
// uses Combine's: Tempo declares its own, which must win over Combine's in Tempo's files.

public import Dispatch
public import Foundation

// MARK: Cancellation

public protocol Cancellable {
  func cancel()
}

public final class AnyCancellable: Cancellable, Hashable {
  public init(_ cancel: @escaping () -> Void) {}

  public init<C: Cancellable>(_ canceller: C) {}

  public final func cancel() {}

  public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }

  public final func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

public struct CombineIdentifier: Hashable, CustomStringConvertible {
  public init() {}

  public init(_ obj: AnyObject) {}

  public var description: String { fatalError() }
}

public protocol CustomCombineIdentifierConvertible {
  var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
  public var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }
}

// MARK: The root protocols

public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
  func request(_ demand: Subscribers.Demand)
}

public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
  associatedtype Input
  associatedtype Failure: Error

  func receive(subscription: any Subscription)
  func receive(_ input: Input) -> Subscribers.Demand
  func receive(completion: Subscribers.Completion<Failure>)
}

public protocol Publisher<Output, Failure> {
  associatedtype Output
  associatedtype Failure: Error

  func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input
}

extension Publisher {
  public func subscribe<S: Subscriber>(_ subscriber: S)
  where Failure == S.Failure, Output == S.Input { fatalError() }
}

public protocol Subject<Output, Failure>: AnyObject, Publisher {
  func send(_ value: Output)
  func send(completion: Subscribers.Completion<Failure>)
  func send(subscription: any Subscription)
}

public protocol ConnectablePublisher<Output, Failure>: Publisher {
  func connect() -> any Cancellable
}

extension ConnectablePublisher {
  public func autoconnect() -> Publishers.Autoconnect<Self> { fatalError() }
}

// MARK: Subscribers

public enum Subscribers {}

extension Subscribers {
  /// `@frozen` in Combine, and so implicitly `Sendable`.
  public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible,
    Sendable
  {
    public static var unlimited: Subscribers.Demand { fatalError() }
    public static var none: Subscribers.Demand { fatalError() }

    public static func max(_ value: Int) -> Subscribers.Demand { fatalError() }

    public var max: Int? { fatalError() }

    public var description: String { fatalError() }

    public static func + (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Subscribers.Demand {
      fatalError()
    }
    public static func + (lhs: Subscribers.Demand, rhs: Int) -> Subscribers.Demand { fatalError() }
    public static func += (lhs: inout Subscribers.Demand, rhs: Subscribers.Demand) { fatalError() }
    public static func += (lhs: inout Subscribers.Demand, rhs: Int) { fatalError() }
    public static func - (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Subscribers.Demand {
      fatalError()
    }
    public static func - (lhs: Subscribers.Demand, rhs: Int) -> Subscribers.Demand { fatalError() }
    public static func -= (lhs: inout Subscribers.Demand, rhs: Subscribers.Demand) { fatalError() }
    public static func -= (lhs: inout Subscribers.Demand, rhs: Int) { fatalError() }
    public static func * (lhs: Subscribers.Demand, rhs: Int) -> Subscribers.Demand { fatalError() }
    public static func *= (lhs: inout Subscribers.Demand, rhs: Int) { fatalError() }

    public static func < (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Bool {
      fatalError()
    }
    public static func < (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
    public static func < (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
    public static func > (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
    public static func > (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
    public static func <= (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
    public static func <= (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
    public static func >= (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
    public static func >= (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
    public static func == (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
    public static func == (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
    public static func != (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
    public static func != (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
  }

  /// `@frozen` in Combine, and so implicitly `Sendable` when its failure is.
  public enum Completion<Failure: Error> {
    case finished
    case failure(Failure)
  }

}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Hashable where Failure: Hashable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

// MARK: Type erasers and subjects

public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible {
  public let combineIdentifier: CombineIdentifier

  public init<S: Subscriber>(_ s: S) where Input == S.Input, Failure == S.Failure { fatalError() }

  public var description: String { fatalError() }

  public func receive(subscription: any Subscription) {}
  public func receive(_ value: Input) -> Subscribers.Demand { fatalError() }
  public func receive(completion: Subscribers.Completion<Failure>) {}
}

public final class PassthroughSubject<Output, Failure: Error>: Subject {
  public init() {}

  public func send(_ input: Output) {}
  public func send(completion: Subscribers.Completion<Failure>) {}
  public func send(subscription: any Subscription) {}

  public func receive<S: Subscriber>(subscriber: S)
  where Failure == S.Failure, Output == S.Input {}
}

// MARK: Publishers and operators

public enum Publishers {}

public final class Future<Output, Failure: Error>: Publisher {
  public typealias Promise = (Result<Output, Failure>) -> Void

  public init(_ attemptToFulfill: @escaping (@escaping Future<Output, Failure>.Promise) -> Void) {}

  public final func receive<S: Subscriber>(subscriber: S)
  where Output == S.Input, Failure == S.Failure {}
}

extension Publishers {
  public class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    public final let upstream: Upstream

    public init(upstream: Upstream) { self.upstream = upstream }

    public func receive<S: Subscriber>(subscriber: S)
    where Upstream.Failure == S.Failure, Upstream.Output == S.Input {}
  }

  public struct Output<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    public let upstream: Upstream
    public let range: CountableRange<Int>

    public func receive<S: Subscriber>(subscriber: S)
    where Upstream.Failure == S.Failure, Upstream.Output == S.Input {}
  }

  public struct Merge<A: Publisher, B: Publisher>: Publisher
  where A.Failure == B.Failure, A.Output == B.Output {
    public typealias Output = A.Output
    public typealias Failure = A.Failure

    public let a: A
    public let b: B

    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    public func receive<S: Subscriber>(subscriber: S)
    where B.Failure == S.Failure, B.Output == S.Input {}
  }

  public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    public let upstream: Upstream
    public let dueTime: Context.SchedulerTimeType.Stride
    public let scheduler: Context
    public let options: Context.SchedulerOptions?

    public func receive<S: Subscriber>(subscriber: S)
    where Upstream.Failure == S.Failure, Upstream.Output == S.Input {}
  }

}

extension Publisher {
  public func prefix(_ maxLength: Int) -> Publishers.Output<Self> { fatalError() }

  public func merge<P: Publisher>(with other: P) -> Publishers.Merge<Self, P>
  where Failure == P.Failure, Output == P.Output { fatalError() }

  public func debounce<S: Scheduler>(
    for dueTime: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil
  ) -> Publishers.Debounce<Self, S> { fatalError() }

  public func sink(
    receiveCompletion: @escaping ((Subscribers.Completion<Failure>) -> Void),
    receiveValue: @escaping ((Output) -> Void)
  ) -> AnyCancellable { fatalError() }
}

extension Publisher where Failure == Never {
  public func sink(receiveValue: @escaping ((Output) -> Void)) -> AnyCancellable { fatalError() }
}

// MARK: Schedulers

public protocol SchedulerTimeIntervalConvertible {
  static func seconds(_ s: Int) -> Self
  static func seconds(_ s: Double) -> Self
  static func milliseconds(_ ms: Int) -> Self
  static func microseconds(_ us: Int) -> Self
  static func nanoseconds(_ ns: Int) -> Self
}

public protocol Scheduler<SchedulerTimeType> {
  associatedtype SchedulerTimeType: Strideable
  where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
  associatedtype SchedulerOptions

  var now: SchedulerTimeType { get }
  var minimumTolerance: SchedulerTimeType.Stride { get }

  func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)

  func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void)

  func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable
}

extension Scheduler {
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
    _ action: @escaping () -> Void
  ) { fatalError() }

  public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
    fatalError()
  }

  public func schedule(_ action: @escaping () -> Void) { fatalError() }

  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride, _ action: @escaping () -> Void
  ) -> any Cancellable { fatalError() }

  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    _ action: @escaping () -> Void
  ) -> any Cancellable { fatalError() }
}

public struct ImmediateScheduler: Scheduler {
  public struct SchedulerTimeType: Strideable {
    public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable,
      SchedulerTimeIntervalConvertible
    {
      public typealias FloatLiteralType = Double
      public typealias IntegerLiteralType = Int
      public typealias Magnitude = Int

      public var magnitude: Int

      public init(_ value: Int) { magnitude = value }
      public init(integerLiteral value: Int) { magnitude = value }
      public init(floatLiteral value: Double) { magnitude = Int(value) }
      public init?<T: BinaryInteger>(exactly source: T) { fatalError() }

      public static func < (lhs: Self, rhs: Self) -> Bool { fatalError() }
      public static func + (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func - (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func * (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func += (lhs: inout Self, rhs: Self) { fatalError() }
      public static func -= (lhs: inout Self, rhs: Self) { fatalError() }
      public static func *= (lhs: inout Self, rhs: Self) { fatalError() }

      public static func seconds(_ s: Int) -> Self { fatalError() }
      public static func seconds(_ s: Double) -> Self { fatalError() }
      public static func milliseconds(_ ms: Int) -> Self { fatalError() }
      public static func microseconds(_ us: Int) -> Self { fatalError() }
      public static func nanoseconds(_ ns: Int) -> Self { fatalError() }
    }

    public func distance(to other: Self) -> Stride { fatalError() }
    public func advanced(by n: Stride) -> Self { fatalError() }
  }

  public typealias SchedulerOptions = Never

  public static var shared: ImmediateScheduler { ImmediateScheduler() }

  public var now: SchedulerTimeType { fatalError() }
  public var minimumTolerance: SchedulerTimeType.Stride { fatalError() }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {}

  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) {}

  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable { fatalError() }
}

// MARK: Foundation's and Dispatch's schedulers (declared in their overlays on Apple platforms)

extension DispatchQueue: Scheduler {
  public struct SchedulerTimeType: Strideable, Codable, Hashable {
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
      ExpressibleByFloatLiteral, Hashable, Codable
    {
      public typealias FloatLiteralType = Double
      public typealias IntegerLiteralType = Int
      public typealias Magnitude = Int

      /// Nanoseconds.
      public var magnitude: Int

      public var timeInterval: DispatchTimeInterval { fatalError() }

      public init(_ timeInterval: DispatchTimeInterval) { fatalError() }
      public init(integerLiteral value: Int) { fatalError() }
      public init(floatLiteral value: Double) { fatalError() }
      public init?<T: BinaryInteger>(exactly source: T) { fatalError() }

      public static func < (lhs: Self, rhs: Self) -> Bool { fatalError() }
      public static func + (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func - (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func * (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func += (lhs: inout Self, rhs: Self) { fatalError() }
      public static func -= (lhs: inout Self, rhs: Self) { fatalError() }
      public static func *= (lhs: inout Self, rhs: Self) { fatalError() }

      public static func seconds(_ s: Int) -> Self { fatalError() }
      public static func seconds(_ s: Double) -> Self { fatalError() }
      public static func milliseconds(_ ms: Int) -> Self { fatalError() }
      public static func microseconds(_ us: Int) -> Self { fatalError() }
      public static func nanoseconds(_ ns: Int) -> Self { fatalError() }
    }

    public var dispatchTime: DispatchTime

    public init(_ time: DispatchTime) { dispatchTime = time }

    public func distance(to other: Self) -> Stride { fatalError() }
    public func advanced(by n: Stride) -> Self { fatalError() }

    public init(from decoder: any Decoder) throws { fatalError() }
    public func encode(to encoder: any Encoder) throws { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
  }

  public struct SchedulerOptions {
    public var qos: DispatchQoS
    public var flags: DispatchWorkItemFlags
    public var group: DispatchGroup?

    public init(
      qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
      group: DispatchGroup? = nil
    ) {
      self.qos = qos
      self.flags = flags
      self.group = group
    }
  }

  public var now: SchedulerTimeType { fatalError() }
  public var minimumTolerance: SchedulerTimeType.Stride { fatalError() }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {}

  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) {}

  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable { fatalError() }
}

extension RunLoop: Scheduler {
  public struct SchedulerTimeType: Strideable, Codable, Hashable {
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
      ExpressibleByFloatLiteral, Hashable, Codable
    {
      public typealias FloatLiteralType = TimeInterval
      public typealias IntegerLiteralType = TimeInterval
      public typealias Magnitude = TimeInterval

      /// Seconds.
      public var magnitude: TimeInterval

      public var timeInterval: TimeInterval { magnitude }

      public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
      public init(integerLiteral value: TimeInterval) { magnitude = value }
      public init(floatLiteral value: TimeInterval) { magnitude = value }
      public init?<T: BinaryInteger>(exactly source: T) { fatalError() }

      public static func < (lhs: Self, rhs: Self) -> Bool { fatalError() }
      public static func + (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func - (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func * (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func += (lhs: inout Self, rhs: Self) { fatalError() }
      public static func -= (lhs: inout Self, rhs: Self) { fatalError() }
      public static func *= (lhs: inout Self, rhs: Self) { fatalError() }

      public static func seconds(_ s: Int) -> Self { fatalError() }
      public static func seconds(_ s: Double) -> Self { fatalError() }
      public static func milliseconds(_ ms: Int) -> Self { fatalError() }
      public static func microseconds(_ us: Int) -> Self { fatalError() }
      public static func nanoseconds(_ ns: Int) -> Self { fatalError() }
    }

    public var date: Date

    public init(_ date: Date) { self.date = date }

    public func distance(to other: Self) -> Stride { fatalError() }
    public func advanced(by n: Stride) -> Self { fatalError() }
  }

  public struct SchedulerOptions {}

  public var now: SchedulerTimeType { fatalError() }
  public var minimumTolerance: SchedulerTimeType.Stride { fatalError() }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {}

  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) {}

  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable { fatalError() }
}

extension OperationQueue: Scheduler {
  public struct SchedulerTimeType: Strideable, Codable, Hashable {
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
      ExpressibleByFloatLiteral, Hashable, Codable
    {
      public typealias FloatLiteralType = TimeInterval
      public typealias IntegerLiteralType = TimeInterval
      public typealias Magnitude = TimeInterval

      /// Seconds.
      public var magnitude: TimeInterval

      public var timeInterval: TimeInterval { magnitude }

      public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
      public init(integerLiteral value: TimeInterval) { magnitude = value }
      public init(floatLiteral value: TimeInterval) { magnitude = value }
      public init?<T: BinaryInteger>(exactly source: T) { fatalError() }

      public static func < (lhs: Self, rhs: Self) -> Bool { fatalError() }
      public static func + (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func - (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func * (lhs: Self, rhs: Self) -> Self { fatalError() }
      public static func += (lhs: inout Self, rhs: Self) { fatalError() }
      public static func -= (lhs: inout Self, rhs: Self) { fatalError() }
      public static func *= (lhs: inout Self, rhs: Self) { fatalError() }

      public static func seconds(_ s: Int) -> Self { fatalError() }
      public static func seconds(_ s: Double) -> Self { fatalError() }
      public static func milliseconds(_ ms: Int) -> Self { fatalError() }
      public static func microseconds(_ us: Int) -> Self { fatalError() }
      public static func nanoseconds(_ ns: Int) -> Self { fatalError() }
    }

    public var date: Date

    public init(_ date: Date) { self.date = date }

    public func distance(to other: Self) -> Stride { fatalError() }
    public func advanced(by n: Stride) -> Self { fatalError() }
  }

  public struct SchedulerOptions {}

  public var now: SchedulerTimeType { fatalError() }
  public var minimumTolerance: SchedulerTimeType.Stride { fatalError() }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {}

  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) {}

  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable { fatalError() }
}
