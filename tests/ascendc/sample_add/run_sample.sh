#!/usr/bin/env bash
# run_sample.sh <sample binary> <sample source dir>: the sample's own flow in a fresh
# directory: generate data, run, verify (and the npusim report must be clean).
set -euo pipefail
binary=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 "$source/scripts/gen_data.py"
"$binary" 2>report.txt || { cat report.txt; echo "the sample exited non-zero"; exit 1; }
cat report.txt
grep -q "checker: no findings" report.txt || { echo "expected a clean checker report"; exit 1; }
python3 "$source/scripts/verify_result.py" output/output_z.bin output/golden.bin
