/// A value that is sent across isolation domains under an invariant its user states.
package struct UncheckedSendable<Value>: @unchecked Sendable {
  package var value: Value
  package init(_ value: Value) { self.value = value }
}
