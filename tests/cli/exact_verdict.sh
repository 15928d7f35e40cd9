#!/usr/bin/env bash
# The exact deadlock verdict against exploration, on chips of 24, 40 and 48 vector cores with
# 2-4 streams of hard-SyncAll kernels at block counts around the boundary sum(blocks - 1) =
# cores: where the verdict says "reachable", the witness it names (the hold_last placement)
# deadlocks; where it says "cannot deadlock" (the vendor rule still warns), none of 200
# explored schedules does, and hold_last completes too. The chips' host launch costs are zero, so every kernel is ready
# at once and the placement alone decides.
#   exact_verdict.sh NPUSIM SOURCE_DIR
set -uo pipefail
npusim=$(realpath "$1")
src=$(realpath "$2")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# One line per point: CORES STREAMS BLOCKS VERDICT (reachable | cannot).
python3 - "$src" "$work" >"$work/points" <<'PY'
import json, math, sys
src, work = sys.argv[1], sys.argv[2]
base = json.load(open(src + "/configs/chips/a2.json"))
study = json.load(open(src + "/configs/scenarios/whatif_syncall_streams.json"))
warm, record, wait, launch = (study["host"][i] for i in (0, 1, 2, 6))
for cores in (24, 40, 48):
    chip = json.loads(json.dumps(base))
    chip["name"] = "a2_%d" % cores
    chip["cores"]["vector"] = cores
    chip["runtime"]["launch_cycles"] = 0
    chip["runtime"]["call_cycles"] = 0
    json.dump(chip, open("%s/chip%d.json" % (work, cores), "w"))
    for streams in (2, 3, 4):
        reach = math.ceil(cores / streams) + 1          # smallest b with s (b - 1) >= cores
        for blocks, verdict in ((reach, "reachable"), (reach - 1, "cannot")):
            if streams * blocks <= cores:
                continue                                 # the rule does not warn: nothing to decide
            # A warm-up kernel holds every core until all launches are queued, then an event
            # releases them together (as in the what-if study).
            names = ["s%d" % (i + 1) for i in range(streams)]
            doc = {"description": "exact verdict test point", "chip": "chip%d.json" % cores,
                   "runtime": {"placement": "random", "seed": 1},
                   "buffers": dict({n: {"dtype": "float32", "shape": [blocks * 16]} for n in names},
                                   warm={"dtype": "int32", "shape": [cores]}),
                   "streams": names, "events": study["events"]}
            doc["host"] = [dict(warm, blocks=cores, params={"cycles": 2000}), record]
            doc["host"] += [dict(wait, stream=n) for n in names]
            doc["host"] += [dict(launch, stream=n, blocks=blocks, args={"data": n}) for n in names]
            doc["host"].append({"op": "synchronize_device"})
            name = "c%d_s%d_b%d.json" % (cores, streams, blocks)
            json.dump(doc, open(work + "/" + name, "w"))
            print(cores, streams, blocks, verdict, name)
PY
[[ -s $work/points ]] || { echo "no points generated"; exit 1; }
count=0
while read -r cores streams blocks verdict file; do
  count=$((count + 1))
  label="$cores cores, $streams x $blocks blocks"
  "$npusim" run "$work/$file" >"$work/plain.out" 2>&1
  if [[ $verdict == reachable ]]; then
    expect_text "$label" "exact: deadlock reachable: " "$work/plain.out"
  else
    expect_text "$label" "exact: cannot deadlock: " "$work/plain.out"
  fi
  if [[ $verdict == cannot ]]; then
    "$npusim" run "$work/$file" --schedules 200 -j 2 >"$work/explore.out" 2>&1
    grep -qF "schedules 200 (seeds 1-200): 0 deadlocked, 200 completed" "$work/explore.out" ||
      fail "$label: the verdict says cannot deadlock: $(grep '^schedules' "$work/explore.out")"
    "$npusim" run "$work/$file" --set /runtime/placement=hold_last >"$work/witness.out" 2>&1
    expect_text "$label: hold_last completes" "outcome   completed" "$work/witness.out"
  else
    # The witness the verdict names: the hold_last placement deadlocks, every time.
    "$npusim" run "$work/$file" --set /runtime/placement=hold_last >"$work/witness.out" 2>&1
    expect_text "$label: hold_last witness" "outcome   DEADLOCK" "$work/witness.out"
  fi
done <"$work/points"
echo "exact verdict: $count points, $failed failed"
((failed == 0))
