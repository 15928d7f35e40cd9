#!/usr/bin/env bash
# A small version of the deadlock what-if study (configs/scenarios/whatif_syncall_streams.json):
# deadlocks appear only where the documented conditions hold (two or more streams, normal
# schedule mode, the concurrent kernels' blocks exceeding the 48 vector cores), at least one
# appears there, none in batch mode; and tools/plot_study.sh draws the output.
#   whatif_study.sh NPUSIM SOURCE_DIR
set -euo pipefail
npusim=$1
source_dir=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$npusim" sweep "$source_dir/configs/scenarios/whatif_syncall_streams.json" \
  --set streams=1,4 --set blocks=16,40 --schedules 1 -j 2 --quiet --out "$dir/study.csv"
# Columns by name: a deadlock only where the exact verdict says one is reachable, never in
# batch mode; every reachable point is one the vendor rule warns about.
awk -F, '/^#/ { next }
  !header { for (i = 1; i <= NF; ++i) c[$i] = i; header = 1; next }
  {
    if ($c["status"] != "ok") { print "row " $1 ": status " $c["status"] ": " $c["error"]; bad = 1 }
    dead = $c["outcome"] == "deadlock"
    if (dead && $c["reachable_deadlock"] != "true") {
      print "row " $1 ": deadlock where the exact verdict says none: " $0; bad = 1 }
    if ($c["reachable_deadlock"] == "true" && $c["possible_deadlock"] != "true") {
      print "row " $1 ": reachable but the rule does not warn: " $0; bad = 1 }
    allowed = $c["streams"] >= 2 && $c["mode"] == "normal" && $c["streams"] * $c["blocks"] > 48
    if (($c["possible_deadlock"] == "true") != allowed) {
      print "row " $1 ": possible_deadlock disagrees with the documented rule: " $0; bad = 1 }
    if (dead) deadlocks++
    if ($c["mode"] == "batch" && dead) { print "row " $1 ": deadlock in batch mode"; bad = 1 }
  }
  END { if (deadlocks == 0) { print "no deadlock at all"; bad = 1 }; exit bad }' "$dir/study.csv" ||
  fail "the study contradicts the documented rule"
rows=$(($(wc -l <"$dir/study.csv") - 3))  # source, study and column lines
((rows == 24)) || fail "$rows rows, expected 24"
if command -v gnuplot >/dev/null; then
  bash "$source_dir/tools/plot_study.sh" "$dir/study.csv" "$dir/study.png" >/dev/null 2>&1 ||
    fail "plot_study.sh failed"
  [[ -s $dir/study.png ]] || fail "no picture"
fi
echo "ok: $rows rows, deadlocks only where the rule allows them, none in batch mode"
