// The high-level Matmul API (lib/matmul_intf.h): Matmul<A, B, C, Bias[, CFG]> computes
// C = A x B (+ bias) tile by tile with real cube instructions on the block's cube core, in the
// hardware's layouts (npusim_ascendc/matmul_tile.h): per output tile, per K step: GM -> A1/B1
// (MTE2, Nd2Nz), A1 -> A2 as ZZ and B1 -> B2 as ZN (MTE1, LoadData), Mmad into L0C as NZ (M;
// with a bias first GM -> C1 -> C2); GetTensorC: Fixpipe L0C -> GM (FIX).
// Synchronization is the queue framework's (pipe.h), correct by construction: every buffer is a
// TQue of the user's TPipe (A1/B1/A2/B2 with two buffers: the next K step's loads overlap the
// current Mmad). Unsupported = a compile error or a KernelError naming the user's line
// (docs/ascendc.md, "The Matmul API"). A mixed kernel's AIV objects send their calls to the AIC
// (matmul_mix.h); the batch calls and C's dequantisation are bases (matmul_batch.h, _quant.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>

#include "npusim_ascendc/cube.h"
#include "npusim_ascendc/cube_tiling.h"
#include "npusim_ascendc/matmul_batch.h"
#include "npusim_ascendc/matmul_check.h"
#include "npusim_ascendc/matmul_compute.h"
#include "npusim_ascendc/matmul_config.h"
#include "npusim_ascendc/matmul_l0.h"
#include "npusim_ascendc/matmul_mix.h"
#include "npusim_ascendc/matmul_operands.h"
#include "npusim_ascendc/matmul_quant.h"
#include "npusim_ascendc/matmul_static.h"
#include "npusim_ascendc/matmul_tile.h"
#include "npusim_ascendc/pipe.h"
#include "npusim_ascendc/sync.h"

