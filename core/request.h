// One kernel API call as the core receives it: the Block API (core/block.h) turns each typed
// call into a Request; the decoder (core/instruction_decoder.h) checks it and turns it into a
// Transaction.
#pragma once

#include <cstdint>
#include <source_location>

#include "base/cube_layout.h"
#include "base/img2col.h"
#include "base/tensor.h"
#include "base/transaction.h"
#include "base/types.h"

namespace npusim {

/// An operand as the core sees it: space, byte address, element count, element type.
struct Operand {
    MemSpace space = MemSpace::UB;
    std::uint64_t address = 0;
    std::uint64_t count = 0;
    DType dtype = DType::F32;
};

/// The operand a local (UB, L1, L0A/B/C) or global tensor names: all of its elements.
template <Element T>
Operand local_operand(const LocalTensor<T>& t) {
    return {t.space, t.address, t.count, dtype_of<T>};
}
template <Element T>
Operand global_operand(const GlobalTensor<T>& t) {
    return {MemSpace::GM, t.address, t.count, dtype_of<T>};
}

/// A DataCopyPad row (Block::pad_dma): an unaligned length, and padding around the data.
struct PadRow {
    bool unaligned = false;  // the length need not be a multiple of 32 bytes
    std::uint32_t left_bytes = 0;
    std::uint32_t right_bytes = 0;
    bool fill = false;  // write pad_value into the padding (else the padding is not written)
    std::uint64_t pad_value = 0;  // the element's bit pattern
};

/// One API call, type-erased for the core.
struct Request {
    Op op = Op::Copy;
    Operand dst;
    Operand src0;
    Operand src1;
    Operand mask;  // Select / SelectScalar: the bit mask (read first)
    Operand src2;  // MrgSort: the third and fourth queues
    Operand src3;
    std::uint64_t count = 0;  // elements processed
    std::uint32_t mode = 0;   // Cast: RoundMode; Compare: CmpMode; GatherMask: pattern 1-7
    // GroupReduce*: source elements per result; GatherMask: elements kept; MrgSort: queues
    std::uint32_t group = 0;
    double scalar = 0.0;
    std::uint32_t m = 0, n = 0, k = 0;
    bool accumulate = false;
    Operand bias;  // Mmad: the bias row when has_bias (Transaction::bias)
    bool has_bias = false;
    bool a_transposed = false, b_transposed = false;  // Mmad (Transaction::a_transposed)
    // Fixpipe: mode the FixQuant, src1 the per-channel scale words (uint64, L1), m x n the
    // result rows read from L0C, dst_pitch the GM row pitch in bytes.
    bool relu = false;
    std::uint64_t quant_word = 0;
    Pipe flag_src = Pipe::S;
    Pipe flag_dst = Pipe::S;
    std::uint32_t event_id = 0;
    Pipe barrier_pipe = Pipe::ALL;
    bool inserted = false;  // Transaction::inserted: sync the Ascend C layer added
    // The block's atomic mode when the call was made (Block::set_atomic); the decoder keeps
    // it only for copies to GM on MTE3 or FIX.
    AtomicOp atomic = AtomicOp::None;
    DType atomic_dtype = DType::F32;
    std::source_location atomic_where;  // the set_atomic call, for error messages
    bool dma_continues = false;         // Transaction::dma_continues (Block::continue_dma)
    bool l2_bypass = false;             // Transaction::l2_bypass (Block::bypass_l2)
    PadRow pad;                         // Block::pad_dma
    // A strided copy (Block::dma_rows): `rows` rows of `count` elements, the rows' starts
    // src_pitch / dst_pitch bytes apart.
    std::uint32_t rows = 1;
    std::uint64_t src_pitch = 0;
    std::uint64_t dst_pitch = 0;
    // Mmad, Fixpipe: the operands' layout (Transaction::layout); a Copy with Fractal is the
    // ND -> NZ copy (rows x count elements, dst_pitch the bytes between column blocks).
    CubeLayout layout = CubeLayout::RowMajor;
    std::uint64_t block_stride = 0;  // Fixpipe, Fractal: L0C elements between column blocks;
                                     // Mmad: elements between L0A's row blocks (0: packed)
    Img2Col img2col;                 // LoadImg2Col (pad_value: PadRow::pad_value)
};

using Loc = std::source_location;

}  // namespace npusim
