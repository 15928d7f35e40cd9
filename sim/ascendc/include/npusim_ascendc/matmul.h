// The high-level Matmul API (lib/matmul_intf.h): Matmul<A, B, C, Bias[, CFG]> computes
// C = A x B (+ bias) tile by tile with real cube instructions on the block's cube core:
//   per output tile (baseM x baseN), per K step (baseK):
//     GM -> A1 / B1 (MTE2, row by row: one strided DMA; NZ sources one DMA per 16 columns)
//     A1 -> A2, B1 -> B2 (MTE1)   [first K step with a bias: GM -> C1 (MTE2), C1 -> C2 (MTE1)]
//     Mmad (M; the first K step initialises, with the bias row if set; later ones accumulate)
//   GetTensorC: L0C -> GM (FIX, one strided DMA).
// Synchronization is the queue framework's (npusim_ascendc/pipe.h), correct by construction:
// every buffer is a TQue of the user's TPipe, so EnQue/DeQue order producer before consumer
// (MTE2 -> MTE1 -> M -> FIX) and FreeTensor/AllocTensor order reuse; A1/B1/A2/B2 have two
// buffers each, so the next K step's loads overlap the current Mmad.
// Supported: A and B in GM (ND or NZ, fp16, either transposed), C in GM (ND, fp32), bias in
// GM (fp32); N and K tails multiples of 16 (transposed A: M tails too). Anything else is a
// compile error or a KernelError naming the user's line (docs/ascendc.md, "Matmul API").
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/cube.h"
#include "npusim_ascendc/cube_tiling.h"
#include "npusim_ascendc/pipe.h"
#include "npusim_ascendc/sync.h"

namespace AscendC {

enum class CubeFormat : std::uint8_t { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

template <TPosition POSITION, CubeFormat FORMAT, class TYPE, bool ISTRANS = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
};

/// The configurations: npusim runs the norm schedule for each (docs/ascendc.md).
struct MatmulConfig {
    bool doNorm = false;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    std::uint32_t basicM = 0, basicN = 0, basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    std::uint32_t doMTE2Preload = 0;
};
constexpr MatmulConfig GetNormalConfig() {
    MatmulConfig c;
    c.doNorm = true;
    return c;
}
constexpr MatmulConfig GetMDLConfig() {
    MatmulConfig c;
    c.doMultiDataLoad = true;
    return c;
}
constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();

/// The vendor's UB size constants for the modelled part (Atlas A2 / 910B, the vendor's kernel
/// constants as quoted publicly): 192 KiB of UB, the top 8 KiB reserved, so kernels size their
/// scratch (e.g. Matmul's SetLocalWorkspace) by TOTAL_VEC_LOCAL_SIZE.
constexpr std::int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr std::uint32_t TOTAL_UB_SIZE = 192 * 1024;

}  // namespace AscendC

namespace npusim::ascendc {

/// A matrix operand in GM as the Matmul object reads it.
struct MatmulOperand {
    std::uint64_t address = 0;
    std::uint64_t count = 0;
    bool transposed = false;
    bool set = false;
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

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE,
          const auto& MM_CFG = CFG_NORM, class... Rest>
class Matmul {
    using SrcT = typename A_TYPE::T;
    using DstT = typename C_TYPE::T;
    static_assert(std::is_same_v<SrcT, half> && std::is_same_v<typename B_TYPE::T, half>,
                  "npusim Ascend C: the Matmul API takes fp16 A and B only yet (bf16 and int8 "
                  "are not supported yet, docs/ascendc.md)");
    static_assert(std::is_same_v<DstT, float>,
                  "npusim Ascend C: the Matmul API writes fp32 C only yet (fp16 / int32 need "
                  "Fixpipe quantisation, not supported yet, docs/ascendc.md)");
    static_assert(std::is_same_v<typename BIAS_TYPE::T, float>,
                  "npusim Ascend C: the Matmul API takes an fp32 bias only yet");
    static_assert(A_TYPE::pos == TPosition::GM && B_TYPE::pos == TPosition::GM,
                  "npusim Ascend C: the Matmul API reads A and B from GM only yet");
    static_assert((A_TYPE::format == CubeFormat::ND || A_TYPE::format == CubeFormat::NZ) &&
                      (B_TYPE::format == CubeFormat::ND || B_TYPE::format == CubeFormat::NZ),
                  "npusim Ascend C: the Matmul API takes ND or NZ A and B only yet");
    static_assert(C_TYPE::format == CubeFormat::ND,
                  "npusim Ascend C: the Matmul API writes ND C only yet");
    static constexpr bool kANz = A_TYPE::format == CubeFormat::NZ;
    static constexpr bool kBNz = B_TYPE::format == CubeFormat::NZ;

public:
    Matmul() = default;

