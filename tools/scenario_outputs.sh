#!/usr/bin/env bash
# Prints one line per shipped scenario run: the exit code and the SHA-256 of its stdout, its
# JSON report and its trace. Run it with two builds and diff the outputs to prove a change
# left every report and trace byte-identical (a restructuring, a performance change):
#   tools/scenario_outputs.sh OLD/bin/npusim > old.txt
#   tools/scenario_outputs.sh build/bin/npusim > new.txt && diff old.txt new.txt
# Each scenario runs plain and with --all-instances; schedule seeds replay one schedule.
set -uo pipefail
npusim=$(realpath "$1")
scenarios=${2:-"$(dirname "$0")/../configs/scenarios"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$(realpath "$scenarios")/../.." || exit 2
for scenario in configs/scenarios/*.json; do
  for variant in plain --all-instances "--seed 7"; do
    args=()
    [[ $variant != plain ]] && read -r -a args <<<"$variant"
    rm -f "$work"/*
    "$npusim" run "$scenario" --quiet "${args[@]}" --report "$work/report.json" \
      --trace "$work/trace.json" >"$work/stdout.raw" 2>"$work/stderr"
    code=$?
    sed "s#$work#WORK#g" "$work/stdout.raw" >"$work/stdout"  # the output paths are printed
    hashes=()
    for f in stdout stderr report.json trace.json; do
      if [[ -f $work/$f ]]; then
        hashes+=("$f=$(sha256sum <"$work/$f" | cut -c1-16)")
      else
        hashes+=("$f=none")
      fi
    done
    echo "$scenario [$variant] exit=$code ${hashes[*]}"
  done
done
