#!/usr/bin/env bash
# expect_race.sh <binary> <kernel source>: the racy sample exits non-zero and its report names
# the RAW between the lines marked RACE-LOAD and RACE-ADD.
set -uo pipefail
binary=$1
kernel=$2
load=$(grep -n "RACE-LOAD" "$kernel" | cut -d: -f1)
add=$(grep -n "RACE-ADD" "$kernel" | cut -d: -f1)
json_report=$(mktemp)
trap 'rm -f "$json_report"' EXIT
report=$(NPUSIM_REPORT="$json_report" "$binary" 2>&1)
status=$?
echo "$report"
if ((status == 0)); then
  echo "expected a non-zero exit status"
  exit 1
fi
for line in "$load" "$add"; do
  grep -q "racy_custom.cpp:$line" <<<"$report" || { echo "the report does not name line $line"; exit 1; }
done
grep -q "RAW" <<<"$report" || { echo "the report does not name a RAW"; exit 1; }
# The same report as JSON (NPUSIM_REPORT): the RAW with both lines, the runs completed.
python3 - "$json_report" "$load" "$add" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
load, add = int(sys.argv[2]), int(sys.argv[3])
assert report["schema"] == "npusim-process-report/1", report.get("schema")
assert report["runs"] >= 1 and report["runs_completed"] is True, report
races = [f for f in report["findings"] if f["kind"] == "RAW"]
assert len(races) == 1, report["findings"]
lines = {int(a["location"].split(":")[1]) for a in races[0]["accesses"]}
assert lines == {load, add}, (lines, load, add)
PY
echo "racy sample: exit $status, RAW at racy_custom.cpp:$load and :$add"