    /// Buffers for the tiling's base tiles on `tpipe` (the block's TPipe when null).
    void Init(const TCubeTiling* tiling, TPipe* tpipe = nullptr, Loc loc = Loc::current()) {
        npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
        if (ctx.block().core_type() != npusim::CoreType::Cube) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "Matmul: npusim runs the Matmul API on the cube core (AIC); "
                                      "calling it from a vector core (the vendor's AIV -> AIC "
                                      "messages) is not supported yet");
        }
        if (tiling == nullptr) fail("Init without a TCubeTiling", loc);
        m_tiling = *tiling;
        const TCubeTiling& t = m_tiling;
        if (t.baseM <= 0 || t.baseN <= 0 || t.baseK <= 0 || t.singleCoreM <= 0 ||
            t.singleCoreN <= 0 || t.singleCoreK <= 0) {
            fail("the TCubeTiling's base and single-core shapes must be positive", loc);
        }
        if (tpipe == nullptr) tpipe = GetTPipePtr(loc);
        if (tpipe == nullptr) fail("Init needs a TPipe", loc);
        const std::uint32_t bm = t.baseM, bn = t.baseN, bk = t.baseK;
        tpipe->InitBuffer(m_a1, 2, bm * bk * sizeof(half), loc);
        tpipe->InitBuffer(m_b1, 2, bk * bn * sizeof(half), loc);
        tpipe->InitBuffer(m_a2, 2, bm * bk * sizeof(half), loc);
        tpipe->InitBuffer(m_b2, 2, bk * bn * sizeof(half), loc);
        tpipe->InitBuffer(m_co1, 1, bm * bn * sizeof(float), loc);
        m_bias_on = t.isBias != 0;
        if (m_bias_on) {
            tpipe->InitBuffer(m_bias1, 1, bn * sizeof(float), loc);
            tpipe->InitBuffer(m_bias2, 1, bn * sizeof(float), loc);
        }
        m_org_m = t.M;
        m_org_n = t.N;
        m_org_ka = t.Ka;
        m_org_kb = t.Kb;
        m_org_kc = t.N;
        SetSingleShape(t.singleCoreM, t.singleCoreN, t.singleCoreK);
        m_inited = true;
    }

