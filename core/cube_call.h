// The argument structs of the cube unit's calls (Block::mmad, Block::fixpipe,
// Block::load_fractals): one struct per instruction, so that front ends (sim/ascendc) fill
// in only the fields their API has.
#pragma once

#include <cstdint>

#include "base/cube_layout.h"
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
/// result type, n elements, in the bias table BT) initialises every
/// row of c instead of zero (not with accumulate). `layout` RowMajor: a m x k, b k x n, c m x n
/// dense row-major (a held as k x m and b as n x k when transposed); Fractal: the hardware's
/// (base/cube_layout.h): a ZZ (ND when m is 1: the GEMV form), b ZN, c NZ, each in whole
/// fractals; c's elements outside m x n are written 0 (kept when accumulating).
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
    CubeLayout layout = CubeLayout::RowMajor;
    /// Fractal: elements from one row block of a (ZZ) to the next; 0: packed (k's fractals).
    /// The vendor's kDirectionAlign (fp32 a with k padded to 16) sets it.
    std::uint64_t a_block_stride = 0;
};

/// Fixpipe (PIPE_FIX, timed as the L0C -> GM copy): m rows of n results from L0C to GM rows
/// `dst_pitch` bytes apart (0: dense), converted by `quant` (base/cube_types.h) with
/// `quant_word` (scalar modes) or n uint64 words in L1 (`scales`, per-channel modes); `relu`
/// makes negative results 0. `layout` RowMajor: L0C holds m x n row-major; Fractal: NZ with
/// 16 x 16 fractals, its column blocks `src_block_stride` elements apart (0: 16 x m rounded up
/// to 16). Without a conversion it is the plain copy (also under SetAtomic).
struct FixpipeCall {
    CubeOperand src, dst, scales;
    std::uint32_t m = 0, n = 0;
    std::uint64_t dst_pitch = 0;
    FixQuant quant = FixQuant::None;
    bool relu = false;
    std::uint64_t quant_word = 0;
    CubeLayout layout = CubeLayout::RowMajor;
    std::uint64_t src_block_stride = 0;
};

/// LoadData 2D as one instruction (PIPE_MTE1, timed as the strided L1 -> L0 copy):
/// `fractals` 512-byte fractals from L1 (`src`, each next one `src_pitch` bytes further; 0
/// reads the same one again) to L0A / L0B (`dst`, `dst_pitch` bytes apart); `transpose`
/// (ifTranspose) transposes each, 16 x 16 elements of 16 bits. `square_half` 0 / 1
/// (LoadDataWithTranspose of 8- and 32-bit types): each repeat reads a square of two fractals
/// (1024 bytes at `src_pitch`) and writes that fractal of its transpose. `img2col`: LoadData
/// 3D v2 instead, the window `geometry` of the feature map at `src` into `dst` (ZZ, its
/// transpose as ZZ, or ZN into L0B), padding reading `pad_value` (the element's bits).
struct LoadFractalsCall {
    CubeOperand src, dst;
    std::uint32_t fractals = 0;
    std::uint64_t src_pitch = 0, dst_pitch = 512;
    bool transpose = false;
    int square_half = -1;
    bool img2col = false;
    Img2Col geometry;
    std::uint64_t pad_value = 0;
};

/// InitConstValue as one instruction: `repeats` rows of `blocks` blocks (32 bytes in L1 on
/// MTE2, 512 bytes in L0A / L0B on MTE1) set to `value_bits` (one element's bits, `dst`'s
/// type), each next row `gap` blocks after the previous one's end.
struct InitConstCall {
    CubeOperand dst;
    std::uint32_t repeats = 0, blocks = 0, gap = 0;
    std::uint64_t value_bits = 0;
};

/// DataCopy GM -> L1 with the ND -> NZ conversion (one DMA instruction on MTE2, timed as the
/// `rows` row copy it reads): `rows` rows of `cols` elements from `src` (rows `src_pitch`
/// bytes apart) land in `dst` as NZ: C0 columns (32 bytes) a column block, its rows 32 bytes
/// apart, the column blocks `dst_block_pitch` bytes apart; a last partial block is padded with
/// zeros to 32 bytes (the cce reference, copy_gm_to_cbuf_multi_nd2nz).
struct Nd2NzCall {
    CubeOperand src, dst;
    std::uint32_t rows = 0, cols = 0;
    std::uint64_t src_pitch = 0, dst_block_pitch = 0;
};

}  // namespace npusim
