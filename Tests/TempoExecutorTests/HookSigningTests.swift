import Foundation
import Testing

@testable import TempoExecutor

/// How Tempo signs the runtime's hooks under pointer authentication (`TempoRuntimeABI.h`): as
/// plain C function pointers on every runtime known to authenticate them so, and not at all
/// where the runtime may use a schema of its own.
@Suite struct HookSigningTests {
  @Test func withoutPointerAuthenticationNothingIsSigned() {
    #expect(
      RuntimeHooks.signing(authenticatesCodePointers: false, runtimeMayPredateOwnSchema: true)
        == .none)
    #expect(
      RuntimeHooks.signing(authenticatesCodePointers: false, runtimeMayPredateOwnSchema: false)
        == .none)
  }

  @Test func anArm64eProcessSignsPlainFunctionPointersOnAKnownRuntime() {
    #expect(
      RuntimeHooks.signing(authenticatesCodePointers: true, runtimeMayPredateOwnSchema: true)
        == .plainFunctionPointers)
  }

  @Test func anArm64eProcessInstallsNothingOnARuntimeItCannotVerify() {
    #expect(
      RuntimeHooks.signing(authenticatesCodePointers: true, runtimeMayPredateOwnSchema: false)
        == .unverified)
  }

  /// This machine (Linux, x86_64 or arm64) authenticates no code pointer, so the hooks are
  /// installed as they are, unless a test run simulates an unverified runtime.
  @Test func thisProcessSignsNothing() {
    guard ProcessInfo.processInfo.environment["TEMPO_SIMULATE_UNVERIFIED_HOOK_SIGNING"] == nil
    else { return }
    #expect(RuntimeHooks.signing == .none)
    #expect(RuntimeHooks.areAvailable)
    #expect(RuntimeHooks.unavailability == nil)
  }
}