namespace AscendC {

template <
    class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE,
    const auto& MM_CFG = CFG_NORM, class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>,
    template <const auto& = MM_CFG, class...> class MATMUL_POLICY = Impl::Detail::MatmulPolicy>
class Matmul
    : public npusim::ascendc::MatmulBatchApi<
          Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, MATMUL_POLICY>, A_TYPE, B_TYPE,
          C_TYPE, BIAS_TYPE, MM_CFG>,
      public npusim::ascendc::MatmulQuantApi<
          Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, MATMUL_POLICY>, A_TYPE, C_TYPE> {
    friend npusim::ascendc::MatmulBatchApi<Matmul, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG>;
    friend npusim::ascendc::MatmulQuantApi<Matmul, A_TYPE, C_TYPE>;
    using SrcT = typename A_TYPE::T;
    using DstT = typename C_TYPE::T;
    using L0cT = npusim::ascendc::MatmulL0cT<SrcT>;
    using BiasT = typename BIAS_TYPE::T;
    using Callbacks = MM_CB;
    // MM_CFG is a MatmulConfig or a constant tiling (MatmulApiStaticTiling) carrying one.
    static constexpr const MatmulConfig& kCfg = npusim::ascendc::matmul_config_of(MM_CFG);
    static_assert(npusim::ascendc::MatmulChecks<
                  A_TYPE, B_TYPE, C_TYPE, MM_CFG, MM_CB,
                  MATMUL_POLICY<MM_CFG, void, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE>>::value);
    // The bias type defaults to C's (Matmul<A, B, C>): SetBias takes L0C's type only yet.
    static constexpr bool kBiasOfL0c = std::is_same_v<BiasT, L0cT>;
    static constexpr bool kANz = A_TYPE::format == CubeFormat::NZ;
    static constexpr bool kBNz = B_TYPE::format == CubeFormat::NZ;
    static constexpr bool kCNz = C_TYPE::format == CubeFormat::NZ;
    // C in CO1: Iterate(enPartialSum, co1) computes each tile into the user's L0C tensor.
    static constexpr bool kCo1 = C_TYPE::pos == TPosition::CO1;
    static constexpr bool kATscm = A_TYPE::pos == TPosition::TSCM;  // A read in place in L1
    // An NZ C's column blocks: 16 columns, or 8 with isEnableChannelSplit (float C).
    static constexpr std::uint64_t kNzC0 = kCfg.isEnableChannelSplit ? 8 : 16;
    // ND_ALIGN: C's rows are 32 bytes aligned (N rounded up); the pad columns are not written.
    static constexpr std::uint64_t kCRowAlign =
        C_TYPE::format == CubeFormat::ND_ALIGN ? 32 / sizeof(DstT) : 1;

public:
    Matmul() = default;

    /// Buffers for the tiling's base tiles on `tpipe` (the block's TPipe when null).
    void Init(const TCubeTiling* tiling, TPipe* tpipe = nullptr, Loc loc = Loc::current()) {
        npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
        m_client = npusim::ascendc::matmul_is_client(ctx.block());
        if (ctx.block().core_type() != npusim::CoreType::Cube && !m_client) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "Matmul: a vector-only kernel has no cube core to run the "
                                      "Matmul on (declare the kernel mixed or AIC)");
        }
        // A constant tiling (MM_CFG from GetMatmulApiTiling) stands in for a missing one.
        if (tiling == nullptr) tiling = npusim_static_tiling();
        if (tiling == nullptr) fail("Init without a TCubeTiling", loc);
        // MixDualMaster (AIC and AIVs each run their own code) is npusim's AIC-only mode.
        if (kCfg.enableMixDualMaster && npusim::vector_cores_per_block(ctx.block().kernel_type()))
            fail("MatmulConfig::enableMixDualMaster in a mixed kernel is not supported yet", loc);
        m_tiling = *tiling;
        const TCubeTiling& t = m_tiling;
        if (t.baseM <= 0 || t.baseN <= 0 || t.baseK <= 0 || t.singleCoreM <= 0 ||
            t.singleCoreN <= 0 || t.singleCoreK <= 0) {
            fail("the TCubeTiling's base and single-core shapes must be positive", loc);
        }
        if (t.baseM % 16 != 0 || t.baseN % 16 != 0) {
            fail("the TCubeTiling's baseM and baseN must be multiples of 16 (whole fractals)", loc);
        }
        if (m_client) {
            // The AIC's object of the same order holds the buffers (npusim_ascendc/matmul_mix.h).
            m_registered = true;
            init_shapes();
            // REGIST_MATMUL_OBJ had no tiling, so neither had the AIC's: it gets this one.
            if (m_init_aic) {
                npusim::ascendc::MatmulRequest r;
                r.run = [t = m_tiling, loc](void* engine) {
                    static_cast<Matmul*>(engine)->serve_init(t, loc);
                };
                send(std::move(r), loc);
            }
            return;
        }
        if (tpipe == nullptr) tpipe = GetTPipePtr(loc);
        if (tpipe == nullptr) fail("Init needs a TPipe", loc);
        const std::uint32_t bm = t.baseM, bn = t.baseN, bk = t.baseK;
        tpipe->InitBuffer(m_a1, 2, bm * bk * sizeof(SrcT), loc);
        tpipe->InitBuffer(m_b1, 2, bk * bn * sizeof(SrcT), loc);
        // isA2B2Shared: the objects of this pipe share one set of L0 buffers (matmul_l0.h).
        if constexpr (kCfg.isA2B2Shared) m_l0_shared = npusim::ascendc::shared_matmul_l0(*tpipe);
        l0().init(*tpipe, t.dbL0A == 1 ? 1 : 2, t.dbL0B == 1 ? 1 : 2, bm * bk * sizeof(SrcT),
                  bk * bn * sizeof(SrcT), kCo1 && !m_l0_shared ? 0 : bm * bn * sizeof(L0cT), loc);
        if (t.isBias != 0) l0().init_bias(*tpipe, bn * sizeof(BiasT), loc);
        init_shapes();
    }
    ~Matmul() {
        // An AIV's object tells the AIC it is done (not while an error unwinds the kernel).
        if (m_client && m_registered && std::uncaught_exceptions() == 0) {
            npusim::ascendc::MatmulRequest quit;
            quit.object = m_object;
            quit.quit = true;
            npusim::ascendc::matmul_send(std::move(quit), m_loc);
        }
    }

    static const TCubeTiling* npusim_static_tiling() {
        return npusim::ascendc::matmul_static_tiling<MM_CFG>();
    }
    /// REGIST_MATMUL_OBJ: this object's order and the system workspace (mixed kernels).
    void npusim_register(std::uint32_t object, GM_ADDR workspace, bool has_tiling, Loc loc) {
        m_object = object;
        m_init_aic = !has_tiling;
        m_workspace = npusim::ascendc::gm_address(workspace, loc);
        m_loc = loc;
        m_client = npusim::ascendc::matmul_is_client(npusim::ascendc::context(loc).block());
        m_registered = m_client;
    }

