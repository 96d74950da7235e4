/// A value that is sent across isolation domains under an invariant its user states.
///
/// Every use states why its value may cross in an `// Invariant:` comment right next to it
/// (`.ci/rules` checks that the comment is there).
// Invariant: none of its own; each use states its own, next to the `UncheckedSendable(…)` call.
package struct UncheckedSendable<Value>: @unchecked Sendable {
  package var value: Value
  package init(_ value: Value) { self.value = value }
}
