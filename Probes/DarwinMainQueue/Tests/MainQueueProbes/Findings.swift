import Foundation

/// Prints what a probe found, as one line the workflow collects: `PROBE P2: …`.
func report(_ probe: String, _ finding: String) {
  print("PROBE \(probe): \(finding)")
}

/// Which loop drains the main thread, read off its call stack.
func drainLoop(in stack: [String]) -> String {
  let loops = [
    ("CFRunLoopRun", "a run loop (CFRunLoopRun)"),
    ("dispatch_main", "dispatch_main"),
    ("_dispatch_main_queue_callback", "the main queue's callback"),
    ("XCTest", "XCTest"),
  ]
  let found = loops.filter { loop in stack.contains { $0.contains(loop.0) } }.map(\.1)
  return found.isEmpty ? "no known drain loop on the stack" : found.joined(separator: ", ")
}
