// The Matmul API's batch calls (npusim_ascendc/matmul.h derives from MatmulBatchApi):
// IterateBatch, IterateNBatch, GetBatchTensorC, WaitIterateBatch, SetBatchNum and SetWorkspace.
// A batch is a run of whole single-core matmuls, each the object's own IterateAll (the same
// real cube instructions, tile by tile) on the batch's matrices: MatmulType's LayoutMode says
// where matrix i of A, B and C lies (batch_place below; the vendor's Ascend C reference,
// "IterateBatch", describes the layouts), the TCubeTiling's *LayoutInfo* fields give the axes.
// With batchA != batchB the smaller side is broadcast: batch i of C takes A's matrix
// i / (batchC / batchA) and B's i / (batchC / batchB) (groups of G heads share one matrix).
// From an AIV of a mixed kernel each IterateBatch (each loop of an IterateNBatch) is one request
// the AIC runs whole (npusim_ascendc/matmul_mix.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "npusim_ascendc/matmul_config.h"
#include "npusim_ascendc/matmul_mix.h"
#include "npusim_ascendc/matmul_operands.h"
#include "npusim_ascendc/matmul_static.h"

namespace npusim::ascendc {

/// Where matrix `i` of an operand starts (elements from the tensor's start) and its rows'
/// stride (elements).
struct BatchPlace {
    std::uint64_t offset = 0, stride = 0;
};
/// One operand's axes from the tiling: B, S, N, G, D (C: B, S1, N, G, S2); each matrix is S x D
/// as stored (a transposed operand as its transpose).
struct BatchAxes {
    std::uint64_t b = 0, s = 0, n = 0, g = 0, d = 0;
};

/// BSNGD [B, S, N, G, D]: matrix (b, n, g) rows N*G*D apart; SBNGD [S, B, N, G, D]: rows
/// B*N*G*D apart; BNGS1S2: whole S x D matrices one after another. NORMAL (and NONE): whole
/// matrices of `size` elements (`matrix_stride` apart when not 0), rows `row` apart.
inline BatchPlace batch_place(AscendC::LayoutMode layout, const BatchAxes& x, std::uint64_t i,
                              std::uint64_t size, std::uint64_t row, std::uint64_t matrix_stride) {
    const std::uint64_t ng = x.n * x.g;
    switch (layout) {
        case AscendC::LayoutMode::BSNGD:
            return {(i / ng) * x.s * ng * x.d + (i % ng) * x.d, ng * x.d};
        case AscendC::LayoutMode::SBNGD:
            return {i * x.d, x.b * ng * x.d};
        case AscendC::LayoutMode::BNGS1S2:
            return {i * x.s * x.d, x.d};
        default:
            return {i * (matrix_stride != 0 ? matrix_stride : size), row};
    }
}

/// One IterateBatch (or one loop of an IterateNBatch) as the AIC runs it.
struct MatmulBatchCall {
    std::uint64_t c_address = 0, c_count = 0;
    std::uint32_t batch_a = 1, batch_b = 1, loop = 0;
    std::uint32_t stride_a = 0, stride_b = 0, stride_c = 0;
    bool sequential = false;
    std::uint8_t atomic = 0;
};

template <class Derived, class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE,
          const auto& MM_CFG>
class MatmulBatchApi {
    static constexpr const AscendC::MatmulConfig& CFG = matmul_config_of(MM_CFG);
    using DstT = typename C_TYPE::T;
    using SrcT = typename A_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    static constexpr bool kLayouts = A_TYPE::layout != AscendC::LayoutMode::NONE ||
                                     B_TYPE::layout != AscendC::LayoutMode::NONE ||
                                     C_TYPE::layout != AscendC::LayoutMode::NONE;
    static_assert(!kLayouts || (A_TYPE::format == AscendC::CubeFormat::ND &&
                                B_TYPE::format == AscendC::CubeFormat::ND &&
                                C_TYPE::format == AscendC::CubeFormat::ND),
                  "npusim Ascend C: the Matmul API's batch layouts take ND A, B and C only yet");

public:
    /// batchC = max(batchA, batchB) single-core matmuls into `gm` (at C's layout places, or
    /// packed one after another with enSequentialWrite). sync false: an AIV continues at once
    /// and WaitIterateBatch waits (on the AIC the call runs to its end either way).
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateBatch(const AscendC::GlobalTensor<DstT>& gm, std::uint32_t batchA,
                      std::uint32_t batchB, bool enSequentialWrite,
                      const std::uint32_t matrixStrideA = 0, const std::uint32_t matrixStrideB = 0,
                      const std::uint32_t matrixStrideC = 0, const bool enPartialSum = false,
                      const std::uint8_t enAtomic = 0, Loc loc = Loc::current()) {
        if (enPartialSum) fail("IterateBatch with enPartialSum is not supported yet", loc);
        const GlobalView<DstT> c = view_of(gm);
        run({c.address, c.count, batchA, batchB, 0, matrixStrideA, matrixStrideB, matrixStrideC,
             enSequentialWrite, enAtomic},
            sync, loc);
        if (!sync && self().m_client) m_wait_batch = true;
    }
    /// batchLoop IterateBatch calls, loop j on the matrices after loop j - 1's, C into the
    /// SetWorkspace GM (MatmulConfig::isNBatch). sync false: GetBatchTensorC<false> waits for
    /// one loop each.
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateNBatch(const std::uint32_t batchLoop, std::uint32_t batchA, std::uint32_t batchB,
                       bool enSequentialWrite, const std::uint32_t matrixStrideA = 0,
                       const std::uint32_t matrixStrideB = 0, const std::uint32_t matrixStrideC = 0,
                       Loc loc = Loc::current()) {
        if (!CFG.isNBatch) fail("IterateNBatch needs MatmulConfig::isNBatch true", loc);
        if (m_workspace.address == 0) {
            fail("IterateNBatch writes C to the SetWorkspace GM: call SetWorkspace first", loc);
        }
        for (std::uint32_t j = 0; j < batchLoop; ++j) {
            run({m_workspace.address, m_workspace.count, batchA, batchB, j, matrixStrideA,
                 matrixStrideB, matrixStrideC, enSequentialWrite, 0},
                sync, loc);
            if (!sync) ++m_loops_pending;
        }
    }
    /// After IterateNBatch<false>: waits for its next loop's C (in the SetWorkspace GM).
    template <bool sync = true>
    void GetBatchTensorC(std::uint32_t batchA, std::uint32_t batchB, bool enSequentialWrite = false,
                         Loc loc = Loc::current()) {
        (void)batchA, (void)batchB, (void)enSequentialWrite;
        if (m_loops_pending == 0) fail("GetBatchTensorC without an IterateNBatch<false> loop", loc);
        --m_loops_pending;
        if (self().m_client) matmul_wait_reply(loc);
    }
    /// Waits for an IterateBatch<false> of this AIV.
    void WaitIterateBatch(Loc loc = Loc::current()) {
        if (!m_wait_batch) return;
        m_wait_batch = false;
        matmul_wait_reply(loc);
    }
    /// Batch counts for later calls (accepted; IterateBatch takes its own).
    void SetBatchNum(std::int32_t batchA, std::int32_t batchB) {
        m_batch_a = batchA;
        m_batch_b = batchB;
    }
    /// The GM IterateNBatch writes C into (also the vendor's scratch for other modes).
    void SetWorkspace(GM_ADDR addr, int size, Loc loc = Loc::current()) {
        m_workspace = {addr == nullptr ? 0 : gm_address(addr, loc),
                       static_cast<std::uint64_t>(size > 0 ? size : 0) / sizeof(DstT), false, true};
    }
    template <class T>
    void SetWorkspace(const AscendC::GlobalTensor<T>& gm) {
        const GlobalView<T> v = view_of(gm);
        m_workspace = {v.address, v.count * sizeof(T) / sizeof(DstT), false, true};
    }

