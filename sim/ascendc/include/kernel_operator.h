// npusim's Ascend C compatibility layer: kernels written for the vendor toolchain compile
// against these headers and run on the simulator (docs/ascendc.md lists what is supported
// and where behaviour differs). Launch them with npusim::ascendc::bind_kernel:
//
//   sim.launch({.name = "add_custom", .blocks = 8},
//              npusim::ascendc::bind_kernel(add_custom, npusim::ascendc::gm_addr(x),
//                                           npusim::ascendc::gm_addr(y),
//                                           npusim::ascendc::gm_addr(z)));
#pragma once

#include <cassert>  // the vendor's kernel headers make assert() available to kernels
#include <cstdint>

#include "npusim_ascendc/adv_activation.h"
#include "npusim_ascendc/adv_cumsum.h"
#include "npusim_ascendc/adv_math.h"
#include "npusim_ascendc/adv_softmax.h"
#include "npusim_ascendc/adv_trig.h"  // part E: Sin, Cos, Tan, Asin, Acos, Atan
#include "npusim_ascendc/basics.h"
#include "npusim_ascendc/buf_pool.h"
#include "npusim_ascendc/compare_select.h"
#include "npusim_ascendc/constants.h"
#include "npusim_ascendc/context.h"
#include "npusim_ascendc/cube.h"
#include "npusim_ascendc/cube_fill.h"
#include "npusim_ascendc/cube_load3d.h"
#include "npusim_ascendc/data_copy.h"
#include "npusim_ascendc/debug.h"
#include "npusim_ascendc/dump.h"
#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/init_global_memory.h"
#include "npusim_ascendc/int4.h"
#include "npusim_ascendc/level0.h"
#include "npusim_ascendc/list_tensor.h"
#include "npusim_ascendc/pipe.h"
#include "npusim_ascendc/reduce.h"
#include "npusim_ascendc/static_tensors.h"
#include "npusim_ascendc/sync.h"
#include "npusim_ascendc/tensor_operators.h"
#include "npusim_ascendc/tensors.h"
#include "npusim_ascendc/tiling.h"
#include "npusim_ascendc/transpose.h"
#include "npusim_ascendc/unsupported.h"
#include "npusim_ascendc/utilities.h"
#include "npusim_ascendc/vector.h"
#include "npusim_ascendc/vector_bits.h"
#include "npusim_ascendc/workspace.h"
// The advanced APIs, parts B and C (normalization, quantization, reduce, data layout) and
// the debug macros.
#include "npusim_ascendc/adv_layernorm.h"
#include "npusim_ascendc/adv_layout.h"
#include "npusim_ascendc/adv_norm.h"
#include "npusim_ascendc/adv_norm_v2.h"  // part E: LayerNorm [A, R], Normalize, DeepNorm
#include "npusim_ascendc/adv_pad.h"
#include "npusim_ascendc/adv_quant.h"
#include "npusim_ascendc/adv_random.h"  // part E: PhiloxRandom
#include "npusim_ascendc/adv_reduce.h"
#include "npusim_ascendc/adv_transpose.h"  // part E: ConfusionTranspose
#include "npusim_ascendc/adv_welford.h"    // part E
#include "npusim_ascendc/kernel_macros.h"
// The advanced APIs, part D (sort, filter, flash softmax).
#include "npusim_ascendc/adv_filter.h"
#include "npusim_ascendc/adv_softmax_flash.h"
#include "npusim_ascendc/adv_sort.h"
// The layout API (Layout, MakeShape, Coord, Crd2Idx) and the advanced TransData.
#include "npusim_ascendc/adv_transdata.h"
#include "npusim_ascendc/layout.h"

/// The vendor declares GetTPipePtr() at global scope too (samples call it unqualified).
using AscendC::GetTPipePtr;
