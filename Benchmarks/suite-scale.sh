#!/usr/bin/env bash
# Parallel suites of thousands of tests in one debug process, as `swift test` runs them, each
# printed as a Markdown table of wall times, for Results.md:
#
# - clocks (Tests/SuiteScale): three Swift Testing tests with n cases each, on Tempo's TestClock,
#   and the same tests on an ImmediateClock with no advancing (no time control), and their ratio;
# - Combine (Tests/SuiteScaleCombine): a synchronous search test with n cases, on Tempo's
#   `DispatchQueue.test`, on combine-schedulers', and on an immediate scheduler with no
#   advancing, and Tempo's ratio to combine-schedulers.
#
#   bash suite-scale.sh [cases per test ...]     (2000 and 10000 by default: 6,000 and 30,000
#                                                clock cases, 2,000 and 10,000 Combine cases)
set -euo pipefail
cd "$(dirname "$0")"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2000 10000)
swift build --build-tests >/dev/null
binary=.build/debug/TempoBenchmarksPackageTests.xctest

# The wall time of one run of the suite $1 with $2 cases per test, the variable $3 set to $4,
# in seconds; fails if a case fails.
run() {
  local start end log=/tmp/suite-scale-$1-$4.log
  start=$(date +%s.%N)
  env SUITE_SCALE_CASES="$2" "$3=$4" "$binary" --testing-library swift-testing --filter "$1" \
    >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
  end=$(date +%s.%N)
  awk "BEGIN { print $end - $start }"
}

echo "Clocks:"
echo
echo "| cases | TestClock | ImmediateClock, no advancing | ratio |"
echo "| ---: | ---: | ---: | ---: |"
for n in "${sizes[@]}"; do
  controlled=$(run SuiteScale\\. "$n" SUITE_SCALE_CLOCK test)
  baseline=$(run SuiteScale\\. "$n" SUITE_SCALE_CLOCK immediate)
  awk -v n=$((n * 3)) -v c="$controlled" -v b="$baseline" \
    'BEGIN { printf "| %d | %.2f s | %.2f s | %.2f× |\n", n, c, b, c / b }'
done

echo
echo "Combine:"
echo
echo "| cases | Tempo | combine-schedulers | immediate, no advancing | Tempo / combine-schedulers |"
echo "| ---: | ---: | ---: | ---: | ---: |"
for n in "${sizes[@]}"; do
  tempo=$(run SuiteScaleCombine "$n" SUITE_SCALE_SCHEDULER tempo)
  peer=$(run SuiteScaleCombine "$n" SUITE_SCALE_SCHEDULER combine-schedulers)
  baseline=$(run SuiteScaleCombine "$n" SUITE_SCALE_SCHEDULER immediate)
  awk -v n="$n" -v t="$tempo" -v p="$peer" -v b="$baseline" \
    'BEGIN { printf "| %d | %.2f s | %.2f s | %.2f s | %.2f× |\n", n, t, p, b, t / p }'
done
