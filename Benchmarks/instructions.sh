#!/usr/bin/env bash
# Counts the instructions each scheduler workload executes at one size, with Valgrind's callgrind
# (deterministic, unlike wall time; this machine's virtual CPU has no hardware counters for the
# benchmark tool's instruction metric), and compares them with Thresholds/instructions.txt.
#
#   bash instructions.sh          check: fails if a workload runs over 3 % more instructions
#   bash instructions.sh update   writes the current counts as the new thresholds
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-check}
size=10000
thresholds=Thresholds/instructions.txt

swift build -c release --product InstructionCounts >/dev/null
binary=.build/release/InstructionCounts
# Valgrind cannot read this toolchain's debug information; the symbols are enough.
strip --strip-debug -o "$binary.stripped" "$binary"

# Without address randomization and with deterministic hashing, a binary's counts repeat exactly.
# A rebuilt binary lays out its code and data differently, which moves the counts of workloads
# that hash addresses (Combine's subscriptions) by up to about 2 %: hence the 3 % tolerance.
count() {
  SWIFT_DETERMINISTIC_HASHING=1 setarch "$(uname -m)" -R \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    --toggle-collect='*measured*' "$binary.stripped" "$1" "$size" warm 2>&1 |
    awk '/Collected/ { print $4 }'
}

workloads=(floor one-shots-advance one-shots-run one-timer n-timers n-timers-half-cancelled
  debounce delay receive-on delay-receive-on timer-publisher)
floor=$(count floor)
failed=0
new=""
printf '%-26s %14s %12s %9s %11s %s\n' workload instructions "per action" "× floor" "× API floor" ""
for workload in "${workloads[@]}"; do
  instructions=$([ "$workload" = floor ] && echo "$floor" || count "$workload")
  new+="$workload $size $instructions"$'\n'
  verdict=""
  if [ "$mode" = check ]; then
    limit=$(awk -v w="$workload" -v n="$size" '$1 == w && $2 == n { print $3 }' "$thresholds")
    if [ -z "$limit" ]; then
      verdict="no threshold"
      failed=1
    elif [ "$instructions" -gt $((limit + limit * 3 / 100)) ]; then
      verdict="REGRESSED: threshold $limit"
      failed=1
    elif [ "$instructions" -lt $((limit - limit * 3 / 100)) ]; then
      verdict="improved: threshold $limit (update it)"
    fi
  fi
  # The same workload on the floor behind Combine's Scheduler API (see SchedulerFloor).
  api_floor=$([ "$workload" = floor ] && echo "$floor" || count "api-floor/$workload")
  printf '%-26s %14d %12d %9.2f %11.2f %s\n' "$workload" "$instructions" $((instructions / size)) \
    "$(awk -v a="$instructions" -v b="$floor" 'BEGIN { print a / b }')" \
    "$(awk -v a="$instructions" -v b="$api_floor" 'BEGIN { print a / b }')" "$verdict"
done

if [ "$mode" = update ]; then
  printf '%s' "$new" >"$thresholds"
  echo "wrote $thresholds"
fi
exit $failed
