#!/usr/bin/env bash
# npusim run --schedules / --seed on the deadlock scenarios (docs/deadlocks.md): exit codes,
# the distinct deadlock with its smallest seed, the replay of that seed, -j 2 equal to -j 1,
# and the prediction in a plain run.
#   deadlock_explore.sh NPUSIM_BINARY SCENARIO_DIR
set -uo pipefail
npusim=$(realpath "$1")
dir=$(realpath "$2")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

two="$dir/deadlock_two_streams_syncall.json"
"$npusim" run "$two" --schedules 50 >"$work/one" 2>&1
code=$?
[ "$code" -eq 1 ] || fail "two streams, 50 schedules: exit $code, want 1"
grep -q "predicted possible deadlock in 50 of 50 schedules" "$work/one" ||
  fail "two streams: not predicted in every schedule"
grep -q "barrier cycle across kernels in" "$work/one" || fail "two streams: no barrier cycle"
seed=$(sed -n 's/.*barrier cycle across kernels in .* smallest seed \([0-9]*\) .*/\1/p' "$work/one" | head -1)
[ -n "$seed" ] || fail "two streams: no smallest seed"

"$npusim" run "$two" --schedules 50 -j 2 >"$work/two" 2>&1
# ASan (the sanitizer job) warns once per process about SystemC's stacks: not output.
without_asan_notes() { grep -v -e '^==[0-9]*==WARNING: ASan' -e '^False positive error reports' -e '^For details see' "$1" || true; }
cmp -s <(without_asan_notes "$work/one") <(without_asan_notes "$work/two") ||
  fail "-j 2 output differs from -j 1"

# SIGTERM to npusim alone: its workers take no further schedule, the report covers the first
# seeds without a gap, exit 143 (128 + SIGTERM), long before the 100000 schedules.
"$npusim" run "$two" --schedules 100000 -j 2 >"$work/term" 2>&1 &
explorer=$!
sleep 2
kill -TERM "$explorer"
wait "$explorer"
code=$?
[ "$code" -eq 143 ] || fail "SIGTERM during -j 2 exploration: exit $code, want 143"
grep -Eq '^schedules ([1-9][0-9]*) \(seeds 1-\1\)' "$work/term" ||
  fail "SIGTERM during -j 2 exploration: no report of the first seeds: $(head -3 "$work/term")"

if [ -n "$seed" ]; then
  "$npusim" run "$two" --seed "$seed" --no-check --report "$work/replay.json" >"$work/replay" 2>&1
  code=$?
  [ "$code" -eq 1 ] || fail "replay of seed $seed: exit $code, want 1"
  grep -q "deadlock 1: barrier cycle across kernels" "$work/replay" ||
    fail "replay of seed $seed: no barrier cycle"
  grep -q '"kind": "barrier cycle across kernels"' "$work/replay.json" ||
    fail "replay report: no deadlocks entry"
fi

for safe in deadlock_two_streams_syncall_batch deadlock_two_streams_event_ordered; do
  "$npusim" run "$dir/$safe.json" --schedules 30 >"$work/$safe" 2>&1
  code=$?
  [ "$code" -eq 0 ] || fail "$safe: exit $code, want 0"
  grep -q "predicted possible deadlock in 0 of 30 schedules" "$work/$safe" ||
    fail "$safe: predicted"
done

# A plain run that completes still warns, and the report carries the warning.
"$npusim" run "$two" --no-check --report "$work/plain.json" >"$work/plain" 2>&1
code=$?
[ "$code" -eq 0 ] || fail "plain run: exit $code, want 0"
grep -q "warning 1: possible deadlock" "$work/plain" || fail "plain run: no warning"
grep -q '"possible_deadlocks"' "$work/plain.json" || fail "plain report: no possible_deadlocks"

# Expecting a deadlock: exploration passes when a schedule deadlocks.
"$npusim" run "$dir/deadlock_blocks_exceed_cores.json" --schedules 3 >"$work/exceed" 2>&1
code=$?
[ "$code" -eq 0 ] || fail "blocks exceed cores (expects deadlock): exit $code, want 0"
grep -q "blocks exceed cores in 3 schedules" "$work/exceed" || fail "blocks exceed cores: kind"

[ "$failed" -eq 0 ] && echo "deadlock exploration CLI: all checks passed"
exit "$failed"
