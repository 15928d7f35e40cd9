#!/usr/bin/env bash
# The "kernels" section through the CLI: the example user kernel library runs (exit 0), its
# racy kernel reports findings at its C++ lines (exit 1); a missing library, a library
# without the registry symbols, one built against another npusim version and a kernel the
# library does not register, a device or a folder as the library, are exit 2 naming the
# pointer; a bare library name is the file beside the scenario; the JSON reduction runs to its
# expectations and its racy variant names the ops' JSON pointers.
#   user_kernels.sh NPUSIM_BINARY LIBRARY_DIR SOURCE_DIR
set -uo pipefail
npusim=$(realpath "$1")
libs=$(realpath "$2")
src=$(realpath "$3")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
expect_run() {  # FILE EXPECTED_EXIT FRAGMENT...
  local file=$1 want=$2
  shift 2
  expect_exit "$file" "$want" "$work/out" "$npusim" run "$file"
  for fragment in "$@"; do
    expect_text "$file" "$fragment" "$work/out"
  done
}
scenario() {  # NAME LIBRARY KERNEL [ARGS]
  cat >"$work/$1.json" <<JSON
{ "chip": "small",
  "kernels": {"k": {"library": "$2", "kernel": "$3"}},
  "buffers": {"x": {"dtype": "float32", "shape": [1024], "init": {"fill": 3}},
              "y": {"dtype": "float32", "shape": [1024]},
              "z": {"dtype": "float32", "shape": [1024]}},
  "host": [{"op": "launch", "kernel": "k", "blocks": 4, "args": ${4:-{\"x\": \"x\", \"y\": \"y\"\}}},
           {"op": "synchronize_device"}] }
JSON
}

# The shipped example, with the library where this build put it.
sed "s|../../build/lib/libnpusim_example_kernels.so|$libs/libnpusim_example_kernels.so|" \
  "$src/examples/user_kernels/scenario.json" >"$work/example.json"
expect_run "$work/example.json" 0 "expectations: 2 of 2 hold" "scale: 4 blocks"

scenario racy "$libs/libnpusim_example_kernels.so" example_racy_add '{"x": "x", "y": "x", "z": "z"}'
expect_run "$work/racy.json" 1 "Potential RAW hazard" "example_kernels.cpp:"

scenario missing "no/such/libkernels.so" example_scale
expect_run "$work/missing.json" 2 \
  "missing.json:/kernels/k/library: cannot load kernel library 'no/such/libkernels.so': no such file"

scenario foreign "$libs/libnpusim_test_not_a_kernel_library.so" example_scale
expect_run "$work/foreign.json" 2 \
  "foreign.json:/kernels/k/library: '" \
  "is not an npusim kernel library: it has no symbol npusim_kernel_abi_version"

scenario old "$libs/libnpusim_test_other_version.so" example_scale
expect_run "$work/old.json" 2 "/kernels/k/library: kernel library" \
  "was built against npusim 0.0.1 (kernel ABI 0); this is npusim" "rebuild the library"

# A bare file name is the scenario's folder's file, never a system library path lookup: the
# scenario in one folder with the library beside it, run from another folder.
mkdir -p "$work/bare" "$work/elsewhere"
cp "$libs/libnpusim_example_kernels.so" "$work/bare/"
scenario bare_name libnpusim_example_kernels.so example_scale
mv "$work/bare_name.json" "$work/bare/"
for from in elsewhere bare; do  # a subshell's failures count through its exit code
  (cd "$work/$from" && expect_run "$(realpath --relative-to=. "$work/bare/bare_name.json")" 0 \
    "k: 4 blocks" && exit "$failed") || failed=$((failed + 1))
done

# Something that is not a file says what it is.
scenario device /dev/zero example_scale
expect_run "$work/device.json" 2 \
  "device.json:/kernels/k/library: cannot load kernel library '/dev/zero': it is not a regular file"
scenario directory . example_scale
expect_run "$work/directory.json" 2 \
  "directory.json:/kernels/k/library: cannot load kernel library '.': it is a directory"

scenario typo "$libs/libnpusim_example_kernels.so" example_scal
expect_run "$work/typo.json" 2 \
  "typo.json:/kernels/k/kernel: undefined kernel 'example_scal' (did you mean 'example_scale'?)"

# Kernels written in JSON.
expect_run "$src/configs/scenarios/json_syncall_reduction.json" 0 "expectations: 2 of 2 hold"
expect_run "$src/configs/scenarios/json_syncall_reduction_racy.json" 0 \
  "at json_syncall_reduction_racy.json#/kernels/reduction/body/8" \
  "at json_syncall_reduction_racy.json#/kernels/reduction/body/12/loop/body/1"

# A bad expression and a division by zero the parameters make certain: exit 2, the pointer.
python3 - "$src/configs/scenarios/json_syncall_reduction.json" "$work" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["chip"] = "a2"
body = doc["kernels"]["reduction"]["body"]
bad = json.loads(json.dumps(doc)); bad["kernels"]["reduction"]["body"][2]["count"] = "n +* 2"
json.dump(bad, open(sys.argv[2] + "/bad_expr.json", "w"))
zero = json.loads(json.dumps(doc)); zero["kernels"]["reduction"]["body"][2]["count"] = "n / (sync - 1)"
json.dump(zero, open(sys.argv[2] + "/div_zero.json", "w"))
PY
expect_run "$work/bad_expr.json" 2 "bad_expr.json:/kernels/reduction/body/2/count: bad expression 'n +* 2': unexpected '*' at column 4"
expect_run "$work/div_zero.json" 2 \
  "div_zero.json:/kernels/reduction/body/2: 'n / (sync - 1)': division by zero: 32 / 0 (launched at /host/0)"

if ((failed)); then
  echo "$failed failure(s)"
  exit 1
fi
echo "user kernels: all cases behave"
