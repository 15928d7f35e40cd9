#!/usr/bin/env bash
# The broken-input corpus: every case runs the CLI and must end with its expected exit code
# and message fragments, never with exit 3, a signal or a hang.
#   run_corpus.sh NPUSIM_BINARY CORPUS_DIR
# Layout: CORPUS_DIR/<class>/cases.tsv, one case per line (tab-separated; # comments):
#   <command line after "npusim">  <expected exit code>  <fragment>[|<fragment>...]
# Commands run in a scratch copy of the class folder, so relative paths name its files. A
# class may have generate.sh, run there first, for inputs too large to keep in git.
# Fragments must all appear in stderr (or stdout); "{dir}" stands for the scratch folder.
set -uo pipefail
npusim=$(realpath "$1")
corpus=$(realpath "$2")
timeout_s=${NPUSIM_CORPUS_TIMEOUT:-60}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
passed=0
failed=0
for class_dir in "$corpus"/*/; do
  class=$(basename "$class_dir")
  [[ -f "$class_dir/cases.tsv" ]] || continue
  scratch=$(mktemp -d)
  cp -r "$class_dir"/. "$scratch"/
  if [[ -x "$scratch/generate.sh" ]]; then
    (cd "$scratch" && ./generate.sh) || { echo "FAIL $class: generate.sh failed"; failed=$((failed + 1)); }
  fi
  while IFS=$'\t' read -r command expected fragments; do
    [[ -z "$command" || "$command" == \#* ]] && continue
    out=$(cd "$scratch" && eval "timeout --signal=KILL $timeout_s \"$npusim\" $command" 2>&1 </dev/null)
    code=$?
    problem=""
    if ((code == 137)); then
      problem="timed out after ${timeout_s}s"
    elif ((code >= 128 || code == 3)); then
      problem="exit $code (crash, signal or internal error)"
    elif [[ "$code" != "$expected" ]]; then
      problem="exit $code, expected $expected"
    fi
    if [[ -z "$problem" && -n "${fragments:-}" ]]; then
      IFS='|' read -r -a wanted <<<"${fragments//\{dir\}/$scratch}"
      for fragment in "${wanted[@]}"; do
        if [[ "$out" != *"$fragment"* ]]; then
          problem="output lacks '$fragment'"
          break
        fi
      done
    fi
    if [[ -n "$problem" ]]; then
      failed=$((failed + 1))
      echo "FAIL $class: npusim $command: $problem"
      head -c 2000 <<<"$out" | sed 's/^/    /'
    else
      passed=$((passed + 1))
    fi
  done <"$scratch/cases.tsv"
  rm -rf "$scratch"
done
echo "broken-input corpus: $passed passed, $failed failed"
((failed == 0))
