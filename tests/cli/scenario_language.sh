#!/usr/bin/env bash
# The scenario-language CLI: run --set, validate, list, --version, an example in every
# subcommand's --help, and buffers of every dtype round-tripping through .npy and .bin files
# with --dump (inputs read back as "init": {"file"} and dumped again are byte-identical).
#   scenario_language.sh NPUSIM_BINARY SOURCE_DIR
set -uo pipefail
npusim=$(realpath "$1")
src=$(realpath "$2")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# expect CODE FRAGMENT -- ARGS...: npusim ARGS exits CODE and prints FRAGMENT (stdout+stderr).
expect() {
  local code=$1 fragment=$2
  shift 3
  local out
  out=$("$npusim" "$@" 2>&1)
  local got=$?
  if [[ $got != "$code" ]]; then
    fail "npusim $*: exit $got, expected $code"
    sed 's/^/    /' <<<"$out" | tail -20
  elif [[ "$out" != *"$fragment"* ]]; then
    fail "npusim $*: output lacks '$fragment'"
    sed 's/^/    /' <<<"$out" | tail -20
  fi
}
scenarios=$src/configs/scenarios

# ---- --version, list, --help examples ------------------------------------------------------
expect 0 "(scenario format 1)" -- --version
expect 0 "small:" -- list chips
expect 0 "launch_graph" -- list ops
expect 0 "/cores/vector" -- list params
expect 0 "vector_add:" -- list kernels
[[ "$("$npusim" list kernels)" == "$("$npusim" kernels)" ]] || fail "list kernels differs from kernels"
[[ "$("$npusim" list params)" == "$("$npusim" params)" ]] || fail "list params differs from params"
expect 2 "what: nothing" -- list nothing
for sub in run validate list sweep merge params kernels; do
  # Whole output first: grep -q stops reading at its match, and npusim treats the broken pipe
  # of a longer help text as lost output.
  help_text=$("$npusim" "$sub" --help)
  grep -q "^  npusim $sub" <<<"$help_text" || fail "npusim $sub --help shows no example"
done

# ---- validate ------------------------------------------------------------------------------
expect 0 "ok        $scenarios/runtime_buffer_files.json" -- validate "$scenarios"/*.json
n=$("$npusim" validate "$scenarios"/*.json | grep -c '^ok ')
[[ $n == $(ls "$scenarios"/*.json | wc -l) ]] || fail "validate printed $n ok lines"
printf '{"chip": "small", "kernel": "busy", "blocks": 0, "nope": 1}' >"$work/bad.json"
expect 2 "bad.json:/blocks: expected 1..65535 blocks, got 0" -- validate "$scenarios/default.json" "$work/bad.json"
expect 2 "bad.json:/nope: unknown key 'nope'" -- validate "$work/bad.json"
expect 2 "ok        $scenarios/default.json" -- validate "$scenarios/default.json" "$work/bad.json"
printf '{"chip": "small", "kernel": "busy", "blocks": 0}' >"$work/zero.json"
expect 0 "ok        $work/zero.json" -- validate "$work/zero.json" --set /blocks=1 --set '/params={"cycles": 5}'

# ---- run --set -----------------------------------------------------------------------------
expect 0 "expectation" -- run "$scenarios/runtime_copy_readback.json" --set /host/2/blocks=2
expect 2 "runtime_copy_readback.json:/host/2/params/elements" -- run "$scenarios/runtime_copy_readback.json" --set /host/2/blocks=3
expect 2 "runtime_copy_readback.json:/host/9/blocks: --set /host/9/blocks=2: cannot set a value here" -- run "$scenarios/runtime_copy_readback.json" --set /host/9/blocks=2
expect 2 "is not a JSON pointer" -- run "$scenarios/runtime_copy_readback.json" --set host=2

# ---- .npy and .bin round trip through --dump -----------------------------------------------
cat >"$work/types.json" <<'JSON'
{ "npusim_scenario": 1, "chip": "small",
  "buffers": {
    "f32": {"dtype": "float32", "shape": [4, 8], "init": {"range": {"start": -3.25, "step": 0.5}}},
    "f16": {"dtype": "float16", "shape": [32], "init": {"random": {"low": -2, "high": 2, "seed": 3}}},
    "i32": {"dtype": "int32", "shape": [2, 2, 8], "init": {"range": {"start": -100000, "step": 7777}}},
    "i8": {"dtype": "int8", "bytes": 32, "init": {"range": {"start": -128, "step": 8}}},
    "u8": {"dtype": "uint8", "shape": [32], "memory": "pinned", "init": {"range": {"start": 0, "step": 8}}}
  },
  "host": [{"op": "synchronize_device"}] }
JSON
expect 0 "dump      f32  $work/npy/f32.npy" -- run "$work/types.json" --dump "$work/npy"
expect 0 "dump      u8  $work/bin/u8.bin" -- run "$work/types.json" --dump "$work/bin" --dump-format bin
# Read both dumps back as files and dump again: byte-identical.
for fmt in npy bin; do
  d=$work/$fmt
  cat >"$work/from_$fmt.json" <<JSON
{ "chip": "small",
  "buffers": {
    "f32": {"dtype": "float32", "shape": [4, 8], "init": {"file": "$d/f32.$fmt"}},
    "f16": {"dtype": "float16", "shape": [32], "init": {"file": "$d/f16.$fmt"}},
    "i32": {"dtype": "int32", "shape": [2, 2, 8], "init": {"file": "$d/i32.$fmt"}},
    "i8": {"dtype": "int8", "bytes": 32, "init": {"file": "$d/i8.$fmt"}},
    "u8": {"dtype": "uint8", "shape": [32], "memory": "pinned", "init": {"file": "$d/u8.$fmt"}}
  },
  "host": [{"op": "synchronize_device"}] }
JSON
  expect 0 "dump" -- run "$work/from_$fmt.json" --dump "$work/again_$fmt" --dump-format "$fmt"
  for b in f32 f16 i32 i8 u8; do
    cmp -s "$d/$b.$fmt" "$work/again_$fmt/$b.$fmt" || fail "$b.$fmt changed on its round trip"
  done
done
# The .bin holds exactly the .npy's elements.
for b in f32 f16 i32 i8 u8; do
  size=$(stat -c %s "$work/bin/$b.bin")
  tail -c "$size" "$work/npy/$b.npy" | cmp -s - "$work/bin/$b.bin" || fail "$b: .npy data differs from .bin"
done
# The shipped files: read from .npy and .bin, dumped back byte-identical.
expect 0 "dump      x  $work/ship/x.npy" -- run "$scenarios/runtime_buffer_files.json" --dump "$work/ship"
cmp -s "$work/ship/x.npy" "$scenarios/../scenario_data/ramp.npy" || fail "x.npy differs from data/ramp.npy"
expect 0 "dump" -- run "$scenarios/runtime_buffer_files.json" --dump "$work/shipbin" --dump-format bin
cmp -s "$work/shipbin/y.bin" "$scenarios/../scenario_data/ramp.bin" || fail "y.bin differs from data/ramp.bin"
expect 2 "--dump writes a host program's buffers" -- run "$scenarios/syncall_reduction_hard.json" --dump "$work/single"
expect 2 "dump-format: xyz not in" -- run "$work/types.json" --dump "$work/x" --dump-format xyz

if ((failed > 0)); then
  echo "scenario language CLI: $failed failures"
  exit 1
fi
echo "scenario language CLI: all passed"
