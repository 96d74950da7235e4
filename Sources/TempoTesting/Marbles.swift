/// A marble diagram read into events at ticks.
///
/// The syntax, one character per tick:
///
/// | Character | Meaning |
/// | --- | --- |
/// | `-` | a tick passes with no event |
/// | any other letter, digit or symbol | a value (the character, or what `values:` maps it to) |
/// | `\|` | the publisher or sequence finishes |
/// | `#` | it fails |
/// | `^` | the subscription (hot publishers; the harness subscribes there) |
/// | `(ab\|)` | a group: its events happen at the same tick, and the group takes one tick |
/// | space | nothing; use spaces to line diagrams up |
///
/// ```swift
/// let diagram = Marbles("-a-(bc)-|")
/// diagram.events   // [(1, .value("a")), (3, .value("b")), (3, .value("c")), (5, .finished)]
/// ```
public struct Marbles: Sendable, Equatable, CustomStringConvertible {
  /// What happens at a tick.
  public enum Symbol: Sendable, Equatable {
    case value(Character)
    case finished
    case failed
    case subscribed
  }

  /// The events in order, each at its tick (from 0).
  public let events: [(tick: Int, symbol: Symbol)]
  /// The diagram as written.
  public let diagram: String
  /// What is wrong with the diagram, if anything (an unclosed or nested group).
  public let problem: String?

  /// Reads `diagram`.
  public init(_ diagram: String) {
    self.diagram = diagram
    var events: [(Int, Symbol)] = []
    var tick = 0
    var groupTick: Int?
    var problem: String?
    for character in diagram {
      switch character {
      case " ": continue
      case "(":
        if groupTick != nil { problem = "a group opens inside a group" }
        groupTick = tick
        continue
      case ")":
        if groupTick == nil { problem = "a group closes that was not opened" }
        groupTick = nil
        tick += 1
        continue
      case "-":
        if groupTick == nil { tick += 1 }
        continue
      default:
        break
      }
      let symbol: Symbol =
        switch character {
        case "|": .finished
        case "#": .failed
        case "^": .subscribed
        default: .value(character)
        }
      events.append((groupTick ?? tick, symbol))
      if groupTick == nil { tick += 1 }
    }
    if groupTick != nil { problem = "a group is not closed" }
    self.events = events
    self.problem = problem
  }

  /// The tick of the subscription marker `^`, if the diagram has one.
  public var subscriptionTick: Int? {
    events.first { $0.symbol == .subscribed }?.tick
  }

  /// The diagram as written.
  public var description: String { diagram }

  /// Whether two diagrams have the same events at the same ticks (however they are spaced).
  public static func == (lhs: Marbles, rhs: Marbles) -> Bool {
    lhs.events.elementsEqual(rhs.events) { $0.tick == $1.tick && $0.symbol == $1.symbol }
  }

  /// Writes `events` as a diagram: one `-` per quiet tick, groups for events at the same tick.
  public static func render(_ events: [(tick: Int, symbol: Symbol)]) -> String {
    var diagram = ""
    var tick = 0
    var index = events.startIndex
    while index < events.endIndex {
      let at = events[index].tick
      if at > tick {
        diagram += String(repeating: "-", count: at - tick)
        tick = at
      }
      var end = index
      while end < events.endIndex, events[end].tick == at { end += 1 }
      let symbols = events[index..<end].map { $0.symbol.character }
      diagram += symbols.count == 1 ? String(symbols[0]) : "(" + String(symbols) + ")"
      tick += 1
      index = end
    }
    return diagram
  }
}

extension Marbles.Symbol {
  /// The character that stands for the symbol in a diagram.
  public var character: Character {
    switch self {
    case .value(let character): character
    case .finished: "|"
    case .failed: "#"
    case .subscribed: "^"
    }
  }
}
