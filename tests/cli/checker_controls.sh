#!/usr/bin/env bash
# The controls sanitizer users reach for first, through `npusim run`: --kernel / --block
# select findings, --suppressions hides them (counted, with the rule), --print-limit,
# --log-file, --findings-format vendor; each subcommand's --help has its own exit codes;
# `npusim params --chip` prints a chip's values.
#   checker_controls.sh NPUSIM_BINARY JSON_CHECK_BINARY SOURCE_DIR
set -uo pipefail
npusim=$(realpath "$1")
json_check=$(realpath "$2")
src=$(realpath "$3")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
racy=$src/configs/scenarios/race_syncall_reduction_nosync.json  # 4 findings: WAR UB, WAR+RAW GM, uninit
has() {  # LABEL FILE FRAGMENT...
  local label=$1 file=$2
  shift 2
  for fragment in "$@"; do expect_text "$label" "$fragment" "$file"; done
}

"$npusim" run "$racy" --kernel other_kernel >"$work/kernel.out" 2>&1
has "--kernel" "$work/kernel.out" "not selected (--kernel/--block): 4 findings" "checker: no findings"
"$npusim" run "$racy" --kernel syncall_reduction_nosync --block 7 >"$work/block.out" 2>&1
has "--block" "$work/block.out" "not selected (--kernel/--block): 2 findings" \
  "checker: 2 errors, 0 warnings"

cat >"$work/supp.json" <<'JSON'
{"suppressions": [
  {"kind": "uninitialized read", "reason": "the work buffer is scratch"},
  {"kind": "WAR", "at": "builtin_kernel_bodies.cpp:104"}]}
JSON
"$npusim" run "$racy" --suppressions "$work/supp.json" --report "$work/supp.report.json" \
  >"$work/supp.out" 2>&1
has "--suppressions" "$work/supp.out" \
  "suppressed: 16 ($work/supp.json:/suppressions/0: 8, $work/supp.json:/suppressions/1: 8)" \
  "checker: 2 errors, 0 warnings"
"$json_check" "$work/supp.report.json" || fail "--suppressions: the report is not valid JSON"
has "--suppressions report" "$work/supp.report.json" '"findings_filter": {' '"instances": 8'

cat >"$work/bad.json" <<'JSON'
{"suppressions": [{"kind": "RAWW"}, {"reason": "nothing"}, {"at": "x.cpp:0"}]}
JSON
expect_exit "bad suppressions" 2 "$work/bad.out" "$npusim" run "$racy" --suppressions "$work/bad.json"
has "bad suppressions" "$work/bad.out" \
  "bad.json:/suppressions/0/kind: unknown kind 'RAWW' (did you mean 'RAW'?)" \
  "bad.json:/suppressions/1: a rule needs \"kind\", \"kernel\" or \"at\"" \
  "bad.json:/suppressions/2/at: expected FILE or FILE:LINE with a line number >= 1"

"$npusim" run "$racy" --print-limit 1 >"$work/limit.out" 2>&1
has "--print-limit" "$work/limit.out" "3 more findings not shown (--print-limit 1)" \
  "checker: 4 errors, 0 warnings"
[[ $(grep -c "^ERROR: " "$work/limit.out") == 1 ]] || fail "--print-limit 1 printed more than one"

"$npusim" run "$racy" --findings-format vendor >"$work/vendor.out" 2>&1
has "vendor layout" "$work/vendor.out" \
  "====== ERROR: Potential WAR hazard detected at UB in syncall_reduction_nosync on device 0:" \
  "======    PIPE_MTE3 Read at UB+0x0 in block 0 (aiv) on device 0 at builtin_kernel_bodies.cpp:90 (serialNo:7)" \
  "======    #0 builtin_kernel_bodies.cpp:90:11" "====== ERROR: uninitialized read of size "

"$npusim" run "$racy" --log-file "$work/checker.log" >"$work/log.out" 2>&1
has "--log-file" "$work/log.out" "checker: 4 errors, 0 warnings (written to $work/checker.log)"
has "--log-file" "$work/checker.log" "ERROR: Potential RAW hazard detected at GM" \
  "checker: 4 errors, 0 warnings"
grep -q "^ERROR: " "$work/log.out" && fail "--log-file: findings also went to standard output"
expect_exit "--log-file to a folder" 2 "$work/logdir.out" "$npusim" run "$racy" --log-file "$work"
has "--log-file to a folder" "$work/logdir.out" "refusing to write the checker log there: it is a directory"

# The user's names: streams as the scenario names them, kernels as its launches name them,
# fixes in the scenario's own keys.
"$npusim" run "$src/configs/scenarios/runtime_two_streams_race.json" >"$work/names.out" 2>&1
has "stream names" "$work/names.out" \
  "between kernel vector_add on stream s1 and kernel vector_chain on stream s2" \
  "fix: record an event on stream s1 after launch at runtime_two_streams_race.json#/host/0 and make stream s2 wait"
"$npusim" run "$src/configs/scenarios/deadlock_two_streams_syncall.json" --seed 1 >"$work/dl.out" 2>&1
has "deadlock names" "$work/dl.out" "kernel syncall (stream s1, launched at" \
  '("schedule_mode": "batch" on their launch ops)' "waits for stream s1, which waits for"

# Each subcommand's own exit codes.
"$npusim" run --help >"$work/run.help"
has "run --help" "$work/run.help" "Exit codes:" "a checker error (race" "--log-file"
"$npusim" sweep --help >"$work/sweep.help"
has "sweep --help" "$work/sweep.help" "some rows are not ok: error (an invalid point), crashed or timeout"
grep -q "deadlock, wrong output" "$work/sweep.help" && fail "sweep --help shows run's exit codes"
"$npusim" merge --help >"$work/merge.help"
has "merge --help" "$work/merge.help" "tasks are missing: the output is written"
"$npusim" validate --help >"$work/validate.help"
has "validate --help" "$work/validate.help" "every file is a valid scenario"

"$npusim" params --chip small >"$work/params.out"
has "params --chip" "$work/params.out" "chip small (" "/clock_mhz = 1000 MHz" "/cores/vector = 4 cores"
expect_exit "params --chip missing" 2 "$work/params_missing.out" "$npusim" params --chip "$work/none.json"

echo "checker controls: $failed failed"
((failed == 0))
