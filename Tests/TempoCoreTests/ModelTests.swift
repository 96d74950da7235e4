import Foundation
import TempoSupport
import TempoTestHelpers
import Testing

@testable import TempoCore

/// Checks the timeline against a deliberately simple model of its rules: an unsorted list that is
/// searched for the earliest entry at every step. Random programs run on both; they must agree on
/// which actions ran, in what order, at what `now`, what is left pending, and how many issues were
/// reported.
///
/// `swift test` checks 10,000 programs on one timeline and 3,000 on a timeline shared by three
/// members, each once with keyed dates and once with dates the timeline can only compare. Set `TEMPO_MODEL_PROGRAMS` for more (a million, say), and `TEMPO_MODEL_SEED` to
/// replay one program: a failure prints both.
@Suite struct ModelTests {
  @Test func theTimelineAgreesWithTheModelOnRandomPrograms() {
    let environment = ProcessInfo.processInfo.environment
    if let seed = environment["TEMPO_MODEL_SEED"].flatMap(UInt64.init) {
      check(seed: seed)
      return
    }
    let count = environment["TEMPO_MODEL_PROGRAMS"].flatMap(Int.init) ?? 10_000
    for seed in 0..<UInt64(count) {
      if !check(seed: seed) { return }
    }
  }

  /// The same programs on a shared timeline of three members, each operation on a different
  /// member: sharing time must not change any rule.
  @Test func aSharedTimelineAgreesWithTheModelOnRandomPrograms() {
    let environment = ProcessInfo.processInfo.environment
    if let seed = environment["TEMPO_MODEL_SEED"].flatMap(UInt64.init) {
      check(seed: seed, shared: true)
      return
    }
    let count = environment["TEMPO_MODEL_PROGRAMS"].flatMap(Int.init) ?? 3_000
    for seed in 0..<UInt64(count) {
      if !check(seed: seed, shared: true) { return }
    }
  }

  /// Runs the program of `seed` on both and reports the first disagreement.
  @discardableResult
  func check(seed: UInt64, shared: Bool = false) -> Bool {
    var random = SplitMix(state: seed)
    let program = Program.random(using: &random)
    let expected = ModelTimeline().run(program)
    // Once with a date type the timeline orders by integer key, once with one it can only
    // compare (see `PendingWork`): both must keep the same rules.
    let outcomes = [
      ("keyed", RealTimeline<Int>(members: shared ? 3 : 1).run(program)),
      ("unkeyed", RealTimeline<UnkeyedDate>(members: shared ? 3 : 1).run(program)),
    ]
    for (kind, actual) in outcomes where actual != expected {
      Issue.record(
        """
        The \(shared ? "shared " : "")timeline (\(kind) dates) disagrees with the model on the \
        program of seed \(seed) (replay with TEMPO_MODEL_SEED=\(seed)):
        \(program)
        model:    \(expected)
        timeline: \(actual)
        """)
      return false
    }
    return true
  }
}

// MARK: - Programs

/// What an action does when it runs.
enum SubOp: Equatable, CustomStringConvertible {
  case schedule(id: Int, offset: Int)
  case cancel(id: Int)
  case cancelSelf
  /// Advances the timeline from inside the action.
  case advance(by: Int)

  var description: String {
    switch self {
    case .schedule(let id, let offset): "schedule #\(id) at now+\(offset)"
    case .cancel(let id): "cancel #\(id)"
    case .cancelSelf: "cancel self"
    case .advance(let stride): "advance by \(stride)"
    }
  }
}

enum Op: CustomStringConvertible {
  /// A one-shot that cannot be cancelled (Combine's `schedule(after:)`), at `now + offset`.
  case schedule(id: Int, offset: Int, script: [SubOp])
  /// A cancellable action at `now + offset`, repeating every `interval` if given.
  case scheduleCancellable(id: Int, offset: Int, interval: Int?, script: [SubOp])
  case cancel(id: Int)
  case advanceBy(Int)
  case advanceTo(Int)
  case run(limit: Int)

  var description: String {
    switch self {
    case .schedule(let id, let offset, let script):
      "schedule #\(id) at now+\(offset) \(script)"
    case .scheduleCancellable(let id, let offset, let interval, let script):
      "schedule cancellable #\(id) at now+\(offset) every \(interval.map(String.init) ?? "-") \(script)"
    case .cancel(let id): "cancel #\(id)"
    case .advanceBy(let stride): "advance by \(stride)"
    case .advanceTo(let instant): "advance to \(instant)"
    case .run(let limit): "run (limit \(limit))"
    }
  }
}

