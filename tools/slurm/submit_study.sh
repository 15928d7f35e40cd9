#!/usr/bin/env bash
# Submits a study to Slurm: a job array of SHARDS tasks (tools/slurm/sweep_shard.sbatch) and
# a merge job that runs when all of them succeeded, writing OUTDIR/study.csv (the same rows
# and order as one unsharded `npusim sweep`). Prints the two job ids.
#   tools/slurm/submit_study.sh STUDY.json OUTDIR SHARDS [npusim sweep options...]
#   NPUSIM=/path/to/npusim (default: npusim on PATH); extra sbatch options in SBATCH_OPTIONS.
set -euo pipefail
if (($# < 3)); then
  echo "usage: $0 STUDY.json OUTDIR SHARDS [npusim sweep options]" >&2
  exit 2
fi
study=$(realpath "$1")
outdir=$(realpath -m "$2")
shards=$3
shift 3
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "$0: SHARDS must be a positive integer" >&2; exit 2; }
here=$(dirname "$(realpath "$0")")
npusim=${NPUSIM:-$(command -v npusim || true)}
[[ -n $npusim ]] || { echo "$0: npusim not found; set NPUSIM" >&2; exit 2; }
mkdir -p "$outdir"
# shellcheck disable=SC2086  # SBATCH_OPTIONS is a list of options on purpose
array=$(NPUSIM=$npusim sbatch --parsable ${SBATCH_OPTIONS:-} --export=ALL --array="1-$shards" \
  --output="$outdir/slurm-%A_%a.out" "$here/sweep_shard.sbatch" "$study" "$outdir" "$@")
array=${array%%;*}
inputs=()
for ((k = 1; k <= shards; ++k)); do inputs+=("$outdir/shard-$k-of-$shards.csv"); done
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTIONS:-} --dependency="afterok:$array" \
  --job-name=npusim-merge --output="$outdir/slurm-merge-%j.out" \
  --wrap "$npusim merge $outdir/study.csv ${inputs[*]}")
echo "array $array merge ${merge%%;*}"
