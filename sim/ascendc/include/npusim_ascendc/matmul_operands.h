// The Matmul API's operands (npusim_ascendc/matmul.h): a matrix in GM, an AIV object's
// state as its requests carry it (npusim_ascendc/matmul_mix.h), and the GM -> L1 tile load.
#pragma once

#include <cstdint>
#include <string>

#include "npusim_ascendc/data_copy.h"

namespace npusim::ascendc {

/// A matrix operand in GM as the Matmul object reads it.
struct MatmulOperand {
    std::uint64_t address = 0;
    std::uint64_t count = 0;
    bool transposed = false;
    bool set = false;
};

/// SetUserDefInfo's and SetSelfDefineData's values, which the copy callbacks get.
struct MatmulUserData {
    std::uint64_t tiling = 0, data = 0;
};

/// What an AIV's Matmul object sends with each request: its operands and shapes.
struct MatmulState {
    MatmulOperand a, b, bias;
    MatmulUserData user;
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t org_m = 0, org_n = 0, org_ka = 0, org_kb = 0, org_kc = 0;
};

/// Where C goes in a UB tensor: `rows` rows of `cols` elements from element `offset`, rows
/// `stride` elements apart.
struct UbPlace {
    std::uint64_t rows = 0, cols = 0, offset = 0, stride = 0;
};

/// The row-major tile [rows x cols] of a GM matrix (ND with row stride `stride` elements, or
/// NZ: 16-column blocks of `padded_rows` rows each) at (row0, col0) into an L1 tile.
template <class T>
void load_tile_to_l1(const npusim::LocalTensor<T>& l1, const MatmulOperand& gm, bool nz,
                     std::uint64_t stride, std::uint64_t padded_rows, std::uint64_t row0,
                     std::uint64_t col0, std::uint64_t rows, std::uint64_t cols, const Loc& loc) {
    constexpr std::uint64_t c0 = 32 / sizeof(T);
    if (cols % c0 != 0) {
        throw KernelError(EventIds::where(loc) + "Matmul: a tile row of " + std::to_string(cols) +
                          " elements is not a multiple of " + std::to_string(c0) +
                          " (tails must be whole 32-byte blocks in npusim yet)");
    }
    GlobalView<T> src;
    src.count = gm.count;
    if (!nz) {
        src.address = gm.address + (row0 * stride + col0) * sizeof(T);
        copy_blocks<T>(l1, src, rows, cols * sizeof(T), (stride - cols) * sizeof(T), 0, loc);
        return;
    }
    if (col0 % c0 != 0) {
        throw KernelError(EventIds::where(loc) + "Matmul: an NZ tile must start on a column block");
    }
    // NZ: column block j holds padded_rows rows of c0 elements; one DMA per block, the blocks
    // after the first timed as further bursts of one instruction.
    for (std::uint64_t j = 0; j < cols / c0; ++j) {
        src.address = gm.address + ((col0 / c0 + j) * padded_rows + row0) * c0 * sizeof(T);
        npusim::LocalTensor<T> dst = l1;
        dst.address += j * c0 * sizeof(T);
        if (j > 0) context(loc).block().continue_dma();
        copy_blocks<T>(dst, src, rows, c0 * sizeof(T), 0, (cols - c0) * sizeof(T), loc);
    }
}

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return (a + b - 1) / b;
}

}  // namespace npusim::ascendc
