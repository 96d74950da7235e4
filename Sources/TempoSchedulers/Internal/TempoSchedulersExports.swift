// `TestTimeline` lives in TempoTimeline, which both fronts re-export: `import TempoSchedulers`
// alone gives it, as does `import TempoClocks`.
@_exported public import TempoTimeline
