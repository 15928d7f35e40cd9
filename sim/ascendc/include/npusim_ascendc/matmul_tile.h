// The Matmul API's tile moves in the hardware's cube layouts (docs/ascendc.md, "Cube layouts";
// base/cube_layout.h), each a basic-API instruction as a hand-written kernel issues it:
//   GM -> L1 (MTE2): an ND matrix through DataCopy with Nd2NzParams (NZ in L1: column blocks
//     of C0 = 32 bytes, rows padded to 16); an NZ matrix copied as NZ (one strided copy of the
//     tile's rows of each column block). A GEMV's A (one row) lands as ND.
//   L1 -> L0A (MTE1): A as ZZ, LoadData per 16-row block or per column block (the fewer); a
//     transposed A (held K x M) with ifTranspose. L1 -> L0B: B as ZN, LoadData with
//     ifTranspose per k block or per column block; a transposed B (held N x K) is ZN in L1
//     already (one dense load).
//   L0C -> GM (FIX): Fixpipe NZ -> ND (with the conversion to C's type), or NZ -> NZ for an NZ
//     C of L0C's type.
// 2D LoadData transposes 16-bit fractals only (A2); a transposed A or a non-transposed B of
// fp32 / int8 needs LoadDataWithTranspose's squares of two fractals, not modelled yet, so
// those tiles move row-major inside (load_tile_to_l1; same products, docs/ascendc.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "npusim_ascendc/cube.h"
#include "npusim_ascendc/data_copy.h"
#include "npusim_ascendc/matmul_mix.h"
#include "npusim_ascendc/matmul_operands.h"

