@_spi(TempoInternals) import TempoSupport

extension MarbleTest {
  /// An async stream that yields the diagram's characters, as strings, at its ticks, and ends
  /// at `|`. Its events are scheduled on the bench's timeline, so advancing the bench plays them.
  public func stream(
    _ diagram: String,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> AsyncThrowingStream<String, any Error> {
    stream(
      diagram, values: characters(of: diagram),
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// An async stream whose diagram's characters stand for `values`; `#` fails it with `error`.
  ///
  /// A stream plays at the ticks written, from the start of the test; a subscription mark
  /// (`^`) has no meaning in it and is reported.
  public func stream<Value: Sendable>(
    _ diagram: String, values: [Character: Value], error: (any Error)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> AsyncThrowingStream<Value, any Error> {
    let site = CallSite(fileID, filePath, line, column)
    let marbles = Marbles(diagram)
    if let problem = marbles.problem {
      site.report("The marble diagram \"\(diagram)\" is malformed: \(problem).")
    }
    if marbles.subscriptionTick != nil {
      site.report(
        "The marble diagram \"\(diagram)\" marks a subscription (^), but a stream plays at the "
          + "ticks written; the mark is ignored.")
    }
    for case (_, .value(let character)) in marbles.events where values[character] == nil {
      site.report("The marble diagram \"\(diagram)\" uses '\(character)', which has no value.")
    }
    let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream()
    for (tick, symbol) in marbles.events {
      at(tick) {
        switch symbol {
        case .value(let character):
          if let value = values[character] { continuation.yield(value) }
        case .finished:
          continuation.finish()
        case .failed:
          continuation.finish(throwing: error ?? MarbleFailure())
        case .subscribed:
          break
        }
      }
    }
    return stream
  }

  /// Iterates `sequence` in a task of its own while the bench advances `ticks` ticks, and
  /// returns what it produced, each at its tick.
  ///
  /// Run it in a test executor (`@Test(.testExecutor)` or `withTestExecutor`), so that each
  /// advance waits for the sequence's work by construction.
  public func record<S: AsyncSequence & Sendable>(
    _ sequence: S, forTicks ticks: Int
  ) async -> [Recorded<S.Element, any Error>] where S.Element: Sendable {
    let log = AsyncLog<S.Element>()
    let task = Task {
      do {
        for try await element in sequence {
          log.append(Recorded(self.currentTick, .value(element)))
        }
        log.append(Recorded(self.currentTick, .finished))
      } catch {
        log.append(Recorded(self.currentTick, .failed(error)))
      }
    }
    await advance(ticks: ticks)
    task.cancel()
    return log.records
  }
}

private final class AsyncLog<Element>: @unchecked Sendable {
  // Invariant: `lock` guards `recorded`.
  private let lock = Lock()
  private var recorded: [Recorded<Element, any Error>] = []

  func append(_ record: Recorded<Element, any Error>) { lock.withLock { recorded.append(record) } }
  var records: [Recorded<Element, any Error>] { lock.withLock { recorded } }
}