    void SetTensorA(const GlobalTensor<SrcT>& gm, bool isTransposeA = false) {
        m_a = {gm.address(), gm.GetSize(), isTransposeA || A_TYPE::isTrans, true};
        reset_iteration();
    }
    void SetTensorB(const GlobalTensor<SrcT>& gm, bool isTransposeB = false) {
        m_b = {gm.address(), gm.GetSize(), isTransposeB || B_TYPE::isTrans, true};
        reset_iteration();
    }
    void SetBias(const GlobalTensor<float>& gm, Loc loc = Loc::current()) {
        if (!m_bias_on) fail("SetBias, but the TCubeTiling has isBias 0", loc);
        m_bias = {gm.address(), gm.GetSize(), false, true};
        reset_iteration();
    }
    void DisableBias() { m_bias.set = false; }
    void ClearBias() { m_bias.set = false; }

    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, orgN); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        m_org_m = orgM;
        m_org_n = orgN;
        m_org_ka = orgKa;
        m_org_kb = orgKb;
        m_org_kc = orgKc > 0 ? orgKc : orgN;
    }
    void SetSingleShape(int singleM, int singleN, int singleK) {
        m_m = singleM;
        m_n = singleN;
        m_k = singleK;
        reset_iteration();
    }
    /// This core's shape when it is smaller than the tiling's single-core shape (-1: keep).
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        SetSingleShape(tailM > 0 ? tailM : m_m, tailN > 0 ? tailN : m_n, tailK > 0 ? tailK : m_k);
    }
    void SetWorkspace(GM_ADDR, int) {}
    /// UB scratch for the vendor's format conversions on the vector core; npusim's schedule
    /// needs none (accepted and unused, as SetWorkspace).
    void SetLocalWorkspace(const LocalTensor<std::uint8_t>&) {}

    /// The next output tile into L0C; false when every tile is done. sync and async issue the
    /// same instructions (the scalar unit never waits for the cube in either).
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false, Loc loc = Loc::current()) {
        check_ready(loc);
        if (m_pending) fail("Iterate before GetTensorC took the previous tile", loc);
        const std::uint64_t tiles_m = npusim::ascendc::ceil_div(m_m, m_tiling.baseM);
        const std::uint64_t tiles_n = npusim::ascendc::ceil_div(m_n, m_tiling.baseN);
        if (m_next >= tiles_m * tiles_n) return false;
        if (m_tiling.iterateOrder == 0) {
            m_tile_m = m_next % tiles_m;
            m_tile_n = m_next / tiles_m;
        } else {
            m_tile_n = m_next % tiles_n;
            m_tile_m = m_next / tiles_n;
        }
        ++m_next;
        compute_tile(enPartialSum, loc);
        m_pending = true;
        return true;
    }

    /// The current tile to GM: at its place in C, or packed at `gm` (enSequentialWrite).
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, std::uint8_t enAtomic = 0,
                    bool enSequentialWrite = false, Loc loc = Loc::current()) {
        if (!m_pending) fail("GetTensorC without a tile (call Iterate first)", loc);
        m_pending = false;
        const std::uint64_t rows = cur_m(), cols = cur_n();
        LocalTensor<float> c = m_co1.template DeQue<float>(loc);
        const std::uint64_t stride = enSequentialWrite ? cols : m_org_kc;
        const std::uint64_t offset =
            enSequentialWrite ? 0 : m_tile_m * m_tiling.baseM * stride + m_tile_n * m_tiling.baseN;
        if (enAtomic == 1) SetAtomicAdd<float>(loc);
        npusim::ascendc::copy_blocks<float>(npusim::ascendc::view_of(gm[offset]), c.native(), rows,
                                            cols * sizeof(float), 0,
                                            (stride - cols) * sizeof(float), loc);
        if (enAtomic == 1) SetAtomicNone(loc);
        m_co1.FreeTensor(c, loc);
    }
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT>&, std::uint8_t = 0, bool = false,
                    Loc loc = Loc::current()) {
        fail(
            "GetTensorC to a LocalTensor (UB) is not supported yet: the cube core has no UB; "
            "write C to GM and read it on the AIV",
            loc);
    }

    /// Every tile of C to GM (row stride: C's original width).
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, std::uint8_t enAtomic = 0,
                    bool enSequentialWrite = false, bool waitIterateAll = false,
                    bool fakeMsg = false, Loc loc = Loc::current()) {
        (void)waitIterateAll;
        (void)fakeMsg;
        while (Iterate<sync>(false, loc)) GetTensorC<sync>(gm, enAtomic, enSequentialWrite, loc);
    }
    template <bool sync = true>
    void IterateAll(const LocalTensor<DstT>&, std::uint8_t = 0, Loc loc = Loc::current()) {
        fail("IterateAll to a LocalTensor (UB) is not supported yet: the cube core has no UB", loc);
    }
    void WaitIterateAll() {}

    void End() {
        m_a.set = m_b.set = m_bias.set = false;
        reset_iteration();
    }

