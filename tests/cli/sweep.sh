#!/usr/bin/env bash
# npusim sweep from the command line: -j 1 and -j 2 give the same rows, shards merge to the
# whole, a sweep stopped by SIGTERM leaves a valid output that --resume completes without
# redoing rows, and bad arguments exit 2 with a message.
#   sweep.sh NPUSIM SOURCE_DIR
set -euo pipefail
npusim=$1
source_dir=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
study=$source_dir/configs/scenarios/syncall_reduction_hard.json
axes=(--set /blocks=2:48:2 --set /params/elements=32,64)
drop_time() { sed -E 's/,[^,]*$//' "$1"; }
fail() { echo "FAIL: $*"; exit 1; }

"$npusim" sweep "$study" "${axes[@]}" -j 1 --quiet --out "$dir/one.csv"
"$npusim" sweep "$study" "${axes[@]}" -j 2 --quiet --out "$dir/two.json"
"$npusim" sweep "$study" "${axes[@]}" -j 2 --quiet --out "$dir/two.csv"
diff <(drop_time "$dir/one.csv") <(drop_time "$dir/two.csv") || fail "-j 1 and -j 2 differ"
[[ $(grep -c '"task": ' "$dir/two.json") == 48 ]] || fail "the JSON output lacks rows"

for k in 1 2 3; do
  "$npusim" sweep "$study" "${axes[@]}" --shard "$k/3" --quiet --out "$dir/shard$k.csv"
done
"$npusim" merge "$dir/merged.csv" "$dir/shard3.csv" "$dir/shard1.csv" "$dir/shard2.csv"
diff <(drop_time "$dir/one.csv") <(drop_time "$dir/merged.csv") || fail "merged shards differ"

# Stop halfway with SIGTERM (after the first checkpoint, every 2 s), then resume.
axes=(--set /blocks=2:48:2 --set /params/elements=32:256:32)
"$npusim" sweep "$study" "${axes[@]}" -j 2 --quiet --out "$dir/full.csv"
"$npusim" sweep "$study" "${axes[@]}" -j 1 --quiet --checkpoint 0.1 --out "$dir/resumed.csv" &
pid=$!
for _ in $(seq 1 300); do
  [[ -f $dir/resumed.csv ]] && (($(wc -l <"$dir/resumed.csv") > 3)) && break
  sleep 0.1
  sleep 0.1
done
kill -TERM "$pid"  # (a background job of a script ignores SIGINT)
code=0
wait "$pid" || code=$?
[[ $code == 143 ]] || fail "SIGTERM gave exit $code, not 143"
done_rows=$(($(wc -l <"$dir/resumed.csv") - 3))  # source, study and column lines
((done_rows > 0 && done_rows < 192)) || fail "the interrupted output holds $done_rows rows"
"$npusim" sweep "$study" "${axes[@]}" -j 2 --quiet --resume --out "$dir/resumed.csv" 2>"$dir/resume.err"
grep -q "($done_rows resumed)" "$dir/resume.err" || fail "resume did not skip $done_rows rows: $(cat "$dir/resume.err")"
diff <(drop_time "$dir/full.csv") <(drop_time "$dir/resumed.csv") || fail "resumed output differs"

expect_usage_error() {
  local message=$1
  shift
  local code=0
  "$npusim" "$@" >"$dir/out" 2>"$dir/err" || code=$?
  [[ $code == 2 ]] || fail "'$*' exited $code, not 2"
  grep -qF -- "$message" "$dir/err" || fail "'$*' did not say '$message': $(cat "$dir/err")"
}
expect_usage_error "no named sweep axis 'blocks'" sweep "$study" --set blocks=1,2
expect_usage_error "expected K/N" sweep "$study" --shard 4/3
expect_usage_error "/nope/deeper" sweep "$study" --set /nope/deeper=1
expect_usage_error "--resume needs --out" sweep "$study" --resume
expect_usage_error "written by another study" sweep "$study" --set /blocks=1,2 --resume --out "$dir/one.csv"
expect_usage_error "not an npusim sweep output" merge "$dir/m.csv" "$study"
# The study's fingerprint: other axis values, another study's shard, a missing shard.
expect_usage_error "axis \"/params/elements\" [32,64] in this sweep, \"/params/elements\" [32,64,96" \
  sweep "$study" --set /blocks=2:48:2 --set /params/elements=32,64 --resume --out "$dir/resumed.csv"
"$npusim" sweep "$study" --set /blocks=2:48:2 --set /params/elements=32,64 --seed 9 --shard 2/3 \
  --quiet --out "$dir/other2.csv"
expect_usage_error "merge: $dir/other2.csv is from a different study than $dir/shard1.csv: seed 1 in" \
  merge "$dir/m.csv" "$dir/shard1.csv" "$dir/other2.csv" "$dir/shard3.csv"
code=0
"$npusim" merge "$dir/partial.csv" "$dir/shard1.csv" "$dir/shard3.csv" 2>"$dir/err" || code=$?
[[ $code == 1 ]] || fail "an incomplete merge exited $code, not 1"
grep -qF "merge: incomplete: 16 of 48 tasks missing (1, 4, 7" "$dir/err" &&
  grep -qF "shard 2/3 (no input holds it)" "$dir/err" ||
  fail "an incomplete merge did not name the missing shard: $(cat "$dir/err")"
# Outputs follow one rule: never over a device or a folder.
expect_usage_error "/dev/null: refusing to write the sweep output there: it is a character device" \
  sweep "$study" --set /blocks=2,4 --out /dev/null
mkdir "$dir/folder.csv"
expect_usage_error "folder.csv: refusing to write the merge output there: it is a directory" \
  merge "$dir/folder.csv" "$dir/shard1.csv"
echo "ok: sweep -j, shards + merge, SIGTERM + resume, study fingerprints, usage errors"