namespace npusim::ascendc {

/// Whether a tile of `T` inputs moves in the fractal layouts (see above).
template <class T>
constexpr bool matmul_fractal(bool a_transposed, bool b_transposed) {
    return sizeof(T) == 2 || (!a_transposed && b_transposed);
}

inline std::uint64_t align16(std::uint64_t v) {
    return (v + 15) / 16 * 16;
}

/// GM -> L1: the [rows x cols] tile at (row0, col0) of a GM matrix (ND with rows `stride`
/// elements apart, or NZ with column blocks of `gm_rows` rows) as NZ in L1 with column blocks
/// of `l1_rows` rows (1: ND, the row of a GEMV).
template <class T>
void load_nz_tile(const AscendC::LocalTensor<T>& l1, const MatmulOperand& gm, bool gm_nz,
                  std::uint64_t stride, std::uint64_t gm_rows, std::uint64_t row0,
                  std::uint64_t col0, std::uint64_t rows, std::uint64_t cols, std::uint64_t l1_rows,
                  const Loc& loc) {
    constexpr std::uint64_t c0 = 32 / sizeof(T);
    const auto fail = [&](const std::string& what) {
        throw KernelError(EventIds::where(loc) + "Matmul: " + what);
    };
    if (!gm_nz) {
        if (stride > 65535 || rows > 65535 || cols > 65535 || l1_rows > 65535) {
            fail("a row of " + std::to_string(stride) +
                 " elements does not fit Nd2NzParams (16 bits) yet");
        }
        const std::uint64_t offset = row0 * stride + col0;
        AscendC::GlobalTensor<T> src;
        src.SetGlobalBuffer(npusim::ascendc::gm_pointer<T>(gm.address + offset * sizeof(T)),
                            gm.count > offset ? gm.count - offset : 0);
        AscendC::Nd2NzParams p;
        p.ndNum = 1;
        p.nValue = static_cast<std::uint16_t>(rows);
        p.dValue = static_cast<std::uint16_t>(cols);
        p.srcDValue = static_cast<std::uint16_t>(stride);
        p.dstNzC0Stride = static_cast<std::uint16_t>(l1_rows);
        p.dstNzNStride = 1;
        AscendC::DataCopy(l1, src, p, loc);
        return;
    }
    if (col0 % c0 != 0) {
        fail("an NZ tile from column " + std::to_string(col0) +
             " does not start a column block of " + std::to_string(c0));
    }
    // Whole column blocks: an NZ matrix in GM holds its last block padded.
    GlobalView<T> src;
    src.address = gm.address + ((col0 / c0) * gm_rows + row0) * c0 * sizeof(T);
    src.count = gm.count;
    copy_blocks<T>(l1.native(), src, (cols + c0 - 1) / c0, rows * 32, (gm_rows - rows) * 32,
                   (l1_rows - rows) * 32, loc);
}

/// Where a K step's tiles lie: C's tile [rows x cols] at (m0, n0), K from k0 for depth.
struct MatmulStep {
    std::uint64_t rows = 0, cols = 0, depth = 0, m0 = 0, n0 = 0, k0 = 0;
};

/// GM -> A1 / B1 (MTE2) for one K step of `s`'s operands: NZ in L1 (`fractal`; a transposed
/// operand lands as its transpose's NZ), or row-major.
/// MatmulCallBackFunc's CopyA1 / CopyB1 (null: the Matmul's own copy) and the base tile sizes
/// that give their tile indices.
struct MatmulCopyIn {
    using Fn = void (*)(const AscendC::LocalTensor<std::int8_t>&, const __gm__ void*, int, int, int,
                        int, const std::uint64_t, const std::uint64_t);
    Fn a = nullptr, b = nullptr;
    std::uint64_t base_m = 1, base_n = 1, base_k = 1;
};
template <class CB>
MatmulCopyIn copy_in_of(const TCubeTiling& t) {
    return {CB::npusim_copy_a1, CB::npusim_copy_b1, std::uint64_t(t.baseM), std::uint64_t(t.baseN),
            std::uint64_t(t.baseK)};
}

/// A callback's tile: it fills `l1` (as bytes) with the [rows x cols] tile (row, col) in base
/// tiles, in the layout the Matmul's own copy gives (NZ, rows padded to 16).
template <class T>
void copy_in_by_user(MatmulCopyIn::Fn fn, const AscendC::LocalTensor<T>& l1,
                     const MatmulOperand& gm, const MatmulUserData& user, std::uint64_t row,
                     std::uint64_t col, std::uint64_t rows, std::uint64_t cols, const Loc& loc) {
    if (gm.transposed || sizeof(T) != 2 || rows == 1) {
        throw KernelError(EventIds::where(loc) +
                          "Matmul: a MatmulCallBackFunc copy of a transposed or non-16-bit "
                          "operand, or of a one-row tile, is not supported yet");
    }
    fn(l1.template ReinterpretCast<std::int8_t>(),
       static_cast<const __gm__ void*>(gm_pointer<T>(gm.address, loc)), static_cast<int>(row),
       static_cast<int>(col), static_cast<int>(rows), static_cast<int>(cols), user.tiling,
       user.data);
}

/// A's tile: rows x depth (transposed: depth x rows of the K x M matrix), by the user's CopyA1
/// or the Matmul's own copy.
template <class T>
void load_a_tile_to_l1(const AscendC::LocalTensor<T>& a1, const MatmulState& s, bool a_nz,
                       bool fractal, const MatmulStep& t, const Loc& loc,
                       const MatmulCopyIn& user = {}) {
    const std::uint64_t org_m = s.org_m, ka = s.org_ka;
    if (user.a != nullptr) {
        copy_in_by_user(user.a, a1, s.a, s.user, t.m0 / user.base_m, t.k0 / user.base_k, t.rows,
                        t.depth, loc);
    } else if (!fractal) {
        if (s.a.transposed) {
            load_tile_to_l1<T>(a1.native(), s.a, a_nz, org_m, align16(ka), t.k0, t.m0, t.depth,
                               t.rows, loc);
        } else {
            load_tile_to_l1<T>(a1.native(), s.a, a_nz, ka, align16(org_m), t.m0, t.k0, t.rows,
                               t.depth, loc);
        }
    } else if (s.a.transposed) {
        if (t.rows == 1) {
            throw KernelError(EventIds::where(loc) +
                              "Matmul: a transposed A with a tile of one row is not supported yet");
        }
        load_nz_tile(a1, s.a, a_nz, org_m, align16(ka), t.k0, t.m0, t.depth, t.rows,
                     align16(t.depth), loc);
    } else {
        load_nz_tile(a1, s.a, a_nz, ka, align16(org_m), t.m0, t.k0, t.rows, t.depth,
                     t.rows == 1 ? 1 : align16(t.rows), loc);
    }
}

/// B's tile: depth x cols (transposed: cols x depth of the N x K matrix), likewise.
template <class T>
void load_b_tile_to_l1(const AscendC::LocalTensor<T>& b1, const MatmulState& s, bool b_nz,
                       bool fractal, const MatmulStep& t, const Loc& loc,
                       const MatmulCopyIn& user = {}) {
    const std::uint64_t org_n = s.org_n, kb = s.org_kb;
    if (user.b != nullptr) {
        copy_in_by_user(user.b, b1, s.b, s.user, t.k0 / user.base_k, t.n0 / user.base_n, t.depth,
                        t.cols, loc);
    } else if (!fractal) {
        if (s.b.transposed) {
            load_tile_to_l1<T>(b1.native(), s.b, b_nz, kb, align16(org_n), t.n0, t.k0, t.cols,
                               t.depth, loc);
        } else {
            load_tile_to_l1<T>(b1.native(), s.b, b_nz, org_n, align16(kb), t.k0, t.n0, t.depth,
                               t.cols, loc);
        }
    } else if (s.b.transposed) {
        load_nz_tile(b1, s.b, b_nz, kb, align16(org_n), t.n0, t.k0, t.cols, t.depth,
                     align16(t.cols), loc);
    } else {
        load_nz_tile(b1, s.b, b_nz, org_n, align16(kb), t.k0, t.n0, t.depth, t.cols,
                     align16(t.depth), loc);
    }
}

/// The bias row of the tile from column n0 (`cols` elements): GM -> C1 (MTE2; a row that is
/// not whole 32-byte blocks comes in as DataCopyPad does, its block padded in L1) -> C2 (MTE1,
/// whole blocks), through the queues `c1` and `c2`; returns the C2 tensor (DeQue'd).
template <class T, class Q1, class Q2>
AscendC::LocalTensor<T> load_bias(Q1& c1, Q2& c2, const MatmulOperand& gm, std::uint64_t n0,
                                  std::uint64_t cols, const Loc& loc) {
    AscendC::LocalTensor<T> bias1 = c1.template AllocTensor<T>(loc);
    GlobalView<T> src;
    src.address = gm.address + n0 * sizeof(T);
    src.count = gm.count;
    const auto pad = static_cast<std::uint32_t>(align32(cols * sizeof(T)) - cols * sizeof(T));
    copy_elements<T>(bias1.native(), src, cols, loc, npusim::PadRow{pad != 0, 0, pad});
    c1.EnQue(bias1, loc);
    bias1 = c1.template DeQue<T>(loc);
    AscendC::LocalTensor<T> bias2 = c2.template AllocTensor<T>(loc);
    copy_elements<T>(bias2.native(), bias1.native(), cols + pad / sizeof(T), loc);
    c2.EnQue(bias2, loc);
    c1.FreeTensor(bias1, loc);
    return c2.template DeQue<T>(loc);
}

/// LoadData2DParams of `repeats` fractals, `src_stride` fractals apart, `dst_gap` between.
inline AscendC::LoadData2DParams fractal_load(std::uint64_t repeats, std::uint64_t src_stride,
                                              std::uint64_t dst_gap, bool transpose) {
    AscendC::LoadData2DParams p;
    p.repeatTimes = static_cast<std::uint8_t>(repeats);
    p.srcStride = static_cast<std::uint16_t>(src_stride);
    p.dstGap = static_cast<std::uint16_t>(dst_gap);
    p.ifTranspose = transpose;
    return p;
}

/// `count` fractals, dense in L1 and L0 (each transposed when `transpose`): one LoadData, or
/// one per `run` fractals when more than 255.
template <class T>
void load_dense(const AscendC::LocalTensor<T>& l0, const AscendC::LocalTensor<T>& l1,
                std::uint64_t count, std::uint64_t run, bool transpose, const Loc& loc) {
    constexpr std::uint64_t frac = 512 / sizeof(T);
    if (count <= 255) {
        AscendC::LoadData(l0, l1, fractal_load(count, 1, 0, transpose), loc);
        return;
    }
    for (std::uint64_t i = 0; i < count; i += run)
        AscendC::LoadData(l0[i * frac], l1[i * frac], fractal_load(run, 1, 0, transpose), loc);
}

/// L1 -> L0A: A [rows x depth] as ZZ. `a1` holds A as NZ with `l1_rows` rows a column block,
/// or (transposed) A^T [depth x rows] as NZ with `depth` rows a block (16-bit types).
template <class T>
void load_a_zz(const AscendC::LocalTensor<T>& a2, const AscendC::LocalTensor<T>& a1,
               std::uint64_t rows, std::uint64_t depth, std::uint64_t l1_rows, bool transposed,
               const Loc& loc) {
    constexpr std::uint64_t c0 = 32 / sizeof(T), frac = 512 / sizeof(T);
    const std::uint64_t m1 = (rows + 15) / 16, k1 = (depth + c0 - 1) / c0;
    if (transposed) {
        // A^T's fractal (kb, mb), transposed, is ZZ's fractal (mb, kb): the same index.
        load_dense(a2, a1, m1 * k1, k1, true, loc);
        return;
    }
    if (rows == 1) {  // a GEMV: the cube reads A as ND
        copy_elements<T>(a2.native(), a1.native(), depth, loc);
        return;
    }
    if (m1 <= k1) {
        for (std::uint64_t mb = 0; mb < m1; ++mb)
            AscendC::LoadData(a2[mb * k1 * frac], a1[mb * frac],
                              fractal_load(k1, l1_rows / 16, 0, false), loc);
    } else {
        for (std::uint64_t kb = 0; kb < k1; ++kb)
            AscendC::LoadData(a2[kb * frac], a1[kb * l1_rows * c0],
                              fractal_load(m1, 1, k1 - 1, false), loc);
    }
}

/// L1 -> L0B: B [depth x cols] as ZN. `b1` holds B as NZ with `depth` rows a column block
/// (16-bit types, each fractal transposed), or (transposed) B^T [cols x depth] as NZ with
/// `l1_rows` rows a block, which is ZN already.
template <class T>
void load_b_zn(const AscendC::LocalTensor<T>& b2, const AscendC::LocalTensor<T>& b1,
               std::uint64_t depth, std::uint64_t cols, bool transposed, const Loc& loc) {
    constexpr std::uint64_t c0 = 32 / sizeof(T), frac = 512 / sizeof(T);
    const std::uint64_t k1 = (depth + c0 - 1) / c0, n1 = (cols + 15) / 16;
    if (transposed) {
        load_dense(b2, b1, k1 * n1, n1, false, loc);
        return;
    }
    // B's fractal (kb, nb) at nb * k1 + kb in L1, transposed into ZN's kb * n1 + nb.
    if (k1 <= n1) {
        for (std::uint64_t kb = 0; kb < k1; ++kb)
            AscendC::LoadData(b2[kb * n1 * frac], b1[kb * frac], fractal_load(n1, k1, 0, true),
                              loc);
    } else {
        for (std::uint64_t nb = 0; nb < n1; ++nb)
            AscendC::LoadData(b2[nb * frac], b1[nb * k1 * frac], fractal_load(k1, 1, n1 - 1, true),
                              loc);
    }
}

/// L0C (NZ, column blocks of align16(rows) rows) -> GM as NZ of L0C's type: each of the
/// tile's `c0`-column blocks to its block of C (`gm_rows` rows a block), rows whole. `c0` 16:
/// L0C's blocks as they are; 8 (isEnableChannelSplit, float): each 16-column block split in
/// two channels of 8 (32 bytes a row), timed as one instruction's bursts.
template <class T>
void write_nz_tile(const GlobalView<T>& dst, const AscendC::LocalTensor<T>& c, std::uint64_t rows,
                   std::uint64_t cols, std::uint64_t gm_rows, const Loc& loc,
                   std::uint64_t c0 = 16) {
    if (cols % c0 != 0) {
        throw KernelError(EventIds::where(loc) + "Matmul: an NZ C tile of " + std::to_string(cols) +
                          " columns is not whole blocks of " + std::to_string(c0));
    }
    constexpr std::uint64_t row = 16 * sizeof(T);
    if (c0 == 8) {
        const std::uint64_t half = row / 2, l0c_block = align16(rows) * 16;
        for (std::uint64_t j = 0; j < cols / 8; ++j) {
            GlobalView<T> to = dst;
            to.address += j * gm_rows * half;
            if (j > 0) context(loc).block().continue_dma();
            copy_blocks<T>(to, c[(j / 2) * l0c_block + (j % 2) * 8].native(), rows, half, half, 0,
                           loc);
        }
        return;
    }
    copy_blocks<T>(dst, c.native(), cols / 16, rows * row, (align16(rows) - rows) * row,
                   (gm_rows - rows) * row, loc);
}

}  // namespace npusim::ascendc