private:
    [[noreturn]] static void fail(const std::string& what, const Loc& loc) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + "Matmul: " + what);
    }
    void reset_iteration() {
        m_next = 0;
        m_pending = false;
    }
    void check_ready(const Loc& loc) const {
        if (!m_inited) fail("Iterate before Init (REGIST_MATMUL_OBJ or Init with a tiling)", loc);
        if (!m_a.set || !m_b.set) fail("Iterate before SetTensorA and SetTensorB", loc);
        if (m_m <= 0 || m_n <= 0 || m_k <= 0) fail("the single shape is empty", loc);
    }
    std::uint64_t cur_m() const {
        return std::min<std::uint64_t>(m_tiling.baseM, m_m - m_tile_m * m_tiling.baseM);
    }
    std::uint64_t cur_n() const {
        return std::min<std::uint64_t>(m_tiling.baseN, m_n - m_tile_n * m_tiling.baseN);
    }

    void compute_tile(bool accumulate_onto_c, const Loc& loc) {
        const std::uint64_t rows = cur_m(), cols = cur_n();
        const std::uint64_t m0 = m_tile_m * m_tiling.baseM, n0 = m_tile_n * m_tiling.baseN;
        const std::uint64_t k_steps = npusim::ascendc::ceil_div(m_k, m_tiling.baseK);
        const bool bias = m_bias.set && m_bias_on;
        LocalTensor<float> bias2;
        if (bias) {
            LocalTensor<float> bias1 = m_bias1.template AllocTensor<float>(loc);
            npusim::ascendc::GlobalView<float> src;
            src.address = m_bias.address + n0 * sizeof(float);
            src.count = m_bias.count;
            npusim::ascendc::copy_elements<float>(bias1.native(), src, cols, loc);
            m_bias1.EnQue(bias1, loc);
            bias1 = m_bias1.template DeQue<float>(loc);
            bias2 = m_bias2.template AllocTensor<float>(loc);
            npusim::ascendc::copy_elements<float>(bias2.native(), bias1.native(), cols, loc);
            m_bias2.EnQue(bias2, loc);
            m_bias1.FreeTensor(bias1, loc);
            bias2 = m_bias2.template DeQue<float>(loc);
        }
        LocalTensor<float> c = m_co1.template AllocTensor<float>(loc);
        for (std::uint64_t step = 0; step < k_steps; ++step) {
            const std::uint64_t k0 = step * m_tiling.baseK;
            const std::uint64_t depth = std::min<std::uint64_t>(m_tiling.baseK, m_k - k0);
            LocalTensor<half> a1 = m_a1.template AllocTensor<half>(loc);
            LocalTensor<half> b1 = m_b1.template AllocTensor<half>(loc);
            // A: rows x depth (transposed: depth x rows of the K x M matrix).
            if (m_a.transposed) {
                npusim::ascendc::load_tile_to_l1<half>(a1.native(), m_a, kANz, m_org_m,
                                                       align16(m_org_ka), k0, m0, depth, rows, loc);
            } else {
                npusim::ascendc::load_tile_to_l1<half>(a1.native(), m_a, kANz, m_org_ka,
                                                       align16(m_org_m), m0, k0, rows, depth, loc);
            }
            if (m_b.transposed) {
                npusim::ascendc::load_tile_to_l1<half>(b1.native(), m_b, kBNz, m_org_kb,
                                                       align16(m_org_n), n0, k0, cols, depth, loc);
            } else {
                npusim::ascendc::load_tile_to_l1<half>(b1.native(), m_b, kBNz, m_org_n,
                                                       align16(m_org_kb), k0, n0, depth, cols, loc);
            }
            m_a1.EnQue(a1, loc);
            m_b1.EnQue(b1, loc);
            a1 = m_a1.template DeQue<half>(loc);
            b1 = m_b1.template DeQue<half>(loc);
            LocalTensor<half> a2 = m_a2.template AllocTensor<half>(loc);
            LocalTensor<half> b2 = m_b2.template AllocTensor<half>(loc);
            npusim::ascendc::copy_elements<half>(a2.native(), a1.native(), rows * depth, loc);
            npusim::ascendc::copy_elements<half>(b2.native(), b1.native(), depth * cols, loc);
            m_a2.EnQue(a2, loc);
            m_b2.EnQue(b2, loc);
            m_a1.FreeTensor(a1, loc);
            m_b1.FreeTensor(b1, loc);
            a2 = m_a2.template DeQue<half>(loc);
            b2 = m_b2.template DeQue<half>(loc);
            npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
            {
                npusim::ascendc::Resume resume(ctx);
                // Mmads accumulating into one L0C tile are ordered on the cube pipe by a
                // barrier (the checker's rule for same-pipe overlapping writes).
                if (step > 0 || accumulate_onto_c) ctx.pipe_barrier(npusim::Pipe::M, loc, false);
                ctx.before_pipe_work(npusim::Pipe::M, {}, loc);
                npusim::Block::MmadCall call;
                call.c = c.native();
                call.a = a2.native();
                call.b = b2.native();
                call.m = static_cast<std::uint32_t>(rows);
                call.n = static_cast<std::uint32_t>(cols);
                call.k = static_cast<std::uint32_t>(depth);
                call.a_transposed = m_a.transposed;
                call.b_transposed = m_b.transposed;
                call.accumulate = step > 0 || accumulate_onto_c;
                call.has_bias = step == 0 && bias && !accumulate_onto_c;
                if (call.has_bias) call.bias = bias2.native();
                ctx.block().mmad(call, loc);
            }
            m_a2.FreeTensor(a2, loc);
            m_b2.FreeTensor(b2, loc);
        }
        if (bias) m_bias2.FreeTensor(bias2, loc);
        m_co1.EnQue(c, loc);
    }
    static std::uint64_t align16(std::int64_t v) {
        return static_cast<std::uint64_t>((v + 15) / 16 * 16);
    }

    TCubeTiling m_tiling{};
    TQue<TPosition::A1, 2> m_a1;
    TQue<TPosition::B1, 2> m_b1;
    TQue<TPosition::A2, 2> m_a2;
    TQue<TPosition::B2, 2> m_b2;
    TQue<TPosition::C1, 1> m_bias1;
    TQue<TPosition::C2, 1> m_bias2;
    TQue<TPosition::CO1, 1> m_co1;
    npusim::ascendc::MatmulOperand m_a, m_b, m_bias;
    bool m_bias_on = false;
    bool m_inited = false;
    bool m_pending = false;
    std::int64_t m_m = 0, m_n = 0, m_k = 0;
    std::int64_t m_org_m = 0, m_org_n = 0, m_org_ka = 0, m_org_kb = 0, m_org_kc = 0;
    std::uint64_t m_next = 0, m_tile_m = 0, m_tile_n = 0;
};

}  // namespace AscendC