struct Program: CustomStringConvertible {
  var ops: [Op]

  var description: String {
    ops.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
  }

  static func random(using random: inout SplitMix) -> Program {
    var ops: [Op] = []
    var nextID = 0
    func newID() -> Int {
      defer { nextID += 1 }
      return nextID
    }
    // Only actions that run once may advance: a repeating action that advances would run
    // itself again inside its own advance, without end.
    func script(canAdvance: Bool = true) -> [SubOp] {
      (0..<Int.random(in: 0...2, using: &random)).map { _ in
        switch Int.random(in: 0..<(canAdvance ? 9 : 8), using: &random) {
        case 0..<4:
          .schedule(id: 10_000 + newID(), offset: Int.random(in: -3...6, using: &random))
        case 4, 5: .cancel(id: Int.random(in: 0..<max(nextID, 1), using: &random))
        case 6, 7: .cancelSelf
        default: .advance(by: Int.random(in: 0...3, using: &random))
        }
      }
    }
    for _ in 0..<Int.random(in: 1...30, using: &random) {
      switch Int.random(in: 0..<20, using: &random) {
      case 0..<6:
        ops.append(
          .schedule(id: newID(), offset: Int.random(in: -3...10, using: &random), script: script()))
      case 6..<11:
        let interval: Int? =
          Bool.random(using: &random) ? Int.random(in: -1...4, using: &random) : nil
        ops.append(
          .scheduleCancellable(
            id: newID(), offset: Int.random(in: -3...10, using: &random), interval: interval,
            script: script(canAdvance: interval == nil)))
      case 11..<13:
        ops.append(.cancel(id: Int.random(in: 0..<max(nextID, 1), using: &random)))
      case 13..<17:
        ops.append(.advanceBy(Int.random(in: -2...8, using: &random)))
      case 17..<19:
        ops.append(.advanceTo(Int.random(in: -5...40, using: &random)))
      default:
        ops.append(.run(limit: Int.random(in: 0...40, using: &random)))
      }
    }
    return Program(ops: ops)
  }
}

/// What both must agree on.
struct Outcome: Equatable, CustomStringConvertible {
  var trace: [String] = []
  var now = 0
  var pending = 0
  var nextDate: Int?
  var issues = 0

  var description: String {
    "ran \(trace), now \(now), \(pending) pending (next at \(nextDate.map(String.init) ?? "-")), "
      + "\(issues) issues"
  }
}

// MARK: - The model

/// The rules, written as plainly as possible.
final class ModelTimeline {
  struct Entry {
    var date: Int
    let sequence: Int
    let id: Int
    let interval: Int?
    let cancellable: Bool
    let script: [SubOp]
  }

  var now = 0
  var entries: [Entry] = []
  var sequence = 0
  var outcome = Outcome()

  func run(_ program: Program) -> Outcome {
    for op in program.ops {
      switch op {
      case .schedule(let id, let offset, let script):
        add(id: id, date: now + offset, interval: nil, cancellable: false, script: script)
      case .scheduleCancellable(let id, let offset, let interval, let script):
        add(id: id, date: now + offset, interval: interval, cancellable: true, script: script)
      case .cancel(let id):
        cancel(id)
      case .advanceBy(let stride):
        if stride < 0 {
          outcome.issues += 1
          drive(through: now)
        } else {
          drive(through: now + stride)
        }
      case .advanceTo(let instant):
        if instant < now {
          outcome.issues += 1
          drive(through: now)
        } else {
          drive(through: instant)
        }
      case .run(let limit):
        var ran = 0
        while ran < limit, let entry = takeNext(through: nil) {
          perform(entry)
          ran += 1
        }
        if ran == limit, !entries.isEmpty { outcome.issues += 1 }
      }
    }
    outcome.now = now
    outcome.pending = entries.count
    outcome.nextDate = entries.min { ($0.date, $0.sequence) < ($1.date, $1.sequence) }?.date
    return outcome
  }

  func add(id: Int, date: Int, interval: Int?, cancellable: Bool, script: [SubOp]) {
    var interval = interval
    if let every = interval, every <= 0 {
      outcome.issues += 1
      interval = nil
    }
    entries.append(
      Entry(
        date: max(date, now), sequence: sequence, id: id, interval: interval,
        cancellable: cancellable, script: script))
    sequence += 1
  }

  func cancel(_ id: Int) {
    entries.removeAll { $0.id == id && $0.cancellable }
  }

