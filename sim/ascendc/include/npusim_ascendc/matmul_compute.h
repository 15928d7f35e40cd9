// One output tile of npusim's Matmul (npusim_ascendc/matmul.h) on the cube core: per K step
// GM -> A1 / B1 (MTE2), A1 -> A2 as ZZ and B1 -> B2 as ZN (MTE1), Mmad into L0C (M), through
// the object's queues, so each producer is ordered before its consumer and each reuse after
// the last reader (docs/ascendc.md, "The Matmul API"). The tile lands in the object's CO1
// queue (enqueued for GetTensorC), or, with C in CO1, in the user's L0C tensor, which the
// user's own CO1 queue orders before its Fixpipe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "npusim_ascendc/matmul_l0.h"
#include "npusim_ascendc/matmul_tile.h"

namespace npusim::ascendc {

/// The tile (mm.m_tile_m, mm.m_tile_n) of `mm` (a Matmul, whose friend this is): all K steps
/// (or isPartialOutput's one, mm.m_k_step), fresh (with the bias row) or onto the tile L0C
/// holds (`accumulate_onto_c`, Iterate's enPartialSum).
template <class MM>
void matmul_compute_tile(MM& mm, bool accumulate_onto_c, const Loc& loc) {
    using SrcT = typename MM::SrcT;
    using L0cT = typename MM::L0cT;
    const std::uint64_t rows = mm.cur_m(), cols = mm.cur_n();
    const std::uint64_t m0 = mm.m_tile_m * mm.m_tiling.baseM, n0 = mm.m_tile_n * mm.m_tiling.baseN;
    const std::uint64_t k_steps = ceil_div(mm.m_k, mm.m_tiling.baseK);
    // The bias row (with enPartialSum the tile has it already): GM -> C1 -> C2.
    const bool bias = mm.m_bias.set && mm.m_bias_on && !accumulate_onto_c && mm.m_k_step < 0;
    AscendC::LocalTensor<L0cT> bias2;
    if (bias) bias2 = load_bias<L0cT>(mm.l0().bias1, mm.l0().bias2, mm.m_bias, n0, cols, loc);
    // enPartialSum: onto the tile L0C holds (one Iterate left it there, or a GetTensorC
    // took it: the buffer keeps its values); otherwise a fresh tile.
    MatmulL0& l0s = mm.l0();
    if (l0s.c_holder != nullptr && l0s.c_holder != &mm) {
        mm.fail(
            "Iterate while another isA2B2Shared object's tile is in the shared L0C (take it "
            "with GetTensorC first)",
            loc);
    }
    if (mm.m_l0_shared && accumulate_onto_c && l0s.c_owner != &mm) {
        mm.fail("Iterate(enPartialSum) after another isA2B2Shared object used the shared L0C", loc);
    }
    l0s.c_owner = &mm;
    AscendC::LocalTensor<L0cT> c;
    if (mm.m_user_c != nullptr) {
        c = *mm.m_user_c;
        if (c.GetSize() < align16(rows) * align16(cols))
            mm.fail("an L0C tensor of " + std::to_string(c.GetSize()) + " elements for a tile of " +
                        std::to_string(rows) + " x " + std::to_string(cols),
                    loc);
    } else if (mm.m_c_held) {
        c = mm.l0().co1.template DeQue<L0cT>(loc);
        mm.m_c_held = false;
        if (!accumulate_onto_c) {
            mm.l0().co1.FreeTensor(c, loc);
            c = mm.l0().co1.template AllocTensor<L0cT>(loc);
        }
    } else {
        c = mm.l0().co1.template AllocTensor<L0cT>(loc);
    }
    // isPartialOutput: the one K step m_k_step (fresh, no bias); otherwise all of them.
    const std::uint64_t first = mm.m_k_step < 0 ? 0 : std::uint64_t(mm.m_k_step);
    const std::uint64_t last = mm.m_k_step < 0 ? k_steps : first + 1;
    for (std::uint64_t step = first; step < last; ++step) {
        const std::uint64_t k0 = step * mm.m_tiling.baseK;
        const std::uint64_t depth = std::min<std::uint64_t>(mm.m_tiling.baseK, mm.m_k - k0);
        const MatmulState state = mm.snapshot();
        const MatmulStep at{rows, cols, depth, m0, n0, k0};
        const MatmulCopyIn user = copy_in_of<typename MM::Callbacks>(mm.m_tiling);
        // A in TSCM: read in place (the kernel's NZ copy of this core's A, column blocks of
        // a_rows rows); otherwise a tile of the object's A1 queue.
        AscendC::LocalTensor<SrcT> a1;
        std::uint64_t a_rows = rows == 1 ? 1 : align16(rows);
        if constexpr (MM::kATscm) {
            a_rows = align16(mm.m_m);
            const std::uint64_t at_elem = (k0 / 16 * a_rows + m0) * 16;
            const std::uint64_t at_end =
                at_elem + ((align16(depth) / 16 - 1) * a_rows + align16(rows)) * 16;
            if (at_end > mm.m_a_l1.GetSize()) {
                mm.fail("A in TSCM: the tensor of " + std::to_string(mm.m_a_l1.GetSize()) +
                            " elements does not hold this core's A (NZ, " + std::to_string(a_rows) +
                            " rows a column block)",
                        loc);
            }
            a1 = mm.m_a_l1[at_elem];
        } else {
            a1 = mm.m_a1.template AllocTensor<SrcT>(loc);
        }
        AscendC::LocalTensor<SrcT> b1 = mm.m_b1.template AllocTensor<SrcT>(loc);
        if constexpr (!MM::kATscm)
            load_a_tile_to_l1<SrcT>(a1, state, MM::kANz, mm.fractal(), at, loc, user);
        load_b_tile_to_l1<SrcT>(b1, state, MM::kBNz, mm.fractal(), at, loc, user);
        if constexpr (!MM::kATscm) mm.m_a1.EnQue(a1, loc);
        mm.m_b1.EnQue(b1, loc);
        if constexpr (!MM::kATscm) a1 = mm.m_a1.template DeQue<SrcT>(loc);
        b1 = mm.m_b1.template DeQue<SrcT>(loc);
        AscendC::LocalTensor<SrcT> a2 = mm.l0().a2.template AllocTensor<SrcT>(loc);
        AscendC::LocalTensor<SrcT> b2 = mm.l0().b2.template AllocTensor<SrcT>(loc);
        if (mm.fractal()) {
            load_a_zz(a2, a1, rows, depth, a_rows, mm.m_a.transposed, loc);
            load_b_zn(b2, b1, depth, cols, mm.m_b.transposed, loc);
        } else {
            copy_elements<SrcT>(a2.native(), a1.native(), rows * depth, loc);
            copy_elements<SrcT>(b2.native(), b1.native(), depth * cols, loc);
        }
        mm.l0().a2.EnQue(a2, loc);
        mm.l0().b2.EnQue(b2, loc);
        if constexpr (!MM::kATscm) mm.m_a1.FreeTensor(a1, loc);
        mm.m_b1.FreeTensor(b1, loc);
        a2 = mm.l0().a2.template DeQue<SrcT>(loc);
        b2 = mm.l0().b2.template DeQue<SrcT>(loc);
        const bool with_bias = step == first && bias && !accumulate_onto_c;
        mmad_tile<L0cT, SrcT>(c, a2, b2, rows, cols, depth, mm.fractal(), mm.m_a.transposed,
                              mm.m_b.transposed, step > first || accumulate_onto_c,
                              with_bias ? &bias2 : nullptr, loc);
        mm.l0().a2.FreeTensor(a2, loc);
        mm.l0().b2.FreeTensor(b2, loc);
    }
    if (bias) mm.l0().bias2.FreeTensor(bias2, loc);
    if (mm.m_user_c != nullptr) return;
    mm.l0().co1.EnQue(c, loc);
    mm.m_c_held = true;
    mm.l0().c_holder = &mm;
}

}  // namespace npusim::ascendc
