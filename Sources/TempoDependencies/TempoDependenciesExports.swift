// One import for a feature that uses swift-dependencies and Tempo:
//
//     import TempoDependencies   // Dependencies, TempoSchedulers and TempoClocks
//
// Compiled only with the package trait SwiftDependencies, which brings swift-dependencies.
#if SwiftDependencies
  @_exported public import Dependencies
  @_exported public import TempoClocks
  @_exported public import TempoSchedulers
#endif
