#!/usr/bin/env bash
# npusim run under SIGINT and SIGTERM: a long traced run stops within seconds, leaves a
# trace that is valid JSON, prints the partial summary and the checker findings so far
# marked interrupted, writes the report with outcome "interrupted", and exits 130 / 143.
#   run_control.sh NPUSIM_BINARY JSON_CHECK_BINARY
set -uo pipefail
npusim=$(realpath "$1")
json_check=$(realpath "$2")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# Background jobs of a non-interactive shell start with SIGINT ignored, and npusim keeps an
# ignored signal ignored: job control gives the run the terminal's default dispositions.
set -m
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# About 9.4 million instructions: 3 s with the checker, 13 s and 1.4 GB with a trace.
cat >"$work/long.json" <<'JSON'
{ "description": "long traced run for the signal tests", "chip": "a2", "kernel": "vector_add",
  "blocks": 48, "params": { "elements": 6291456, "tile": 8, "buffers": 2 } }
JSON

signal_case() {  # SIGNAL EXPECTED_EXIT
  local sig=$1 want=$2
  local out="$work/out_$sig" err="$work/err_$sig" trace="$work/trace_$sig.json"
  local report="$work/report_$sig.json"
  "$npusim" run "$work/long.json" --trace "$trace" --report "$report" >"$out" 2>"$err" &
  local pid=$!
  sleep 1.5
  kill -s "$sig" "$pid"
  local waited=0
  while kill -0 "$pid" 2>/dev/null && ((waited < 300)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$sig: npusim still runs 30 s after the signal"
    kill -s KILL "$pid"
  fi
  wait "$pid"
  local code=$?
  ((code == want)) || fail "$sig: exit $code, expected $want"
  grep -q "^outcome   INTERRUPTED" "$out" || fail "$sig: summary not marked interrupted"
  grep -q "^checker (interrupted, findings so far): " "$out" ||
    fail "$sig: checker findings not marked interrupted"
  grep -q "interrupted by SIG$sig" "$err" || fail "$sig: stderr does not name SIG$sig"
  grep -q '"outcome": "interrupted"' "$report" || fail "$sig: report outcome is not interrupted"
  grep -q "\"signal\": \"SIG$sig\"" "$report" || fail "$sig: report does not name $sig"
  [[ -s "$trace" ]] || fail "$sig: no trace written"
  "$json_check" "$trace" "$report" || fail "$sig: trace or report is not valid JSON"
  if ((failed > 0)); then
    echo "--- stdout"; head -c 3000 "$out"; echo "--- stderr"; head -c 3000 "$err"
  fi
  rm -f "$trace"
}

signal_case INT 130
signal_case TERM 143
echo "run control: $failed failed"
((failed == 0))