namespace npusim::ascendc {

inline void regist_matmul_objs(AscendC::TPipe*, GM_ADDR) {}
/// REGIST_MATMUL_OBJ(pipe, workspace, mm1, tiling1, mm2, tiling2, ...): Init each object
/// whose tiling is given (a null tiling leaves Init to the kernel).
template <class MM, class... Rest>
void regist_matmul_objs(AscendC::TPipe* pipe, GM_ADDR workspace, MM& mm, const TCubeTiling* tiling,
                        Rest&&... rest) {
    if (tiling != nullptr) mm.Init(tiling, pipe);
    regist_matmul_objs(pipe, workspace, std::forward<Rest>(rest)...);
}
template <class MM>
void regist_matmul_objs(AscendC::TPipe* pipe, GM_ADDR workspace, MM& mm) {
    regist_matmul_objs(pipe, workspace, mm, static_cast<const TCubeTiling*>(nullptr));
}

}  // namespace npusim::ascendc

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    ::npusim::ascendc::regist_matmul_objs(tpipe, (GM_ADDR)(workspace), __VA_ARGS__)

// The vendor's headers make the AscendC names visible in namespace matmul, so a kernel with
// `using namespace matmul;` calls GetBlockIdx, GetSysWorkSpacePtr, ... unqualified.
namespace matmul {
using namespace AscendC;
}  // namespace matmul
