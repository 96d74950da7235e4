#!/usr/bin/env bash
# Whole tests as users pay for them, in the debug build that `swift test` makes and in release:
# WholeTests on every implementation (Tempo without a wrapper and in withTestExecutor,
# swift-clocks plain and on its main serial executor, the async floor; Tempo's and
# combine-schedulers' schedulers and the Combine floor) in one run per configuration, then
# ClockSteps' per-step times. Prints Markdown, headed with the commit and the date, for
# Results.md.
#
#   bash whole-tests.sh [debug|release|both] [runs] [rounds]     (both, 40 and 3 by default)
#
# Run it with nothing else on the machine: the tables are wall times.
set -euo pipefail
cd "$(dirname "$0")"
which=${1:-both}
runs=${2:-40}
rounds=${3:-3}
case "$which" in
  both) configurations=(debug release) ;;
  debug | release) configurations=("$which") ;;
  *) echo "usage: bash whole-tests.sh [debug|release|both] [runs] [rounds]" >&2; exit 2 ;;
esac

commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- .. | grep -q . && echo ", with uncommitted changes" || true)
for configuration in "${configurations[@]}"; do
  swift build -c "$configuration" --product WholeTests >/dev/null
  swift build -c "$configuration" --product ClockSteps >/dev/null
  echo "## $configuration build, $commit$dirty, $(date -u +%Y-%m-%d)"
  echo
  ".build/$configuration/WholeTests" --runs "$runs" --rounds "$rounds"
  echo
  echo "Per step (ClockSteps, 1,000 steps, median of 5):"
  echo
  for mode in one many one-system; do
    echo "- $(".build/$configuration/ClockSteps" "$mode" 1000 5 | sort -t' ' -k3 -n | sed -n 3p)"
  done
  echo
  echo "Fixed costs of a test (ClockSteps, 10,000 in a row, median of 5):"
  echo
  for mode in make-clock empty-scope clock-in-task clock-in-scope; do
    echo "- $(".build/$configuration/ClockSteps" "$mode" 10000 5 | sort -t' ' -k3 -n | sed -n 3p)"
  done
  echo
  echo "A main-actor task yielding 1,000 times (ClockSteps, median of 5): in a test with a clock,"
  echo "on the serial executor, and on the runtime's own executors:"
  echo
  for mode in main-yields main-yields-serial main-yields-runtime; do
    echo "- $(".build/$configuration/ClockSteps" "$mode" 1000 5 | sort -t' ' -k3 -n | sed -n 3p)"
  done
  echo
done
