/// The rules of auto-advance: whether it is on and whether a driver runs, with no lock and no
/// calls out (``AutoAdvance`` is its storage).
struct AutoAdvanceStateMachine {
  enum State: Equatable {
    /// Off, with no driver.
    case off
    /// On, with no driver: the next work that arrives starts one.
    case idle
    /// On, with a driver. `workArrived`: work arrived since the driver last read the pending
    /// count, so it must read again before it stops.
    case driving(workArrived: Bool)
    /// Turned off while a driver runs: the driver stops before its next step.
    case stopping
  }

  private(set) var state = State.off

  var isOn: Bool {
    switch state {
    case .idle, .driving: true
    case .off, .stopping: false
    }
  }

  var isDriving: Bool {
    switch state {
    case .driving, .stopping: true
    case .off, .idle: false
    }
  }

  mutating func turn(_ on: Bool) {
    switch (state, on) {
    case (.off, true): state = .idle
    case (.idle, false): state = .off
    case (.driving, false): state = .stopping
    // The driver has not stopped yet: it goes on, and reads the pending count again.
    case (.stopping, true): state = .driving(workArrived: true)
    case (.off, false), (.idle, true), (.driving, true), (.stopping, false): break
    }
  }

  /// Answers whether the caller starts a driver.
  mutating func workArrived() -> Bool {
    switch state {
    case .idle:
      state = .driving(workArrived: false)
      return true
    case .driving:
      state = .driving(workArrived: true)
      return false
    case .off, .stopping:
      return false
    }
  }

  mutating func driverMayStep() -> Bool {
    switch state {
    case .driving: return true
    case .stopping: return false
    case .off, .idle: preconditionFailure("auto-advance: a step of a driver that does not run")
    }
  }

  /// Answers whether the driver stops.
  mutating func driverFinished(pending: Bool, afterRunaway: Bool) -> Bool {
    switch state {
    case .driving(let arrived):
      if afterRunaway {
        state = .off
        return true
      }
      // `pending` was read before the storage's lock: work that arrived since is `arrived`.
      if pending || arrived {
        state = .driving(workArrived: false)
        return false
      }
      state = .idle
      return true
    case .stopping:
      state = .off
      return true
    case .off, .idle:
      preconditionFailure("auto-advance: the end of a driver that does not run")
    }
  }
}
