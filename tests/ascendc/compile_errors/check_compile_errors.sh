#!/usr/bin/env bash
# Each unsupported Ascend C API must fail to compile with a message naming it (never a silent
# no-op). For every case below a tiny kernel is compiled with -fsyntax-only against the layer;
# the test fails if it compiles or if the error text lacks the expected words.
#   check_compile_errors.sh <c++ compiler> <source root>
set -uo pipefail
cxx=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# The cases share their headers: each is precompiled once (GCC looks for <header>.gch in an
# include directory before the header itself), so a case costs a fraction of a full parse.
mkdir -p "$work/pch/lib"
for header in kernel_operator.h lib/matmul_intf.h; do
  if ! "$cxx" -std=c++20 -x c++-header -I"$root/sim/ascendc/include" -I"$root" \
       "$root/sim/ascendc/include/$header" -o "$work/pch/$header.gch" >"$work/pch.log" 2>&1; then
    echo "FAIL precompiling $header:"
    grep -v "pragma once" "$work/pch.log" | head -20
    exit 1
  fi
done
flags=(-std=c++20 -fsyntax-only -I"$work/pch" -I"$root/sim/ascendc/include" -I"$root")

expect_error() {  # name, expected text, kernel body
  local name=$1 expected=$2 body=$3
  printf '#include "kernel_operator.h"\nusing namespace AscendC;\nvoid k() {\n%s\n}\n' "$body" \
    >"$work/$name.cpp"
  if "$cxx" "${flags[@]}" "$work/$name.cpp" >"$work/$name.log" 2>&1; then
    echo "FAIL $name: compiled, expected an error containing '$expected'"
    failures=$((failures + 1))
  elif ! grep -qF -- "$expected" "$work/$name.log"; then
    echo "FAIL $name: the error does not say '$expected':"
    head -20 "$work/$name.log"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

expect_error pipe_barrier_s "PipeBarrier<PIPE_S> is not allowed" 'PipeBarrier<PIPE_S>();'
expect_error set_atomic_uint8 \
  "the atomic type must be float, half, bfloat16_t, int32_t, int16_t or int8_t" \
  'SetAtomicAdd<uint8_t>();'
expect_error compare_bits_type "Compare writes its bits to a LocalTensor<uint8_t>" \
  'LocalTensor<float> a; Compare(a, a, a, CMPMODE::LT, 8);'
expect_error sort32_type "Sort32 sorts half or float scores" \
  'LocalTensor<int32_t> a; LocalTensor<uint32_t> i; Sort32(a, a, i, 1);'
expect_error gatherb_type "Gatherb takes uint16_t or uint32_t elements" \
  'LocalTensor<float> a; LocalTensor<uint32_t> o; Gatherb(a, a, o, 1, GatherRepeatParams{});'
expect_error select_register_mode "only SELMODE::VSEL_CMPMASK_SPR is supported" \
  'LocalTensor<float> a; Select<float, SELMODE::VSEL_TENSOR_TENSOR_MODE>(a, a, a, 1, {});'
expect_error reduce_repeat_type "ReduceRepeat / ReduceDataBlock take half or float" \
  'LocalTensor<int32_t> a; ReduceRepeat<ReduceType::SUM, int32_t>(a, a, 64, 1, 1, 1, 8);'
expect_error shift_left_tensor "ShiftLeft with a tensor of shift counts is an Ascend 950 API" \
  'LocalTensor<uint16_t> a; LocalTensor<int16_t> s; ShiftLeft(a, a, s, 16);'
expect_error allocator_fixbuf "LocalMemAllocator supports Hardware::UB, L1, L0A, L0B, L0C and BIAS" \
  'LocalMemAllocator<Hardware::FIXBUF> a; (void)a.Alloc<uint64_t, 64>();'
expect_error tik2 "the pre-release tik2 dialect (namespace tik2) is not supported" \
  'tik2::TPipe pipe; (void)pipe;'
expect_error tik2_que "the pre-release tik2 dialect (namespace tik2) is not supported" \
  'tik2::TQue<tik2::QuePosition::VECIN, 2> q; (void)q;'
expect_error transpose_type "Transpose (16 x 16) takes int16_t, uint16_t or half" \
  'LocalTensor<float> a; Transpose(a, a);'
expect_error set_fixpipe_config "SetFixPipeConfig (Fixpipe quantization tables)" \
  'LocalTensor<uint64_t> t; SetFixPipeConfig(t, t);'
expect_error position_co2 "this TPosition (CO2, SPM, SHM, TSCM, C2PIPE2GM) is not supported" \
  'TBuf<TPosition::CO2> b; (void)b.Get<float>();'
expect_error soft_syncall_cube "the soft SyncAll(gm, ub, n) is for vector cores only" \
  'GlobalTensor<int32_t> g; LocalTensor<int32_t> u; SyncAll<false>(g, u);'
expect_error mmad_types "Mmad takes half x half, bfloat16_t x bfloat16_t or float x float" \
  'LocalTensor<int32_t> a; Mmad(a, a, a, MmadParams{});'
expect_error mmad_mixed_types "Mmad takes half x half" \
  'LocalTensor<float> c; LocalTensor<half> a; LocalTensor<bfloat16_t> b; Mmad(c, a, b, MmadParams{});'
expect_error mmad_bias_type "with a bias of the result type" \
  'LocalTensor<int32_t> c; LocalTensor<int8_t> a; LocalTensor<float> b; Mmad(c, a, a, b, MmadParams{});'
# The Ascend 950 APIs (one compile for all of them: each names itself in its own error).
expect_error ascend950_apis "is an Ascend 950 API" \
  'MutexID id = AllocMutexID(); Mutex::Lock<PIPE_V>(id); uint32_t* p = nullptr; AtomicAdd(p, 1U); SetCtrlSpr<60, 60>(1); (void)GetUBSizeInBytes();'
# The Ascend 950 advanced math APIs (npusim_ascendc/adv_math.h), and the softmax family's
# element types.
expect_error ascend950_adv_apis "Rint is an Ascend 950 API" \
  'LocalTensor<float> a; Rint(a, a, 8);'
expect_error ascend950_adv_where "Where is an Ascend 950 API" \
  'LocalTensor<float> a; LocalTensor<bool> c; Where(a, a, a, c, 8);'
expect_error softmax_type "the softmax APIs take half or float tensors" \
  'LocalTensor<int32_t> a; LocalTensor<uint8_t> t; SoftMax<int32_t>(a, a, a, a, t, SoftMaxTiling{});'
expect_error dropout_mode "DropOut's dropOutMode other than 0" \
  'LocalTensor<float> a; LocalTensor<uint8_t> m; DropOut<float, false, 2>(a, a, m, 0.5F, DropOutShapeInfo{});'
expect_error softmax_flash_half "SoftmaxFlashV2 / SoftmaxGrad take float tensors" \
  'LocalTensor<half> a; SoftMaxTiling t; SoftmaxGrad<half>(a, a, a, t);'

# The Matmul API's unsupported element types and C formats (lib/matmul_intf.h).
matmul_error() {  # name, expected text, A element type, C format[, C element type]
  local name=$1 expected=$2 atype=$3 cformat=$4 ctype=${5:-float}
  printf '#include "lib/matmul_intf.h"\nusing namespace AscendC;\nvoid k() {\n  Matmul<MatmulType<TPosition::GM, CubeFormat::ND, %s>, MatmulType<TPosition::GM, CubeFormat::ND, %s>, MatmulType<TPosition::GM, CubeFormat::%s, %s>> mm;\n  (void)mm;\n}\n' \
    "$atype" "$atype" "$cformat" "$ctype" >"$work/$name.cpp"
  if "$cxx" "${flags[@]}" "$work/$name.cpp" >"$work/$name.log" 2>&1 ||
     ! grep -qF -- "$expected" "$work/$name.log"; then
    echo "FAIL $name: expected an error containing '$expected'"
    head -20 "$work/$name.log"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}
matmul_error matmul_int8_float_c "as int32_t from int8_t inputs" int8_t ND
matmul_error matmul_int16_inputs "the Matmul API takes A and B of one type" int16_t ND
matmul_error matmul_c_nz "or NZ C of L0C's type (float, int32_t), only yet" half NZ half

# Operator-project host code (register/op_def_registry.h): the parts npusim does not model.
expect_host_error() {  # name, expected text, body of a function given an OpDef and a context
  local name=$1 expected=$2 body=$3
  printf '#include "register/op_def_registry.h"\nvoid h(ops::OpDef& d, gert::TilingContext* c) {\n%s\n}\n' \
    "$body" >"$work/$name.cpp"
  if "$cxx" "${flags[@]}" "$work/$name.cpp" >"$work/$name.log" 2>&1 ||
     ! grep -qF -- "$expected" "$work/$name.log"; then
    echo "FAIL $name: expected an error containing '$expected'"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}
expect_host_error op_scalar_list "OpParamDef::ScalarList (aclScalarList inputs) is not supported yet" \
  'd.Input("alphas").ScalarList(); (void)c;'
expect_host_error op_mc2 "OpDef::MC2 (communication fused ops) is not supported yet" 'd.MC2(); (void)c;'
expect_host_error op_compile_info "TilingContext::GetCompileInfo (TilingParse) is not supported yet" \
  '(void)d; (void)c->GetCompileInfo<int>();'

if ((failures)); then
  echo "$failures case(s) failed"
  exit 1
fi
echo "every unsupported API fails to compile with its name in the message"
