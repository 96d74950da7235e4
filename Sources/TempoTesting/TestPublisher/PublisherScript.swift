import TempoSchedulers

/// A test publisher's script, checked: the values and the completion it plays, each at its tick,
/// the subscription a hot script marks, and what was wrong with the script as given.
///
/// ```swift
/// let script = PublisherScript(
///   checking: [.value(1, "a"), .subscribed(2), .finished(3)], hot: true, source: "the list")
/// script.events   // [(1, .value("a")), (3, .completion(.finished))]
/// script.marker   // 2
/// ```
struct PublisherScript<Output, Failure: Error> {
  /// What the publisher does at a tick.
  enum Event {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
  }

  /// The events to play, in tick order; events at one tick keep the order they were given in.
  let events: [(tick: Int, event: Event)]
  /// The tick a hot script marks for the subscription (`^` or `.subscribed(tick)`), if any.
  let marker: Int?
  /// What is wrong with the script as given, one sentence each, in the order found.
  let problems: [String]

  /// Checks `script`, which `source` names in the problems (as "the hot publisher's list"):
  /// events before tick 0, events only a subscriber does, events after the completion, and
  /// marks that a cold script cannot have or that come twice are reported and left out; events
  /// out of tick order are reported and play at their ticks.
  init(checking script: [Recorded<Output, Failure>], hot: Bool, source: String) {
    var played: [(record: Recorded<Output, Failure>, event: Event)] = []
    var marker: Int?
    var problems: [String] = []
    var completion: Recorded<Output, Failure>?
    let source = source.capitalizedFirst
    for record in script {
      if record.tick < 0 {
        problems.append("\(source) has \(record), at a tick before 0; it is left out.")
        continue
      }
      let event: Event
      switch record.event {
      case .requested, .cancelled:
        problems.append(
          "\(source) has \(record), which only a subscriber does; it is left out.")
        continue
      case .subscribed:
        if !hot {
          problems.append(
            "\(source) marks a subscription, but a cold publisher's ticks count from each "
              + "subscription; the mark is ignored.")
        } else if let marker {
          problems.append(
            "\(source) marks a second subscription, at tick \(record.tick); the first, at tick "
              + "\(marker), counts.")
        } else {
          marker = record.tick
        }
        continue
      case .value(let value): event = .value(value)
      case .finished: event = .completion(.finished)
      case .failed(let error): event = .completion(.failure(error))
      }
      if let completion {
        problems.append(
          "\(source) has \(record) after its completion (\(completion)); it is never delivered.")
        continue
      }
      if let last = played.last?.record, record.tick < last.tick {
        problems.append(
          "\(source) has \(record) after \(last): list events in tick order; it plays at its "
            + "tick.")
      }
      if case .completion = event { completion = record }
      played.append((record, event))
    }
    let ordered = played.enumerated().sorted {
      ($0.element.record.tick, $0.offset) < ($1.element.record.tick, $1.offset)
    }
    self.events = ordered.map { ($0.element.record.tick, $0.element.event) }
    self.marker = marker
    self.problems = problems
  }

  /// The events of `diagram`, whose characters stand for `values` and whose `#` fails with
  /// `error`, as a list to check; what cannot be read is reported at `location`.
  static func recorded(
    from diagram: String, values: [Character: Output], error: Failure?, location: CallSite
  ) -> [Recorded<Output, Failure>] {
    let marbles = Marbles(diagram)
    if let problem = marbles.problem {
      location.report("The marble diagram \"\(diagram)\" is malformed: \(problem).")
    }
    var script: [Recorded<Output, Failure>] = []
    for (tick, symbol) in marbles.events {
      switch symbol {
      case .value(let character):
        if let value = values[character] {
          script.append(.value(tick, value))
        } else {
          location.report(
            "The marble diagram \"\(diagram)\" uses '\(character)', which has no value.")
        }
      case .finished:
        script.append(.finished(tick))
      case .failed:
        if let error {
          script.append(.failed(tick, error))
        } else {
          location.report("The marble diagram \"\(diagram)\" fails ('#') but no error was given.")
        }
      case .subscribed:
        script.append(.subscribed(tick))
      }
    }
    return script
  }
}
