#!/usr/bin/env bash
# A parallel suite of thousands of clock tests in one debug process, as `swift test` runs it
# (Tests/SuiteScale): three Swift Testing tests with n cases each, on Tempo's TestClock, and the
# same tests on an ImmediateClock with no advancing (no time control). Prints the wall time of
# each run and their ratio, for Results.md.
#
#   bash suite-scale.sh [cases per test ...]     (2000 and 10000 by default: 6,000 and 30,000 cases)
set -euo pipefail
cd "$(dirname "$0")"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2000 10000)
swift build --build-tests >/dev/null
binary=.build/debug/TempoBenchmarksPackageTests.xctest

# The wall time of one run, in seconds; fails if a case fails.
run() {
  local start end
  start=$(date +%s.%N)
  SUITE_SCALE_CASES=$1 SUITE_SCALE_CLOCK=$2 "$binary" --testing-library swift-testing \
    >/tmp/suite-scale-$2.log 2>&1 || { tail -20 "/tmp/suite-scale-$2.log" >&2; exit 1; }
  end=$(date +%s.%N)
  awk "BEGIN { print $end - $start }"
}

echo "| cases | TestClock | ImmediateClock, no advancing | ratio |"
echo "| ---: | ---: | ---: | ---: |"
for n in "${sizes[@]}"; do
  controlled=$(run "$n" test)
  baseline=$(run "$n" immediate)
  awk -v n=$((n * 3)) -v c="$controlled" -v b="$baseline" \
    'BEGIN { printf "| %d | %.2f s | %.2f s | %.2f× |\n", n, c, b, c / b }'
done