private:
    void init_shapes() {
        const TCubeTiling& t = m_tiling;
        m_bias_on = t.isBias != 0;
        m_org_m = t.M;
        m_org_n = t.N;
        m_org_ka = t.Ka;
        m_org_kb = t.Kb;
        m_org_kc = t.N;
        SetSingleShape(t.singleCoreM, t.singleCoreN, t.singleCoreK);
        m_inited = true;
    }

public:
    void SetTensorA(const GlobalTensor<SrcT>& gm, bool isTransposeA = false) {
        m_a = {gm.address(), gm.GetSize(), isTransposeA || A_TYPE::isTrans, true};
        reset_iteration();
    }
    /// A in TSCM: the kernel's L1 copy of this core's A (NZ, the single-core M rounded up to 16
    /// rows a column block), read in place by the loads into L0A.
    void SetTensorA(const LocalTensor<SrcT>& l1, bool isTransposeA = false,
                    Loc loc = Loc::current()) {
        static_assert(kATscm, "npusim Ascend C: SetTensorA(LocalTensor) needs A in TSCM");
        if (m_client) fail("A in TSCM from an AIV (L1 is the AIC's) is not supported yet", loc);
        if (isTransposeA || A_TYPE::isTrans) fail("a transposed A in TSCM: not supported yet", loc);
        m_a_l1 = l1;
        m_a = {l1.GetPhyAddr(), l1.GetSize(), false, true};
        reset_iteration();
    }
    void SetTensorB(const GlobalTensor<SrcT>& gm, bool isTransposeB = false) {
        m_b = {gm.address(), gm.GetSize(), isTransposeB || B_TYPE::isTrans, true};
        reset_iteration();
    }
    void SetBias(const GlobalTensor<BiasT>& gm, Loc loc = Loc::current()) {
        if (!m_bias_on) fail("SetBias, but the TCubeTiling has isBias 0", loc);
        if (kCfg.isPartialOutput)
            fail("SetBias with isPartialOutput (no bias: the vendor's rule)", loc);
        if (!kBiasOfL0c) {
            fail(std::string("SetBias with a bias of another type than L0C's (") +
                     (std::is_same_v<L0cT, float> ? "float" : "int32_t") + ") is not supported yet",
                 loc);
        }
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
    /// The values MatmulCallBackFunc's copy functions get as tilingPtr and dataPtr.
    void SetUserDefInfo(std::uint64_t tilingPtr) { m_user.tiling = tilingPtr; }
    void SetSelfDefineData(std::uint64_t dataPtr) { m_user.data = dataPtr; }
    /// UB scratch for the vendor's format conversions: accepted and unused, as SetWorkspace.
    void SetLocalWorkspace(const LocalTensor<std::uint8_t>&) {}

    /// The next output tile into L0C; false when every tile is done. sync and async issue the
    /// same instructions (the scalar unit never waits for the cube in either). On an AIV of a
    /// mixed kernel the tile is computed when GetTensorC asks for it.
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false, Loc loc = Loc::current()) {
        check_ready(loc);
        if (kCfg.scheduleType == ScheduleType::OUTER_PRODUCT && !m_all) {
            fail(
                "Iterate with ScheduleType::OUTER_PRODUCT (two tiles an Iterate) is not "
                "supported yet (IterateAll is)",
                loc);
        }
        if (m_pending && !enPartialSum) {
            fail("Iterate before GetTensorC took the previous tile", loc);
        }
        const std::uint64_t tiles_m = npusim::ascendc::ceil_div(m_m, m_tiling.baseM);
        const std::uint64_t tiles_n = npusim::ascendc::ceil_div(m_n, m_tiling.baseN);
        // isPartialOutput: each tile's K steps one by one (one Iterate each), not summed.
        const std::uint64_t parts =
            kCfg.isPartialOutput ? npusim::ascendc::ceil_div(m_k, m_tiling.baseK) : 1;
        if (m_next >= tiles_m * tiles_n * parts) return false;
        const std::uint64_t tile = m_next / parts;
        if (kCfg.isPartialOutput) m_k_step = static_cast<std::int64_t>(m_next % parts);
        const bool along_m = kCfg.iterateOrder == IterateOrder::UNDEF
                                 ? m_tiling.iterateOrder == 0
                                 : kCfg.iterateOrder == IterateOrder::ORDER_M;
        if (along_m) {
            m_tile_m = tile % tiles_m;
            m_tile_n = tile / tiles_m;
        } else {
            m_tile_n = tile % tiles_n;
            m_tile_m = tile / tiles_n;
        }
        ++m_next;
        m_async = !sync;
        if (m_client) {
            if (enPartialSum) fail("Iterate(enPartialSum) from an AIV is not supported yet", loc);
        } else {
            compute_tile(enPartialSum, loc);
        }
        m_pending = true;
        return true;
    }

    /// C in CO1: the next tile into the user's L0C tensor `co1` (NZ: column blocks of the
    /// tile's rows rounded up to 16), fresh or onto its values (enPartialSum); false when
    /// every tile is done. The user orders the Mmads before its Fixpipe (its CO1 queue).
    template <bool sync = true>
    bool Iterate(bool enPartialSum, const LocalTensor<L0cT>& co1, Loc loc = Loc::current()) {
        static_assert(kCo1, "npusim Ascend C: Iterate into an L0C tensor needs C in CO1");
        if (m_client) fail("C in CO1 from an AIV (L0C is the AIC's) is not supported", loc);
        m_user_c = &co1;
        const bool more = Iterate<sync>(enPartialSum, loc);
        m_user_c = nullptr;
        m_pending = false;
        return more;
    }

    /// The current tile to GM: at its place in C, or packed at `gm` (enSequentialWrite).
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, std::uint8_t enAtomic = 0,
                    bool enSequentialWrite = false, Loc loc = Loc::current()) {
        static_assert(!kCo1, "npusim Ascend C: C in CO1 is taken by Iterate(enPartialSum, co1)");
        if (kCfg.isPartialOutput && !enSequentialWrite)
            fail("isPartialOutput takes GetTensorC's sequential form only (enSequentialWrite)",
                 loc);
        take_tile<sync>(loc);
        // ND: rows `stride` elements apart; NZ: column blocks of `stride` rows.
        const std::uint64_t stride =
            kCNz ? npusim::ascendc::align16(enSequentialWrite ? cur_m() : m_org_m)
                 : c_row_stride(enSequentialWrite ? cur_n() : m_org_kc);
        const std::uint64_t offset = enSequentialWrite ? 0 : c_offset(stride);
        const npusim::ascendc::GlobalView<DstT> dst = npusim::ascendc::view_of(gm[offset]);
        if (m_client) {
            request_tile(dst.address, dst.count, stride, enAtomic, loc);
            npusim::ascendc::matmul_wait_reply(loc);
            return;
        }
        write_c(dst.address, dst.count, stride, enAtomic, loc);
    }
    /// The current tile to UB (an AIV of a mixed kernel): packed at the tensor's start
    /// (enSequentialWrite) or at its place in the single-core C the tensor holds.
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT>& ub, std::uint8_t enAtomic = 0,
                    bool enSequentialWrite = false, Loc loc = Loc::current()) {
        if (!m_client) {
            fail(
                "GetTensorC to a LocalTensor (UB) needs a mixed kernel (the cube core has no "
                "UB): call it from the AIV",
                loc);
        }
        if (kCfg.isPartialOutput && !enSequentialWrite)
            fail("isPartialOutput takes GetTensorC's sequential form only (enSequentialWrite)",
                 loc);
        take_tile<sync>(loc);
        if (enAtomic != 0) fail("GetTensorC to UB with enAtomic is not supported", loc);
        if (kCNz || kCRowAlign > 1) fail("C in NZ or ND_ALIGN to UB is not supported yet", loc);
        const std::uint64_t rows = cur_m(), cols = cur_n();
        // enSequentialWrite (and the async form, whose tensor holds one base tile): the tile
        // packed at the tensor's start; otherwise at its place in the single-core C (rows m_n
        // elements apart) that the tensor holds.
        npusim::ascendc::UbPlace place{rows, cols, 0, cols};
        if (!enSequentialWrite && sync) {
            place.offset = m_tile_m * m_tiling.baseM * m_n + m_tile_n * m_tiling.baseN;
            place.stride = static_cast<std::uint64_t>(m_n);
        }
        to_ub(ub, place, loc, [&](std::uint64_t slot, std::uint64_t bytes) {
            request_tile(slot, bytes / sizeof(DstT), cols, 0, loc);
        });
    }

    /// Every tile of C to GM (row stride: C's original width).
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, std::uint8_t enAtomic = 0,
                    bool enSequentialWrite = false, bool waitIterateAll = false,
                    bool fakeMsg = false, Loc loc = Loc::current()) {
        (void)waitIterateAll;
        (void)fakeMsg;
        static_assert(!kCo1, "npusim Ascend C: C in CO1 is taken by Iterate(enPartialSum, co1)");
        static_assert(!kCfg.isPartialOutput,
                      "npusim Ascend C: isPartialOutput takes Iterate + GetTensorC only (the "
                      "vendor's rule)");
        if (m_client) {
            check_ready(loc);
            if (enSequentialWrite) fail("IterateAll from an AIV with enSequentialWrite", loc);
            const npusim::ascendc::GlobalView<DstT> dst = npusim::ascendc::view_of(gm);
            request_all(dst.address, dst.count,
                        kCNz ? npusim::ascendc::align16(m_org_m) : c_row_stride(m_org_kc), enAtomic,
                        loc);
            if (sync) {
                npusim::ascendc::matmul_wait_reply(loc);
            } else {
                m_wait_all = true;
            }
            return;
        }
        m_all = true;
        while (Iterate<sync>(false, loc)) GetTensorC<sync>(gm, enAtomic, enSequentialWrite, loc);
        m_all = false;
    }
    /// Every tile of C into UB (an AIV of a mixed kernel): the single-core C, row-major.
    template <bool sync = true>
    void IterateAll(const LocalTensor<DstT>& ub, std::uint8_t enAtomic = 0,
                    Loc loc = Loc::current()) {
        if (!m_client) {
            fail(
                "IterateAll to a LocalTensor (UB) needs a mixed kernel (the cube core has no "
                "UB): call it from the AIV",
                loc);
        }
        static_assert(!kCfg.isPartialOutput, "npusim Ascend C: isPartialOutput: Iterate only");
        check_ready(loc);
        if (enAtomic != 0) fail("IterateAll to UB with enAtomic is not supported", loc);
        if (kCNz || kCRowAlign > 1) fail("C in NZ or ND_ALIGN to UB is not supported yet", loc);
        const std::uint64_t count = static_cast<std::uint64_t>(m_m) * m_n;
        to_ub(ub, npusim::ascendc::UbPlace{1, count, 0, count}, loc,
              [&](std::uint64_t slot, std::uint64_t bytes) {
                  request_all(slot, bytes / sizeof(DstT), static_cast<std::uint64_t>(m_n), 0, loc);
              });
    }
    /// Waits for an IterateAll<false> of this AIV.
    void WaitIterateAll(Loc loc = Loc::current()) {
        if (!m_wait_all) return;
        m_wait_all = false;
        npusim::ascendc::matmul_wait_reply(loc);
    }

    /// The end of this matmul: the reuse flags of the object's own L1 buffers are consumed
    /// (MTE2 waits for MTE1's last reads), so a next object finds the event ids free.
    void End(Loc loc = Loc::current()) {
        m_a.set = m_b.set = m_bias.set = false;
        reset_iteration();
        if (m_client || !m_inited) return;
        m_a1.core().drain(loc);
        m_b1.core().drain(loc);
    }