namespace npusim::ascendc {

/// L0C -> GM as ND: the [rows x cols] tile at `dst` (rows `stride` elements apart), converted
/// to D by `quant` on the way: one Fixpipe reading L0C as NZ (`fractal`: column blocks
/// align16(rows) rows apart) or row-major.
template <class D, class S>
void write_nd_tile(const AscendC::GlobalTensor<D>& dst, const AscendC::LocalTensor<S>& c,
                   std::uint64_t rows, std::uint64_t cols, std::uint64_t stride, FixQuant quant,
                   bool fractal, const Loc& loc, std::uint64_t deq_scalar = 0,
                   const AscendC::LocalTensor<std::uint64_t>* scales = nullptr) {
    AscendC::FixpipeParamsV220<void> params;
    params.nSize = static_cast<std::uint16_t>(cols);
    params.mSize = static_cast<std::uint16_t>(rows);
    params.srcStride = static_cast<std::uint16_t>(fractal ? align16(rows) : rows);
    params.dstStride = static_cast<std::uint32_t>(stride);
    params.quantPre = static_cast<AscendC::QuantMode_t>(quant);
    params.deqScalar = deq_scalar;
    issue_fixpipe(dst, c, scales, params, AscendC::CFG_ROW_MAJOR, loc,
                  fractal ? CubeLayout::Fractal : CubeLayout::RowMajor);
}

}  // namespace npusim::ascendc

