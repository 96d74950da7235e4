#if !canImport(Combine)
  // Combine has `merge(with:)` and `Publishers.Merge`; OpenCombine 0.14, which TempoSchedulers
  // re-exports on the other platforms, has neither. These fill the gap there, so that code written
  // for Combine (such as a race of two publishers) compiles unchanged everywhere.

  extension Publisher {
    /// Publishes the elements of this publisher and of `other` as they arrive.
    ///
    /// Use it to race two publishers, or to listen to two sources of the same events:
    ///
    /// ```swift
    /// let scheduler = DispatchQueue.test
    /// let fast = Just("fast").delay(for: 1, scheduler: scheduler)
    /// let slow = Just("slow").delay(for: 2, scheduler: scheduler)
    /// var output: [String] = []
    /// let cancellable = fast.merge(with: slow).prefix(1).sink { output.append($0) }
    /// scheduler.advance(by: 2)   // output == ["fast"]
    /// ```
    ///
    /// The merged publisher finishes when both have finished, and fails as soon as either fails.
    /// It is only defined where Combine is not available: on Apple platforms, Combine's own
    /// `merge(with:)` is used.
    ///
    /// See ``Publishers/Merge``.
    public func merge<Other: Publisher>(with other: Other) -> Publishers.Merge<Self, Other>
    where Other.Output == Output, Other.Failure == Failure {
      Publishers.Merge(self, other)
    }
  }

  extension Publishers {
    /// A publisher that interleaves the elements of two publishers, for the platforms whose
    /// Combine implementation (OpenCombine) lacks one.
    ///
    /// ```swift
    /// Publishers.Merge(Just(1), Just(2)).sink { print($0) }   // 1, 2
    /// ```
    ///
    /// - Elements are published in the order they arrive from either side.
    /// - It never delivers more than downstream demanded: demand is passed on to both sides, and
    ///   elements that arrive beyond it wait in a buffer until more is requested.
    /// - It finishes once both sides have finished and the buffer is empty. A failure of either
    ///   side cancels the other, and is published after the buffered elements.
    /// - Cancelling the subscription cancels both sides and drops the buffer.
    ///
    /// - Complexity: O(1) per element that finds demand waiting; an element that waits in the
    ///   buffer costs O(b) to take out, for b buffered elements.
    public struct Merge<A: Publisher, B: Publisher>: Publisher
    where A.Output == B.Output, A.Failure == B.Failure {
      /// The elements of both publishers.
      public typealias Output = A.Output
      /// The failure of either publisher.
      public typealias Failure = A.Failure

      /// The first publisher.
      public let a: A
      /// The second publisher.
      public let b: B

      /// Creates a publisher that merges `a` and `b`.
      public init(_ a: A, _ b: B) {
        self.a = a
        self.b = b
      }

      /// Subscribes `subscriber` to both publishers.
      public func receive<S: Subscriber>(subscriber: S)
      where S.Input == Output, S.Failure == Failure {
        let storage = MergeStorage<Output, Failure>(downstream: AnySubscriber(subscriber))
        subscriber.receive(subscription: storage)
        a.subscribe(MergeSide(storage: storage, side: .a))
        b.subscribe(MergeSide(storage: storage, side: .b))
      }
    }
  }
#endif