private:
    [[noreturn]] static void fail(const std::string& what, const Loc& loc) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + "Matmul: " + what);
    }
    void reset_iteration() {
        m_next = 0;
        m_pending = false;
        m_async = false;
    }
    /// GetTensorC takes the tile Iterate made; after an Iterate<false> each GetTensorC<false>
    /// takes the next tile (the vendor's async form: one Iterate<false>, then GetTensorC<false>
    /// once per tile).
    template <bool sync>
    void take_tile(const Loc& loc) {
        if (!m_pending && !sync && m_async) {
            if (!Iterate<false>(false, loc)) fail("GetTensorC<false> after the last tile", loc);
        }
        if (!m_pending) fail("GetTensorC without a tile (call Iterate first)", loc);
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
    /// The current tile's first element in C (ND: rows `stride` apart; NZ: blocks of `stride`).
    std::uint64_t c_offset(std::uint64_t stride) const {
        const std::uint64_t m0 = m_tile_m * m_tiling.baseM, n0 = m_tile_n * m_tiling.baseN;
        return kCNz ? n0 * stride + m0 * kNzC0 : m0 * stride + n0;
    }
    std::uint64_t c_row_stride(std::uint64_t cols) const {
        return (cols + kCRowAlign - 1) / kCRowAlign * kCRowAlign;
    }
    npusim::ascendc::MatmulL0& l0() { return m_l0_shared ? *m_l0_shared : m_l0_own; }
    bool fractal() const {
        return npusim::ascendc::matmul_fractal<SrcT>(m_a.transposed, m_b.transposed);
    }

    // ---- the AIV -> AIC message mode (npusim_ascendc/matmul_mix.h) ----------------------
    npusim::ascendc::MatmulState snapshot() const {
        return {m_a, m_b,     m_bias,  m_user,   m_m,      m_n,
                m_k, m_org_m, m_org_n, m_org_ka, m_org_kb, m_org_kc};
    }
    void restore(const npusim::ascendc::MatmulState& s) {
        std::tie(m_a, m_b, m_bias, m_user, m_m, m_n, m_k, m_org_m, m_org_n, m_org_ka, m_org_kb,
                 m_org_kc) = std::tie(s.a, s.b, s.bias, s.user, s.m, s.n, s.k, s.org_m, s.org_n,
                                      s.org_ka, s.org_kb, s.org_kc);
        reset_iteration();
    }
    /// L0C -> GM (FIX): the current tile at `address`: ND with rows `stride` elements apart,
    /// converted to C's type on the way when it differs from L0C's (one Fixpipe), or NZ of
    /// L0C's type with column blocks of `stride` rows.
    void write_c(std::uint64_t address, std::uint64_t count, std::uint64_t stride,
                 std::uint8_t atomic, const Loc& loc) {
        LocalTensor<L0cT> c = l0().co1.template DeQue<L0cT>(loc);
        m_c_held = false;
        l0().c_holder = nullptr;
        this->npusim_write_tile(c, address, count, stride, atomic == 1, loc);
        l0().co1.FreeTensor(c, loc);
    }
    /// AIC: Init from an AIV's Init (REGIST_MATMUL_OBJ without a tiling): the buffers for the
    /// first one; a later one (the other AIV, or a re-Init) must keep the base tiles.
    void serve_init(const TCubeTiling& t, const Loc& loc) {
        if (!m_inited) {
            Init(&t, nullptr, loc);
            return;
        }
        if (t.baseM != m_tiling.baseM || t.baseN != m_tiling.baseN || t.baseK != m_tiling.baseK ||
            t.isBias != m_tiling.isBias) {
            fail(
                "two Inits of one Matmul object with other base tiles or bias: not supported "
                "yet (the AIC's buffers are sized by the first)",
                loc);
        }
        m_tiling = t;
        init_shapes();
    }
    /// AIC: one tile of an AIV's matmul to GM.
    void serve_tile(const npusim::ascendc::MatmulState& s, std::uint64_t tile_m,
                    std::uint64_t tile_n, std::int64_t k_step, std::uint64_t address,
                    std::uint64_t count, std::uint64_t stride, std::uint8_t atomic,
                    const Loc& loc) {
        restore(s);
        check_ready(loc);
        m_tile_m = tile_m;
        m_tile_n = tile_n;
        m_k_step = k_step;
        compute_tile(false, loc);
        write_c(address, count, stride, atomic, loc);
    }
    /// AIC: every tile of an AIV's matmul to GM at `address` (rows `stride` elements apart).
    void serve_all(const npusim::ascendc::MatmulState& s, std::uint64_t address,
                   std::uint64_t count, std::uint64_t stride, std::uint8_t atomic, const Loc& loc) {
        restore(s);
        m_all = true;
        while (Iterate<true>(false, loc)) {
            const std::uint64_t offset = c_offset(stride);
            write_c(address + offset * sizeof(DstT), count - offset, stride, atomic, loc);
            m_pending = false;
        }
        m_all = false;
    }
    void send(npusim::ascendc::MatmulRequest request, const Loc& loc) {
        // The last copy out of this AIV's workspace slot has finished before the AIC
        // overwrites it.
        if (m_slot_read) npusim::ascendc::matmul_order(npusim::Pipe::MTE2, npusim::Pipe::S, loc);
        m_slot_read = false;
        request.object = m_object;
        npusim::ascendc::matmul_send(std::move(request), loc);
    }
    void request_tile(std::uint64_t address, std::uint64_t count, std::uint64_t stride,
                      std::uint8_t atomic, const Loc& loc) {
        npusim::ascendc::MatmulRequest r;
        r.reply = true;
        r.run = [s = snapshot(), tm = m_tile_m, tn = m_tile_n, ks = m_k_step, address, count,
                 stride, atomic, loc](void* engine) {
            static_cast<Matmul*>(engine)->serve_tile(s, tm, tn, ks, address, count, stride, atomic,
                                                     loc);
        };
        send(std::move(r), loc);
    }
    void request_all(std::uint64_t address, std::uint64_t count, std::uint64_t stride,
                     std::uint8_t atomic, const Loc& loc) {
        npusim::ascendc::MatmulRequest r;
        r.reply = true;
        r.run = [s = snapshot(), address, count, stride, atomic, loc](void* engine) {
            static_cast<Matmul*>(engine)->serve_all(s, address, count, stride, atomic, loc);
        };
        send(std::move(r), loc);
    }
    /// AIV: C through this AIV's workspace slot into `ub` at `place` (matmul_to_ub).
    template <class Request>
    void to_ub(const LocalTensor<DstT>& ub, const npusim::ascendc::UbPlace& place, const Loc& loc,
               Request&& request) {
        npusim::ascendc::matmul_to_ub<DstT>(ub, place, m_workspace, loc, request);
        m_slot_read = true;
    }

    /// One output tile's cube work (npusim_ascendc/matmul_compute.h).
    void compute_tile(bool accumulate_onto_c, const Loc& loc) {
        npusim::ascendc::matmul_compute_tile(*this, accumulate_onto_c, loc);
    }
    template <class MM>
    friend void npusim::ascendc::matmul_compute_tile(MM&, bool, const Loc&);
    TCubeTiling m_tiling{};
    TQue<TPosition::A1, 2> m_a1;
    TQue<TPosition::B1, 2> m_b1;
    npusim::ascendc::MatmulL0 m_l0_own;
    std::shared_ptr<npusim::ascendc::MatmulL0> m_l0_shared;
    npusim::ascendc::MatmulOperand m_a, m_b, m_bias;
    npusim::ascendc::MatmulUserData m_user;
    bool m_bias_on = false;
    bool m_inited = false;
    bool m_pending = false;
    bool m_async = false;   // the last Iterate was Iterate<false>
    bool m_c_held = false;  // a tile is in L0C (CO1 enqueued), not yet taken
    bool m_all = false;     // IterateAll's own Iterates (OUTER_PRODUCT runs only those)
    const LocalTensor<L0cT>* m_user_c = nullptr;  // C in CO1: the tile's L0C tensor
    LocalTensor<SrcT> m_a_l1;                     // A in TSCM
    std::int64_t m_k_step = -1;                   // isPartialOutput: the K step (-1: all)
    std::int64_t m_m = 0, m_n = 0, m_k = 0;
    std::int64_t m_org_m = 0, m_org_n = 0, m_org_ka = 0, m_org_kb = 0, m_org_kc = 0;
    std::uint64_t m_next = 0, m_tile_m = 0, m_tile_n = 0;
    // An AIV's object in a mixed kernel: a client of its group's AIC.
    bool m_client = false, m_registered = false, m_init_aic = false;
    bool m_wait_all = false, m_slot_read = false;
    std::uint32_t m_object = 0;
    std::uint64_t m_workspace = 0;
    Loc m_loc = Loc::current();
};

}  // namespace AscendC

// The vendor's headers make the AscendC names visible in namespace matmul, so a kernel with
// `using namespace matmul;` calls GetBlockIdx, GetSysWorkSpacePtr, ... unqualified.
namespace matmul {
using namespace AscendC;
}  // namespace matmul
// ... and CubeFormat and GetSysWorkSpacePtr at global scope (the samples write them unqualified
// without a using-directive).
using AscendC::CubeFormat;
using AscendC::GetSysWorkSpacePtr;