    /// AIC: the batches of `call` on the object's current operands (restored afterwards).
    void npusim_serve_batch(const MatmulBatchCall& call, const Loc& loc) {
        Derived& d = self();
        d.check_ready(loc);
        const std::uint32_t batch_c = std::max(call.batch_a, call.batch_b);
        if (call.batch_a == 0 || call.batch_b == 0 || batch_c % call.batch_a != 0 ||
            batch_c % call.batch_b != 0) {
            fail("IterateBatch with batchA " + std::to_string(call.batch_a) + " and batchB " +
                     std::to_string(call.batch_b) + ": one must divide the other",
                 loc);
        }
        const MatmulState s = d.snapshot();
        const TCubeTiling& t = d.m_tiling;
        const BatchAxes ax{axes(t.ALayoutInfoB, t.ALayoutInfoS, t.ALayoutInfoN, t.ALayoutInfoG,
                                t.ALayoutInfoD, A_TYPE::layout, "A", loc)};
        const BatchAxes bx{axes(t.BLayoutInfoB, t.BLayoutInfoS, t.BLayoutInfoN, t.BLayoutInfoG,
                                t.BLayoutInfoD, B_TYPE::layout, "B", loc)};
        const BatchAxes cx{axes(t.CLayoutInfoB, t.CLayoutInfoS1, t.CLayoutInfoN, t.CLayoutInfoG,
                                t.CLayoutInfoS2, C_TYPE::layout, "C", loc)};
        const std::uint64_t c_cols = C_TYPE::layout == AscendC::LayoutMode::NONE ||
                                             C_TYPE::layout == AscendC::LayoutMode::NORMAL
                                         ? static_cast<std::uint64_t>(s.org_n)
                                         : cx.d;
        for (std::uint32_t i = 0; i < batch_c; ++i) {
            const std::uint64_t ai =
                std::uint64_t{call.loop} * call.batch_a + i / (batch_c / call.batch_a);
            const std::uint64_t bi =
                std::uint64_t{call.loop} * call.batch_b + i / (batch_c / call.batch_b);
            const std::uint64_t ci = std::uint64_t{call.loop} * batch_c + i;
            const BatchPlace pa =
                batch_place(A_TYPE::layout, ax, ai, std::uint64_t(s.org_m) * s.org_ka,
                            s.a.transposed ? s.org_m : s.org_ka, call.stride_a);
            const BatchPlace pb =
                batch_place(B_TYPE::layout, bx, bi, std::uint64_t(s.org_kb) * s.org_n,
                            s.b.transposed ? s.org_kb : s.org_n, call.stride_b);
            const BatchPlace pc =
                call.sequential
                    ? BatchPlace{ci * std::uint64_t(s.m) * s.n, std::uint64_t(s.n)}
                    : batch_place(C_TYPE::layout, cx, ci, std::uint64_t(s.org_m) * s.org_kc,
                                  s.org_kc, call.stride_c);
            d.m_a = shifted<SrcT>(s.a, pa.offset);
            d.m_b = shifted<SrcT>(s.b, pb.offset);
            (s.a.transposed ? d.m_org_m : d.m_org_ka) = static_cast<std::int64_t>(pa.stride);
            (s.b.transposed ? d.m_org_kb : d.m_org_n) = static_cast<std::int64_t>(pb.stride);
            d.m_org_kc = static_cast<std::int64_t>(pc.stride);
            if (s.bias.set && CFG.isBiasBatch) d.m_bias = shifted<BiasT>(s.bias, ci * c_cols);
            if (pc.offset >= call.c_count) {
                fail("IterateBatch: C's batch " + std::to_string(ci) + " lies beyond the " +
                         std::to_string(call.c_count) + " elements of its GlobalTensor",
                     loc);
            }
            AscendC::GlobalTensor<DstT> c;
            c.SetGlobalBuffer(gm_pointer<DstT>(call.c_address + pc.offset * sizeof(DstT), loc),
                              call.c_count - pc.offset, loc);
            d.reset_iteration();
            d.IterateAll(c, call.atomic, false, false, false, loc);
        }
        d.restore(s);
    }

private:
    Derived& self() { return static_cast<Derived&>(*this); }
    [[noreturn]] static void fail(const std::string& what, const Loc& loc) {
        throw KernelError(EventIds::where(loc) + "Matmul: " + what);
    }
    /// `o` from element `offset` on (elements of `T`).
    template <class T>
    static MatmulOperand shifted(MatmulOperand o, std::uint64_t offset) {
        o.address += offset * sizeof(T);
        o.count = o.count > offset ? o.count - offset : 0;
        return o;
    }
    static BatchAxes axes(std::int32_t b, std::int32_t s, std::int32_t n, std::int32_t g,
                          std::int32_t d, AscendC::LayoutMode layout, const char* which,
                          const Loc& loc) {
        const bool needed =
            layout != AscendC::LayoutMode::NONE && layout != AscendC::LayoutMode::NORMAL;
        if (needed && (b <= 0 || s <= 0 || n <= 0 || g <= 0 || d <= 0)) {
            fail(std::string("IterateBatch: ") + which +
                     "'s batch layout needs its axes in the tiling (the host's Set" + which +
                     "Layout)",
                 loc);
        }
        return {std::uint64_t(std::max(b, 0)), std::uint64_t(std::max(s, 0)),
                std::uint64_t(std::max(n, 0)), std::uint64_t(std::max(g, 0)),
                std::uint64_t(std::max(d, 0))};
    }
    void run(const MatmulBatchCall& call, bool sync, const Loc& loc) {
        Derived& d = self();
        if (!d.m_client) {
            npusim_serve_batch(call, loc);
            return;
        }
        d.check_ready(loc);
        MatmulRequest r;
        r.reply = true;
        r.run = [s = d.snapshot(), call, loc](void* engine) {
            Derived& aic = *static_cast<Derived*>(engine);
            aic.restore(s);
            aic.npusim_serve_batch(call, loc);
        };
        d.send(std::move(r), loc);
        if (sync) matmul_wait_reply(loc);
    }

    MatmulOperand m_workspace;  // count: elements of C's type
    std::uint32_t m_loops_pending = 0;
    bool m_wait_batch = false;
    std::int32_t m_batch_a = 0, m_batch_b = 0;
};

}  // namespace npusim::ascendc