namespace npusim::ascendc {

/// AIV of a mixed kernel: C through this AIV's slot of the system workspace (packed there) into
/// `ub` at `place`; `request(slot, bytes)` sends the request that makes the AIC write the slot.
/// Orders the UB range's earlier readers and writers (vector work, copies out) before the copy
/// in, and the copy in before the vector work that follows.
/// L0C -> GM (FIX): the [rows x cols] tile `c` at GM `address` (`count` elements): ND with rows
/// `stride` elements apart, converted to DstT on the way (`quant`, one Fixpipe; a dequantisation
/// by `deq_scalar` or per column by `scales` in L1), or NZ of L0C's type with column blocks of
/// `stride` rows; with `atomic`, added onto GM (SetAtomicAdd<DstT>).
template <class DstT, bool kCNz, class L0cT, std::uint64_t kNzC0 = 16>
void write_c_tile(const AscendC::LocalTensor<L0cT>& c, std::uint64_t address, std::uint64_t count,
                  std::uint64_t rows, std::uint64_t cols, std::uint64_t stride, bool atomic,
                  npusim::FixQuant quant, bool fractal, const Loc& loc,
                  std::uint64_t deq_scalar = 0,
                  const AscendC::LocalTensor<std::uint64_t>* scales = nullptr) {
    AscendC::GlobalTensor<DstT> gm;
    gm.SetGlobalBuffer(gm_pointer<DstT>(address, loc), count, loc);
    if (atomic) AscendC::SetAtomicAdd<DstT>(loc);
    if constexpr (kCNz) {
        if (!fractal) {
            throw KernelError(EventIds::where(loc) +
                              "Matmul: C in NZ with inputs moved row-major (docs/ascendc.md)");
        }
        write_nz_tile<L0cT>(view_of(gm), c, rows, cols, stride, loc, kNzC0);
    } else {
        write_nd_tile(gm, c, rows, cols, stride, quant, fractal, loc, deq_scalar, scales);
    }
    if (atomic) AscendC::SetAtomicNone(loc);
}

template <class DstT, class Request>
void matmul_to_ub(const AscendC::LocalTensor<DstT>& ub, const UbPlace& place,
                  std::uint64_t workspace, const Loc& loc, Request& request) {
    const std::uint64_t count = place.rows * place.cols;
    const std::uint64_t end = place.offset + (place.rows - 1) * place.stride + place.cols;
    if (ub.GetSize() < end) {
        throw KernelError(EventIds::where(loc) + "Matmul: C of " + std::to_string(end) +
                          " elements into a LocalTensor of " + std::to_string(ub.GetSize()));
    }
    const std::uint64_t bytes = count * sizeof(DstT);
    const std::uint64_t slot = matmul_slot(workspace, bytes, loc);
    request(slot, bytes);
    matmul_wait_reply(loc);
    matmul_order(Pipe::V, Pipe::MTE2, loc);
    matmul_order(Pipe::MTE3, Pipe::MTE2, loc);
    GlobalView<DstT> src;
    src.address = slot;
    src.count = count;
    const AscendC::LocalTensor<DstT> dst = ub[place.offset];
    if (place.stride == place.cols) {
        copy_elements<DstT>(view_of(dst), src, count, loc);
    } else {
        copy_blocks<DstT>(view_of(dst), src, place.rows, place.cols * sizeof(DstT), 0,
                          (place.stride - place.cols) * sizeof(DstT), loc);
    }
    matmul_order(Pipe::MTE2, Pipe::V, loc);
}

}  // namespace npusim::ascendc
