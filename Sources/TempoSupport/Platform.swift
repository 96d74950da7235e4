// The only file of Tempo that imports the platform's C library. An import serves only the file
// it is in (with `MemberImportVisibility`, members too), so the few primitives the other files
// need are wrapped here, and they import no C library at all.
//
// The imports are public because the mutex and the thread-specific value are inlined into
// other modules (see ``Platform``).
#if canImport(Darwin)
  public import Darwin
#elseif canImport(Glibc)
  public import Glibc
  public import TempoFutex
  // The types the wrappers store (`pthread_mutex_t`, `pthread_key_t`) are attributed to the
  // runtime's shim module, which `MemberImportVisibility` asks for by name.
  public import SwiftOverlayShims
#elseif canImport(Musl)
  public import Musl
  public import TempoFutex
#elseif canImport(Android)
  public import Android
  public import TempoFutex
#endif

/// The platform primitives Tempo uses: a mutex, a thread-specific value and a symbol lookup.
///
/// The mutex and the thread-specific value are `@inlinable`, and so are SPI rather than
/// `package`: Swift does not inline a `package` declaration into another module, and ``Lock``
/// is on the path of every scheduled action. (`@_spi(TempoInternals) import TempoSupport`.)
///
/// ```swift
/// let hook = Platform.symbol(named: "swift_task_enqueueGlobal_hook")
/// ```
@_spi(TempoInternals) public enum Platform {}

extension Platform {
  /// The platform's non-recursive mutex: `os_unfair_lock` on Apple platforms, TempoFutex's
  /// futex word elsewhere (an atomic compare-and-exchange to lock, an exchange to unlock, when
  /// nobody waits, where a pthread mutex takes a call and a few checks each way). ``Lock`` owns
  /// one.
  ///
  /// Both let a running thread take a lock just released. The standard library's `Mutex` does
  /// not on Linux: it is a priority-inheritance futex, whose contended unlock hands the lock to
  /// a waiter that must first be scheduled. With more runnable threads than cores (tests in
  /// parallel beside a busy machine) the test registry's lock, taken on the way of many jobs,
  /// then went from one descheduled waiter to the next: on this project's two-core machine
  /// with both cores otherwise busy, 10 of 19 runs of Tempo's parallel suite failed (tests
  /// over their time limits, waits for unseen yields past theirs) and took up to 172 s; with
  /// this lock, 0 of 14, in 34 to 52 s (Benchmarks.md, "The lock on Linux").
  ///
  /// ```swift
  /// let mutex = Platform.Mutex()
  /// mutex.lock()
  /// mutex.unlock()
  /// ```
  public struct Mutex: ~Copyable {
    #if canImport(Darwin)
      @usableFromInline let pointer: UnsafeMutablePointer<os_unfair_lock>

      @inlinable
      public init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: os_unfair_lock())
      }

      deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
      }

      @inlinable @inline(__always)
      public borrowing func lock() { os_unfair_lock_lock(pointer) }

      @inlinable @inline(__always)
      public borrowing func unlock() { os_unfair_lock_unlock(pointer) }
    #else
      @usableFromInline let word: UnsafeMutablePointer<UInt32>
      /// A pthread mutex used instead under ThreadSanitizer, which models pthread mutexes as
      /// locks; the futex word's atomics alone would be checked as plain accesses by whichever
      /// build of TempoFutex runs.
      @usableFromInline let sanitized: UnsafeMutablePointer<pthread_mutex_t>?

      @inlinable
      public init() {
        word = .allocate(capacity: 1)
        word.initialize(to: 0)
        sanitized = Platform.isThreadSanitized ? Platform.makePthreadMutex() : nil
      }

      deinit {
        word.deinitialize(count: 1)
        word.deallocate()
        guard let sanitized else { return }
        pthread_mutex_destroy(sanitized)
        sanitized.deinitialize(count: 1)
        sanitized.deallocate()
      }

      @inlinable @inline(__always)
      public borrowing func lock() {
        if let sanitized { pthread_mutex_lock(sanitized) } else { tempo_futex_lock(word) }
      }

      @inlinable @inline(__always)
      public borrowing func unlock() {
        if let sanitized { pthread_mutex_unlock(sanitized) } else { tempo_futex_unlock(word) }
      }
    #endif
  }

  #if !canImport(Darwin)
    /// Whether this process runs under ThreadSanitizer (its runtime is linked in).
    public static let isThreadSanitized = symbol(named: "__tsan_init") != nil

    /// A new, initialized pthread mutex, for ``Mutex`` under ThreadSanitizer.
    public static func makePthreadMutex() -> UnsafeMutablePointer<pthread_mutex_t> {
      let pointer = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
      pointer.initialize(to: pthread_mutex_t())
      let status = pthread_mutex_init(pointer, nil)
      precondition(status == 0, "pthread_mutex_init failed with \(status)")
      return pointer
    }
  #endif

  /// A pointer-sized value that each thread keeps for itself (a pthread key), initially nil.
  /// The key lives as long as the process.
  ///
  /// ```swift
  /// static let running = Platform.ThreadSpecific()
  /// running.value = Unmanaged.passUnretained(executor).toOpaque()
  /// ```
  public struct ThreadSpecific: Sendable {
    @usableFromInline let key: pthread_key_t

    public init() {
      self.init(freesValuesAtThreadExit: false)
    }

    /// A key whose values, if `freesValuesAtThreadExit`, are memory from
    /// ``Platform/allocateForThread(byteCount:)`` that the platform frees when their thread ends.
    public init(freesValuesAtThreadExit: Bool) {
      var key = pthread_key_t()
      let status =
        freesValuesAtThreadExit
        ? pthread_key_create(&key) { free($0) } : pthread_key_create(&key, nil)
      precondition(status == 0, "pthread_key_create failed with \(status)")
      self.key = key
    }

    /// The current thread's value.
    public var value: UnsafeMutableRawPointer? {
      @inlinable get { pthread_getspecific(key) }
      @inlinable nonmutating set { pthread_setspecific(key, newValue) }
    }
  }

  /// Uninitialized memory for a value that a ``ThreadSpecific`` key frees when its thread ends.
  package static func allocateForThread(byteCount: Int) -> UnsafeMutableRawPointer {
    guard let memory = malloc(byteCount) else {
      fatalError("Tempo could not allocate \(byteCount) bytes for a thread")
    }
    return memory
  }

  /// The address of the symbol `name` in the first loaded image that defines it, in load order
  /// (`dlsym` with `RTLD_DEFAULT`), or nil if none does.
  package static func symbol(named name: String) -> UnsafeMutableRawPointer? {
    // `RTLD_DEFAULT` is -2 on Apple platforms and 0 elsewhere; neither imports as a constant.
    #if canImport(Darwin)
      let everywhere = UnsafeMutableRawPointer(bitPattern: -2)
    #else
      let everywhere: UnsafeMutableRawPointer? = nil
    #endif
    return dlsym(everywhere, name)
  }

  /// The value of the environment variable `name`, if set (`getenv`).
  package static func environmentValue(named name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}

extension Platform {
  /// Writes `text` to standard error (file descriptor 2), unbuffered.
  package static func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      var rest = UnsafeRawBufferPointer(bytes)
      while !rest.isEmpty {
        let written = write(2, rest.baseAddress, rest.count)
        guard written > 0 else { return }
        rest = UnsafeRawBufferPointer(rebasing: rest[written...])
      }
    }
  }
}
