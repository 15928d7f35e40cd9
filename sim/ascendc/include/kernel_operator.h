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

#include "npusim_ascendc/basics.h"
#include "npusim_ascendc/compare_select.h"
#include "npusim_ascendc/context.h"
#include "npusim_ascendc/cube.h"
#include "npusim_ascendc/data_copy.h"
#include "npusim_ascendc/debug.h"
#include "npusim_ascendc/dump.h"
#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/init_global_memory.h"
#include "npusim_ascendc/level0.h"
#include "npusim_ascendc/pipe.h"
#include "npusim_ascendc/reduce.h"
#include "npusim_ascendc/static_tensors.h"
#include "npusim_ascendc/sync.h"
#include "npusim_ascendc/tensors.h"
#include "npusim_ascendc/tiling.h"
#include "npusim_ascendc/unsupported.h"
#include "npusim_ascendc/utilities.h"
#include "npusim_ascendc/vector.h"
#include "npusim_ascendc/vector_bits.h"
#include "npusim_ascendc/workspace.h"

/// The vendor declares GetTPipePtr() at global scope too (samples call it unqualified).
using AscendC::GetTPipePtr;

/// The vendor's size constants that samples use by name (its kernel_utils_constants.h; the
/// values are the A2/A3 ones: 32-byte blocks, 256-byte repeats, 16 x 16 cube fractals).
namespace AscendC {
inline constexpr std::uint16_t ONE_BLK_SIZE = 32;
inline constexpr std::uint32_t ONE_BLOCK_SIZE = 32;
inline constexpr std::int32_t ONE_REPEAT_BYTE_SIZE = 256;
inline constexpr std::int32_t DEFAULT_BLK_NUM = 8;
inline constexpr std::int32_t DEFAULT_BLK_STRIDE = 1;
inline constexpr std::uint8_t DEFAULT_REPEAT_STRIDE = 8;
inline constexpr std::uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
inline constexpr std::uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
inline constexpr std::uint64_t FULL_MASK = 0xffffffffffffffffULL;
inline constexpr std::int32_t DEFAULT_C0_SIZE = 32;
inline constexpr std::int32_t MAX_REPEAT_TIMES = 255;
inline constexpr std::int32_t ONE_BYTE_BIT_SIZE = 8;
inline constexpr std::int32_t BLOCK_CUBE = 16;
inline constexpr std::int32_t CUBE_MAX_SIZE = 256;
inline constexpr std::uint8_t B32_BYTE_SIZE = 4;
inline constexpr std::uint8_t B16_BYTE_SIZE = 2;
inline constexpr std::uint8_t B8_BYTE_SIZE = 1;
}  // namespace AscendC
