#!/usr/bin/env bash
# Fails when a library source includes a header from a layer above its own. The layer order
# is read from docs/architecture.md (the line starting "Layer order:"), so the document and
# the check cannot drift apart. A layer is a folder; layers nest (sim/engine is a layer inside
# sim/), and a file belongs to the deepest layer folder that holds it.
#   tools/check_layers.sh              check this repository
#   tools/check_layers.sh --root DIR   check another tree (the self-test in tests/ uses it)
set -euo pipefail
root="$(dirname "$0")/.."
if [[ "${1:-}" == "--root" ]]; then
  root=$2
fi
cd "$root"
list_sources() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files '*.h' '*.cpp'
  else
    find . -name '*.h' -o -name '*.cpp' | sed 's#^\./##'
  fi
}

order_line=$(grep -m1 '^Layer order:' docs/architecture.md || true)
if [[ -z "$order_line" ]]; then
  echo "check_layers: docs/architecture.md has no 'Layer order:' line" >&2
  exit 2
fi
read -r -a layers <<<"$(sed -e 's/^Layer order://' -e 's/[`<]/ /g' <<<"$order_line")"
declare -A rank=()
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

# The layer of a path: its deepest folder prefix that is a layer ("" if none).
layer_of() {
  local dir=${1%/*}
  [[ $dir == "$1" ]] && dir=""
  while [[ -n $dir ]]; do
    if [[ -n "${rank[$dir]+x}" ]]; then
      echo "$dir"
      return
    fi
    [[ $dir == */* ]] && dir=${dir%/*} || dir=""
  done
}

violations=0
while IFS= read -r file; do
  layer=$(layer_of "$file")
  [[ -n $layer ]] || continue
  while IFS=: read -r line target; do
    dep=$(layer_of "$target")
    [[ -n $dep ]] || continue
    if ((rank[$dep] > rank[$layer])); then
      echo "$file:$line: includes \"$target\": $layer/ may not depend on $dep/ (layer order: ${layers[*]})"
      violations=$((violations + 1))
    fi
  done < <(grep -n -o -E '^#include "[^"]+"' "$file" | sed -E 's/^([0-9]+):#include "(.*)"/\1:\2/')
done < <(list_sources)

if ((violations)); then
  echo "check_layers: $violations include(s) against the layer order" >&2
  exit 1
fi
echo "check_layers: every include follows ${layers[*]}"
