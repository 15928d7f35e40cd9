#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds tests/consumer against it with
# find_package(npusim): the installed public headers alone must compile (SystemC, TLM and
# Catch2 headers are poisoned), the consumer must run correctly, and the CLI must be
# installed.   check_consumer.sh BUILD_DIR SOURCE_DIR [EXTRA_CXX_FLAGS]
# EXTRA_CXX_FLAGS: what the library was built with that its users must match (sanitizers).
set -euo pipefail
build=$1
source=$2
extra_flags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
headers=$(find "$work/prefix/include/npusim" -name '*.h' | sort)
[[ -n "$headers" ]] || { echo "no headers installed" >&2; exit 1; }
# Only the public headers: nothing that needs SystemC is installed.
for internal in core/ai_core.h core/kernel_launch.h core/chip_resources.h sim/engine/scheduler.h \
                sim/engine/sim_context.h; do
  if [[ -e "$work/prefix/include/npusim/$internal" ]]; then
    echo "internal header installed: $internal" >&2
    exit 1
  fi
done

cmake -S "$source/tests/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$extra_flags" \
      -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" >/dev/null
cmake --build "$work/build" >/dev/null
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/build/consumer"
"$work/prefix/bin/npusim" kernels >/dev/null
echo "consumer: installed package OK ($(wc -l <<<"$headers") public headers, CLI installed)"
