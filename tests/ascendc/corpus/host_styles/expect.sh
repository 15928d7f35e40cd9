#!/usr/bin/env bash
# expect.sh clean <program> <expected line>...   the program exits 0, prints every expected
#                                                line and the checker reports no findings
# expect.sh racy <program> <expected line>...    the program exits non-zero and its report
#                                                holds every expected line
set -uo pipefail
mode=$1
program=$2
shift 2
out=$("$program" 2>&1)
status=$?
echo "$out"
fail=0
if [[ $mode == clean ]]; then
  [[ $status -eq 0 ]] || { echo "FAIL: exit status $status, expected 0"; fail=1; }
  grep -qF "checker: no findings" <<<"$out" || { echo "FAIL: the checker reported findings"; fail=1; }
else
  [[ $status -ne 0 ]] || { echo "FAIL: exit status 0, expected non-zero"; fail=1; }
fi
for line in "$@"; do
  grep -qF -- "$line" <<<"$out" || { echo "FAIL: missing '$line'"; fail=1; }
done
exit $fail
