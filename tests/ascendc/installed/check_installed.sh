#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, builds the sample project against it with
# find_package(npusim) + npusim_add_ascendc_kernel, and runs both host forms through the
# sample's own verification.   check_installed.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for header in kernel_operator.h acl/acl.h tikicpulib.h npusim_ascendc/context.h \
              cpu_debug_launch.h kernel_tiling/kernel_tiling.h tiling/platform/platform_ascendc.h \
              register/op_def_registry.h register/tilingdata_base.h aclnn/acl_meta.h; do
  [[ -e "$work/prefix/include/npusim/ascendc/$header" ]] || {
    echo "not installed: include/npusim/ascendc/$header" >&2
    exit 1
  }
done
cmake -S "$source/tests/ascendc/installed" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release -DSAMPLE_DIR="$source/tests/ascendc/sample_add" \
      -DCMAKE_CXX_FLAGS="${3:-}" -DCMAKE_EXE_LINKER_FLAGS="${3:-}" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
for form in acl cpu; do
  NPUSIM_CHIP=small bash "$source/tests/ascendc/sample_add/run_sample.sh" \
    "$work/build/add_$form" "$source/tests/ascendc/sample_add" >/dev/null
done
# A single-source .asc project, configured from its own unchanged CMakeLists.txt.
asc="$source/tests/ascendc/corpus/host_styles/static_asc"
cmake -S "$asc" -B "$work/asc" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_FLAGS="${3:-}" -DCMAKE_EXE_LINKER_FLAGS="${3:-}" >/dev/null
cmake --build "$work/asc" -j2 --target static_tensors_npu >/dev/null
out=$(NPUSIM_CHIP=small "$work/asc/static_tensors_npu" 2>&1)
grep -qF "checker: no findings" <<<"$out" || { echo "$out"; exit 1; }
echo "installed package: the sample and the .asc project build with npusim_add_ascendc_kernel and pass"
