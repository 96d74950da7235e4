// `TestTimeline` lives in TempoTimeline, which both fronts re-export: `import TempoClocks` alone
// gives it, as does `import TempoSchedulers`.
@_exported public import TempoTimeline
