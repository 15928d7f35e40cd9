#!/usr/bin/env bash
# Every shipped host-program scenario (configs/scenarios/runtime_*.json) runs to its
# expectations: `npusim run` exits 0, and twice gives a byte-identical --report.
#   runtime_scenarios.sh NPUSIM_BINARY SCENARIO_DIR
set -uo pipefail
npusim=$(realpath "$1")
dir=$(realpath "$2")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
count=0
for file in "$dir"/runtime_*.json; do
  count=$((count + 1))
  name=$(basename "$file")
  if ! "$npusim" run "$file" --report "$work/a.json" >"$work/out" 2>&1; then
    echo "FAIL $name: exit $? (expected 0)"
    sed 's/^/    /' "$work/out" | tail -30
    failed=$((failed + 1))
    continue
  fi
  "$npusim" run "$file" --report "$work/b.json" >/dev/null 2>&1
  if ! cmp -s "$work/a.json" "$work/b.json"; then
    echo "FAIL $name: two runs wrote different reports"
    failed=$((failed + 1))
  fi
done
if ((count < 8)); then
  echo "FAIL: only $count runtime scenarios found in $dir"
  failed=$((failed + 1))
fi
echo "runtime scenarios: $count run, $failed failed"
((failed == 0))
