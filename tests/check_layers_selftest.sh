#!/usr/bin/env bash
# The layer check passes on this repository and fails on a tree with one reversed include
# (base/ including sim/).   check_layers_selftest.sh SOURCE_DIR
set -euo pipefail
source=$1
"$source/tools/check_layers.sh" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/docs" "$work/base" "$work/sim"
cp "$source/docs/architecture.md" "$work/docs/"
printf '#pragma once\n' >"$work/sim/simulator.h"
printf '#pragma once\n#include "sim/simulator.h"\n' >"$work/base/types.h"
if output=$("$source/tools/check_layers.sh" --root "$work" 2>&1); then
  echo "check_layers accepted base/ including sim/" >&2
  exit 1
fi
grep -q 'base/types.h:2: includes "sim/simulator.h": base/ may not depend on sim/' <<<"$output"
echo "check_layers: rejects a reversed include"
