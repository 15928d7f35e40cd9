// The argument structs of the cube unit's calls (Block::mmad, Block::fixpipe,
// Block::load_fractals): one struct per instruction, so that front ends (sim/ascendc) fill
// in only the fields their API has.
#pragma once

#include <cstdint>

#include "base/tensor.h"
#include "base/transaction.h"
#include "core/request.h"

namespace npusim {

/// A cube operand of any element type (the cube's tables, base/cube_types.h, say which the
/// decoder takes): converts from any LocalTensor or GlobalTensor.
struct CubeOperand {
    Operand operand;
    CubeOperand() = default;
    template <Element T>
    CubeOperand(const LocalTensor<T>& t)  // NOLINT(google-explicit-constructor)
        : operand(local_operand(t)) {}
    template <Element T>
    CubeOperand(const GlobalTensor<T>& t)  // NOLINT(google-explicit-constructor)
        : operand(global_operand(t)) {}
};

/// Mmad's full form: fp16 / bf16 / fp32 inputs with an fp32 result, or int8 inputs with an
/// int32 result (the decoder checks the types against the cube's table); `bias` (of the
/// result type, n elements, in L1: npusim's stand-in for the bias table) initialises every
/// row of c instead of zero (not with accumulate); a held as k x m and b as n x k
/// (row-major) when transposed.
struct MmadCall {
    CubeOperand c;
    CubeOperand a;
    CubeOperand b;
    std::uint32_t m = 0, n = 0, k = 0;
    bool accumulate = false;
    bool has_bias = false;
    CubeOperand bias;
    bool a_transposed = false;
    bool b_transposed = false;
};

/// Fixpipe with a conversion (PIPE_FIX, timed as the L0C -> GM copy): m rows of n results
/// from L0C (row-major) to GM rows `dst_pitch` bytes apart (0: dense), converted by `quant`
/// (base/cube_types.h) with `quant_word` (scalar modes) or n uint64 words in L1 (`scales`,
/// per-channel modes); `relu` makes negative results 0.
struct FixpipeCall {
    CubeOperand src, dst, scales;
    std::uint32_t m = 0, n = 0;
    std::uint64_t dst_pitch = 0;
    FixQuant quant = FixQuant::None;
    bool relu = false;
    std::uint64_t quant_word = 0;
};

/// LoadData 2D as one instruction (PIPE_MTE1, timed as the strided L1 -> L0 copy):
/// `fractals` 512-byte fractals from L1 (`src`, each next one `src_pitch` bytes further; 0
/// reads the same one again) to L0A / L0B (`dst`, `dst_pitch` bytes apart); `transpose`
/// (ifTranspose) transposes each, 16 x 16 elements of 16 bits.
struct LoadFractalsCall {
    CubeOperand src, dst;
    std::uint32_t fractals = 0;
    std::uint64_t src_pitch = 0, dst_pitch = 512;
    bool transpose = false;
};

}  // namespace npusim
