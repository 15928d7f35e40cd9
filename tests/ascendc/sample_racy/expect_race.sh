#!/usr/bin/env bash
# expect_race.sh <binary> <kernel source>: the racy sample exits non-zero and its report names
# the RAW between the lines marked RACE-LOAD and RACE-ADD.
set -uo pipefail
binary=$1
kernel=$2
load=$(grep -n "RACE-LOAD" "$kernel" | cut -d: -f1)
add=$(grep -n "RACE-ADD" "$kernel" | cut -d: -f1)
report=$("$binary" 2>&1)
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
echo "racy sample: exit $status, RAW at racy_custom.cpp:$load and :$add"