  func takeNext(through target: Int?) -> Entry? {
    guard
      let index = entries.indices.min(by: {
        (entries[$0].date, entries[$0].sequence) < (entries[$1].date, entries[$1].sequence)
      })
    else { return nil }
    if let target, entries[index].date > target { return nil }
    let entry = entries.remove(at: index)
    if let interval = entry.interval {
      var next = entry
      next.date += interval
      entries.append(next)
    }
    now = max(now, entry.date)
    return entry
  }

  func drive(through target: Int) {
    while let entry = takeNext(through: target) { perform(entry) }
    now = max(now, target)
  }

  func perform(_ entry: Entry) {
    outcome.trace.append("#\(entry.id)@\(now)")
    for sub in entry.script {
      switch sub {
      case .schedule(let id, let offset):
        add(id: id, date: now + offset, interval: nil, cancellable: true, script: [])
      case .cancel(let id):
        cancel(id)
      case .cancelSelf:
        cancel(entry.id)
      case .advance(let stride):
        drive(through: now + stride)
      }
    }
  }
}

// MARK: - The real timeline

/// A date of the real timeline under test, made from and read as a whole number.
protocol ModelDate: Comparable {
  init(_ value: Int)
  var value: Int { get }
}

extension Int: ModelDate {
  var value: Int { self }
}

/// A whole number the timeline cannot key, so that it orders these dates by `<` alone.
struct UnkeyedDate: ModelDate {
  let value: Int
  init(_ value: Int) { self.value = value }
  static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}

final class RealTimeline<Date: ModelDate> {
  /// One timeline, or several sharing their time (then each operation goes to a different one).
  let members: [Timeline<Date, Int>]
  let group: SharedTimeline?
  var handles: [Int: Timeline<Date, Int>.Handle] = [:]
  var outcome = Outcome()
  let location = TempoSupport.SourceLocation(
    fileID: #fileID, filePath: #filePath, line: #line, column: #column)
  private var turn = 0

  init(members count: Int = 1) {
    if count == 1 {
      group = nil
      members = [Timeline<Date, Int>(now: Date(0), name: "Model") { Date($0.value + $1) }]
    } else {
      let group = SharedTimeline()
      self.group = group
      members = (0..<count).map { _ in
        Timeline<Date, Int>(
          sharing: group, name: "Model", advancedBy: { Date($0.value + $1) },
          toShared: { .nanoseconds($0.value) },
          fromShared: { Date(nanoseconds($0)) }
        )
      }
    }
  }

  /// The member the next operation goes to.
  var timeline: Timeline<Date, Int> {
    turn += 1
    return members[turn % members.count]
  }

  func run(_ program: Program) -> Outcome {
    let issues = countingIssues {
      for op in program.ops {
        switch op {
        case .schedule(let id, let offset, let script):
          timeline.schedule(
            after: Date(timeline.now.value + offset), at: location, action(id, script))
        case .scheduleCancellable(let id, let offset, let interval, let script):
          handles[id] = timeline.schedule(
            after: Date(timeline.now.value + offset), interval: interval, at: location,
            action(id, script))
        case .cancel(let id):
          handles[id]?.cancel()
        case .advanceBy(let stride):
          timeline.advance(by: stride, at: location)
        case .advanceTo(let instant):
          timeline.advance(to: Date(instant), at: location)
        case .run(let limit):
          timeline.run(limit: limit, at: location)
        }
      }
    }
    outcome.issues = issues.count
    outcome.now = timeline.now.value
    if let group {
      outcome.pending = group.pendingCount
      outcome.nextDate = group.nextDate.map(nanoseconds)
    } else {
      outcome.pending = timeline.pendingCount
      outcome.nextDate = timeline.nextDate?.value
    }
    return outcome
  }

  func action(_ id: Int, _ script: [SubOp]) -> () -> Void {
    { [unowned self] in
      outcome.trace.append("#\(id)@\(timeline.now.value)")
      for sub in script {
        switch sub {
        case .schedule(let child, let offset):
          handles[child] = timeline.schedule(
            after: Date(timeline.now.value + offset), interval: nil, at: location, action(child, [])
          )
        case .cancel(let other):
          handles[other]?.cancel()
        case .cancelSelf:
          handles[id]?.cancel()
        case .advance(let stride):
          timeline.advance(by: stride, at: location)
        }
      }
    }
  }
}

/// A whole number of nanoseconds.
func nanoseconds(_ duration: Duration) -> Int {
  Int(duration.components.seconds) * 1_000_000_000
    + Int(duration.components.attoseconds / 1_000_000_000)
}
