// A stand-in for Apple's Darwin module, for type-checking only: `.ci/apple-typecheck` compiles it
// on Linux so that Tempo's `#if canImport(Darwin)` branches are type-checked. It is never linked
// or run, and its functions have no real bodies.
//
// It declares only what Tempo's code uses (Sources/TempoSupport/Platform.swift), written by hand
// from the signatures that Apple's SDK headers import with (nullability included): os/lock.h
// (assumes nonnull), pthread.h (assumes nonnull), and stdlib.h and dlfcn.h (no nullability, so
// their pointers import as implicitly unwrapped optionals). Swift imports every C function as
// `@discardableResult`, and so are these.

// MARK: os/lock.h

/// `struct os_unfair_lock_s { uint32_t _os_unfair_lock_opaque; }`
public struct os_unfair_lock_s {
  public var _os_unfair_lock_opaque: UInt32

  public init() { _os_unfair_lock_opaque = 0 }

  public init(_os_unfair_lock_opaque: UInt32) {
    self._os_unfair_lock_opaque = _os_unfair_lock_opaque
  }
}

public typealias os_unfair_lock = os_unfair_lock_s

public typealias os_unfair_lock_t = UnsafeMutablePointer<os_unfair_lock_s>

public func os_unfair_lock_lock(_ lock: os_unfair_lock_t) { fatalError() }

public func os_unfair_lock_unlock(_ lock: os_unfair_lock_t) { fatalError() }

// MARK: pthread.h

/// `typedef unsigned long pthread_key_t` (through `__darwin_pthread_key_t`).
public typealias pthread_key_t = UInt

@discardableResult
public func pthread_key_create(
  _ key: UnsafeMutablePointer<pthread_key_t>,
  _ destructor: (@convention(c) (UnsafeMutableRawPointer) -> Void)?
) -> Int32 { fatalError() }

@discardableResult
public func pthread_getspecific(_ key: pthread_key_t) -> UnsafeMutableRawPointer? { fatalError() }

@discardableResult
public func pthread_setspecific(_ key: pthread_key_t, _ value: UnsafeRawPointer?) -> Int32 {
  fatalError()
}

// MARK: stdlib.h

@discardableResult
public func malloc(_ size: Int) -> UnsafeMutableRawPointer! { fatalError() }

public func free(_ pointer: UnsafeMutableRawPointer!) { fatalError() }

@discardableResult
public func getenv(_ name: UnsafePointer<CChar>!) -> UnsafeMutablePointer<CChar>! { fatalError() }
public func write(_ fd: Int32, _ buffer: UnsafeRawPointer!, _ count: Int) -> Int { fatalError() }

// MARK: dlfcn.h

@discardableResult
public func dlsym(
  _ handle: UnsafeMutableRawPointer!, _ symbol: UnsafePointer<CChar>!
) -> UnsafeMutableRawPointer! { fatalError() }
