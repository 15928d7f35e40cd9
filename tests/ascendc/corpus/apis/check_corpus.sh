#!/usr/bin/env bash
# check_corpus.sh clean <binary> <source dir> "<kernels>": exit 0, "<kernel>: output OK" for
#   each kernel, every "expect-dump:" line printed, no findings in the process report.
# check_corpus.sh racy <binary> <source dir> <kernel>: with CORPUS_RACY=<kernel> the process
#   exits non-zero and its findings are exactly the kind its RACY(<kernel>) markers name, at
#   the marked lines (first and second access; one line for both when a marker says so; a
#   marker on a line of its own names the next line).
set -uo pipefail
mode=$1
binary=$2
src=$3
json_report=$(mktemp)
trap 'rm -f "$json_report"' EXIT
if [[ $mode == clean ]]; then
  out=$(NPUSIM_REPORT="$json_report" "$binary" 2>&1)
  status=$?
  echo "$out"
  ((status == 0)) || { echo "expected exit 0, got $status"; exit 1; }
  for kernel in ${4//;/ }; do
    grep -q "^$kernel: output OK" <<<"$out" || { echo "no 'output OK' for $kernel"; exit 1; }
  done
  # Each "expect-dump: <line>" the host printed is a line a kernel's DumpTensor printed
  # ('*' in it: any hex digits).
  CORPUS_OUT="$out" python3 - <<'PY' || exit 1
import os, re
lines = os.environ["CORPUS_OUT"].splitlines()
printed = [l for l in lines if not l.startswith("expect-dump: ")]
for want in (l[len("expect-dump: "):] for l in lines if l.startswith("expect-dump: ")):
    pattern = re.escape(want).replace(r"\*", "[0-9a-f]+")
    assert any(re.fullmatch(pattern, l) for l in printed), f"no dump line '{want}'"
PY
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['findings']==[], r['findings']; assert r['runs_completed'] is True" "$json_report" || exit 1
  echo "corpus: every kernel correct, no findings"
  exit 0
fi
kernel=$4
out=$(CORPUS_RACY="$kernel" NPUSIM_REPORT="$json_report" "$binary" 2>&1)
status=$?
echo "$out"
((status != 0)) || { echo "expected a non-zero exit status"; exit 1; }
python3 - "$json_report" "$src" "$kernel" <<'PY' || exit 1
import json, os, re, sys
report, src, kernel = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
marks = {}  # "first"/"second" -> (file, line); kind
kind = None
for name in sorted(os.listdir(src)):
    if not name.endswith(".cpp"):
        continue
    for number, text in enumerate(open(os.path.join(src, name)), 1):
        m = re.search(r"RACY\(" + re.escape(kernel) + r"\) (\w+) (.*)$", text)
        if m:
            kind = m.group(1)
            # A marker on a line of its own names the next line.
            line = number + 1 if text.strip().startswith("//") else number
            for role in m.group(2).split():
                marks[role] = f"{name}:{line}"
assert kind and "first" in marks and "second" in marks, f"no RACY({kernel}) markers"
findings = report["findings"]
assert findings, "no findings"
for f in findings:
    assert f["kind"] == kind, (f["kind"], kind, f)
    where = sorted(":".join(a["location"].split(":")[:2]) for a in f["accesses"])
    assert where == sorted([marks["first"], marks["second"]]), (where, marks)
print(f"{kernel}: {len(findings)} {kind} finding(s) at {marks['first']} and {marks['second']}")
PY
