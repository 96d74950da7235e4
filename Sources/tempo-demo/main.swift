// tempo-demo: shows virtual time at work. Every timeline below is driven by a test scheduler or a
// test clock, so seconds, minutes and hours of it pass in a moment of real time.

import Foundation
import TempoClocks
import TempoSchedulers

let realStart = ContinuousClock.now

func heading(_ title: String) {
  print("\n== \(title)")
}

func seconds(_ time: DispatchQueue.SchedulerTimeType) -> String {
  let value = Double(time.dispatchTime.uptimeNanoseconds - 1) / 1e9
  return String(format: "%7.3f s", value)
}

// 1. A race of two futures: the first to finish wins.
heading("A race of two futures on DispatchQueue.test")
do {
  let scheduler = DispatchQueue.test
  let first = Future<String, Never> { promise in
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) { promise(.success("first")) }
  }
  let second = Future<String, Never> { promise in
    scheduler.schedule(after: scheduler.now.advanced(by: 2)) { promise(.success("second")) }
  }
  let race = first.merge(with: second).prefix(1)
  let cancellable = race.sink { print("\(seconds(scheduler.now))  winner: \($0)") }
  scheduler.advance(by: 5)
  print("\(seconds(scheduler.now))  (advanced 5 s; the second future never got a say)")
  cancellable.cancel()
}

// 2. A debounced search field: only a pause of 300 ms sends a query.
heading("A search field debounced by 300 ms")
do {
  let scheduler = DispatchQueue.test
  let query = PassthroughSubject<String, Never>()
  let cancellable =
    query
    .debounce(for: .milliseconds(300), scheduler: scheduler)
    .sink { print("\(seconds(scheduler.now))  search \"\($0)\"") }
  for (at, text) in [(0, "t"), (100, "te"), (200, "tem"), (800, "temp"), (900, "tempo")] {
    scheduler.advance(to: DispatchQueue.test.now.advanced(by: .milliseconds(at)))
    print("\(seconds(scheduler.now))  typed \"\(text)\"")
    query.send(text)
  }
  scheduler.advance(by: 1)
  cancellable.cancel()
}

// 3. A timer that ticks every second, for 1,000 seconds.
heading("Publishers.Timer ticking every second for 1,000 seconds")
do {
  let scheduler = DispatchQueue.test
  var ticks = 0
  let cancellable = Publishers.Timer(every: 1, scheduler: scheduler)
    .autoconnect()
    .sink { _ in ticks += 1 }
  let real = ContinuousClock().measure { scheduler.advance(by: 1_000) }
  print("\(seconds(scheduler.now))  \(ticks) ticks, in \(real) of real time")
  cancellable.cancel()
}

// 4. Async code on a test clock: a welcome message after 5 s, then a one-second timer.
heading("A welcome message and a timer on TestClock")
let clock = TestClock()
let log = ClockLog()
let welcome = Task {
  try await clock.sleep(for: .seconds(5))
  log.add("\(clock.now)  welcome message shown")
}
let timer = Task {
  var count = 0
  for await _ in clock.timer(interval: .seconds(2)) {
    count += 1
    log.add("\(clock.now)  timer tick \(count)")
    if count == 4 { break }
  }
}
await clock.advance(by: .seconds(10))
_ = try? await welcome.value
await timer.value
for line in log.lines { print(line) }
print("\(clock.now)  nothing pending: \(clock.pendingWorkCount == 0)")

// 5. One timeline for a main queue, a run loop and a clock, advanced once. Made in this task,
//    the timeline opens a test executor for it, so the advance waits for the async work by
//    construction (no test framework needed: the demo links none).
heading("A main queue, a run loop and a clock on one TestTimeline")
await sharedTimeline()

print("\nAll of the above took \(ContinuousClock.now - realStart) of real time.")

func sharedTimeline() async {
  let time = TestTimeline()
  let mainQueue = DispatchQueue.test(timeline: time)
  let runLoop = RunLoop.test(timeline: time)
  let sharedClock = TestClock(timeline: time)
  let events = ClockLog()
  mainQueue.schedule(after: mainQueue.now.advanced(by: .milliseconds(300))) {
    events.add("\(time.now)  main queue: debounced search")
  }
  runLoop.schedule(after: runLoop.now.advanced(by: .milliseconds(800))) {
    events.add("\(time.now)  run loop: results delivered")
  }
  let analytics = Task {
    try await sharedClock.sleep(for: .seconds(1))
    events.add("\(time.now)  clock: analytics sent")
  }
  await time.advance(by: .seconds(2))
  _ = try? await analytics.value
  for line in events.lines { print(line) }
}

/// Lines the clock-driven tasks print, collected so they print in order.
final class ClockLog: @unchecked Sendable {
  // Invariant: `lock` guards `lines`.
  private let lock = NSLock()
  private var logged: [String] = []
  func add(_ line: String) { lock.withLock { logged.append(line) } }
  var lines: [String] { lock.withLock { logged } }
}
