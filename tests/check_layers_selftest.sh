#!/usr/bin/env bash
# The layer check passes on this repository and fails, naming both files and the rule, on
# trees with one reversed include: base/ including sim/; inside sim/ the engine including the
# host runtime above it (sim/engine < sim/host) and the host runtime including the facade; and
# inside sync/ the checker including the cores (sync/check < core).
#   check_layers_selftest.sh SOURCE_DIR
set -euo pipefail
source=$1
"$source/tools/check_layers.sh" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect_rejected FILE INCLUDE MESSAGE: a tree where FILE includes INCLUDE fails with MESSAGE.
expect_rejected() {
  local file=$1 include=$2 message=$3
  rm -rf "$work/tree"
  mkdir -p "$work/tree/docs" "$(dirname "$work/tree/$file")" "$(dirname "$work/tree/$include")"
  cp "$source/docs/architecture.md" "$work/tree/docs/"
  printf '#pragma once\n' >"$work/tree/$include"
  printf '#pragma once\n#include "%s"\n' "$include" >"$work/tree/$file"
  local output
  if output=$("$source/tools/check_layers.sh" --root "$work/tree" 2>&1); then
    echo "check_layers accepted $file including $include" >&2
    exit 1
  fi
  if ! grep -qF "$message" <<<"$output"; then
    echo "check_layers rejected $file including $include, but said: $output" >&2
    exit 1
  fi
}

expect_rejected base/types.h sim/simulator.h \
  'base/types.h:2: includes "sim/simulator.h": base/ may not depend on sim/'
expect_rejected sim/engine/scheduler.cpp sim/host/runtime.h \
  'sim/engine/scheduler.cpp:2: includes "sim/host/runtime.h": sim/engine/ may not depend on sim/host/'
expect_rejected sim/host/runtime.cpp sim/simulator.h \
  'sim/host/runtime.cpp:2: includes "sim/simulator.h": sim/host/ may not depend on sim/'
expect_rejected sync/check/checker.cpp core/ai_core.h \
  'sync/check/checker.cpp:2: includes "core/ai_core.h": sync/check/ may not depend on core/'
echo "check_layers: rejects reversed includes, between top-level layers and inside sim/ and sync/"
