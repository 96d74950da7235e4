#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// Which test executor's job the current thread is running, kept in a thread-specific value.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
enum RunningJob {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "pthread_key_create failed with \(status)")
    return key
  }()

  static var executor: TestExecutor? {
    get {
      pthread_getspecific(key).map { Unmanaged<TestExecutor>.fromOpaque($0).takeUnretainedValue() }
    }
    set {
      pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() })
    }
  }
}
