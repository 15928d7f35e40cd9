// The host-side Matmul tiling (matmul_tiling::MatmulApiTiling, MultiCoreMatmulTiling): from
// the operands' types, the shapes, the core count and the chip's memory sizes
// (platform_ascendc::PlatformAscendC), a TCubeTiling for the kernel's Matmul::Init that fits
// the buffers npusim's Matmul allocates (docs/ascendc.md, "The Matmul API"):
//   L1:  2 x (baseM x baseK + baseK x baseN) inputs + 2 x baseN fp32 bias (C1 and C2)
//   L0A: 2 x baseM x baseK    L0B: 2 x baseK x baseN    L0C: baseM x baseN fp32
// The split is npusim's own: cores over M and N to balance the per-core area, then the
// largest base tiles (multiples of 16) that fit, preferring square output tiles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>  // the vendor's tiling headers bring it; host samples use std::cout
#include <tuple>

#include "npusim_ascendc/adv_norm_v2_tiling.h"  // part E
#include "npusim_ascendc/adv_softmax_flash_tiling.h"
#include "npusim_ascendc/adv_softmax_tiling.h"
#include "npusim_ascendc/adv_sort_filter_tiling.h"
#include "npusim_ascendc/adv_tiling.h"  // the advanced APIs, part B
#include "npusim_ascendc/adv_tmp_size.h"
#include "npusim_ascendc/adv_transdata_tiling.h"
#include "npusim_ascendc/adv_transpose_tiling.h"  // part E
#include "npusim_ascendc/cube_tiling.h"
#include "npusim_ascendc/ge_data_type.h"
#include "securec.h"  // the vendor's tiling headers bring memcpy_s
#include "tiling/platform/platform_ascendc.h"

namespace matmul_tiling {

enum class TPosition : std::int32_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    MAX
};
enum class CubeFormat : std::int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
/// SetTraverse's order of the output tiles: FIRSTM along M first (iterateOrder 0), FIRSTN along
/// N first (1).
enum class MatrixTraverse : std::int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
/// The kernel's schedule as the host states it (SetMatmulConfigParams); npusim's tiling is
/// the same for each (the kernel's MatmulConfig decides what it runs).
enum class ScheduleType : std::int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };
/// SetMatmulConfigParams' parameters: the configuration type, the L1 cache of UB blocks, the
/// schedule (hints to the vendor's tiling) and the traverse order (as SetTraverse).
struct MatmulConfigParams {
    std::int32_t mmConfigType;
    bool enableL1CacheUB;
    ScheduleType scheduleType;
    MatrixTraverse traverse;
    bool enVecND2NZ;
    MatmulConfigParams(std::int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                       ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                       MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
        : mmConfigType(mmConfigTypeIn),
          enableL1CacheUB(enableL1CacheUBIn),
          scheduleType(scheduleTypeIn),
          traverse(traverseIn),
          enVecND2NZ(enVecND2NZIn) {}
};
/// SetDequantType: how an int8 matmul's int32 result becomes half C (SetQuantScalar's one
/// scale, or SetQuantVector's one per column); the kernel's call decides, the tiling is the same.
enum class DequantType : std::int32_t { SCALAR = 0, TENSOR = 1 };
/// The element types: the graph engine's (ge::DataType::DT_FLOAT16 and
/// matmul_tiling::DataType::DT_FLOAT16 name the same value).
using DataType = ge::DataType;

class MatmulApiTiling {
public:
    MatmulApiTiling() = default;
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& platform) {
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, m_l1);
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, m_l0a);
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, m_l0b);
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, m_l0c);
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, m_ub);
        m_cores = static_cast<std::int32_t>(platform.GetCoreNumAic());
    }
    virtual ~MatmulApiTiling() = default;

    std::int32_t SetAType(TPosition, CubeFormat format, DataType type, bool isTrans = false) {
        m_a_format = format;
        m_a_type = type;
        m_a_trans = isTrans;
        return 0;
    }
    std::int32_t SetBType(TPosition, CubeFormat format, DataType type, bool isTrans = false) {
        m_b_format = format;
        m_b_type = type;
        m_b_trans = isTrans;
        return 0;
    }
    std::int32_t SetCType(TPosition, CubeFormat format, DataType type) {
        m_c_format = format;
        m_c_type = type;
        return 0;
    }
    std::int32_t SetBiasType(TPosition, CubeFormat, DataType type) {
        m_bias_type = type;
        return 0;
    }
    std::int32_t SetShape(std::int32_t m, std::int32_t n, std::int32_t k) {
        m_m = m;
        m_n = n;
        m_k = k;
        if (m_org_m == 0 && m > 0 && n > 0 && k > 0) SetOrgShape(m, n, k);
        return 0;
    }
    std::int32_t SetOrgShape(std::int32_t orgM, std::int32_t orgN, std::int32_t orgK) {
        return SetOrgShape(orgM, orgN, orgK, orgK);
    }
    std::int32_t SetOrgShape(std::int32_t orgM, std::int32_t orgN, std::int32_t orgKa,
                             std::int32_t orgKb) {
        m_org_m = orgM;
        m_org_n = orgN;
        m_org_ka = orgKa;
        m_org_kb = orgKb;
        return 0;
    }
    std::int32_t SetSingleShape(std::int32_t singleM = -1, std::int32_t singleN = -1,
                                std::int32_t singleK = -1) {
        m_single_m = singleM;
        m_single_n = singleN;
        m_single_k = singleK;
        return 0;
    }
    /// Base tiles fixed by the caller (-1: chosen by GetTiling).
    std::int32_t SetFixSplit(std::int32_t baseM = -1, std::int32_t baseN = -1,
                             std::int32_t baseK = -1) {
        m_fix_m = baseM;
        m_fix_n = baseN;
        m_fix_k = baseK;
        return 0;
    }
    std::int32_t SetBias(bool isBias = false) {
        m_bias = isBias;
        return 0;
    }
    void EnableBias(bool isBias = false) { m_bias = isBias; }
    /// The bytes of L1 / L0C / UB the Matmul may use (-1: the whole memory); btSize is
    /// accepted (npusim keeps the bias table in L1).
    std::int32_t SetBufferSpace(std::int32_t l1Size = -1, std::int32_t l0CSize = -1,
                                std::int32_t ubSize = -1, std::int32_t btSize = -1) {
        (void)btSize;
        if (l1Size >= 0) m_l1_limit = static_cast<std::uint64_t>(l1Size);
        if (l0CSize >= 0) m_l0c_limit = static_cast<std::uint64_t>(l0CSize);
        if (ubSize >= 0) m_ub_limit = static_cast<std::uint64_t>(ubSize);
        return 0;
    }
    std::int32_t SetTraverse(std::int32_t order) {
        m_order = order;
        return 0;
    }
    std::int32_t SetTraverse(MatrixTraverse traverse) {
        m_order = traverse == MatrixTraverse::FIRSTN ? 1 : 0;
        return 0;
    }
    void SetMatmulConfigParams(std::int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                               ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                               MatrixTraverse traverseIn = MatrixTraverse::NOSET,
                               bool enVecND2NZIn = false) {
        SetMatmulConfigParams(MatmulConfigParams(mmConfigTypeIn, enableL1CacheUBIn, scheduleTypeIn,
                                                 traverseIn, enVecND2NZIn));
    }
    void SetMatmulConfigParams(const MatmulConfigParams& params) {
        if (params.traverse != MatrixTraverse::NOSET) SetTraverse(params.traverse);
        m_whole_cores = params.scheduleType == ScheduleType::N_BUFFER_33;
    }
    /// A batch matmul's layouts (the kernel's MatmulType LayoutMode BSNGD / SBNGD / BNGS1S2):
    /// A's and B's B, S, N, G, D axes, C's B, S1, N, G, S2 axes, and the most batches an
    /// IterateBatch takes; copied into TCubeTiling's *LayoutInfo* and BatchNum fields.
    std::int32_t SetALayout(std::int32_t b, std::int32_t s, std::int32_t n, std::int32_t g,
                            std::int32_t d) {
        m_layout[0] = {b, s, n, g, d};
        return 0;
    }
    std::int32_t SetBLayout(std::int32_t b, std::int32_t s, std::int32_t n, std::int32_t g,
                            std::int32_t d) {
        m_layout[1] = {b, s, n, g, d};
        return 0;
    }
    std::int32_t SetCLayout(std::int32_t b, std::int32_t s1, std::int32_t n, std::int32_t g,
                            std::int32_t s2) {
        m_layout[2] = {b, s1, n, g, s2};
        return 0;
    }
    std::int32_t SetBatchNum(std::int32_t batch) {
        m_batch_num = batch;
        return 0;
    }
    /// The NORMAL layout (batches of whole M x K, K x N, M x N matrices one after another):
    /// the batch counts of A and B and one batch's shape.
    std::int32_t SetBatchInfoForNormal(std::int32_t batchA, std::int32_t batchB, std::int32_t m,
                                       std::int32_t n, std::int32_t k) {
        SetALayout(batchA, m, 1, 1, k);
        SetBLayout(batchB, k, 1, 1, n);
        SetCLayout(std::max(batchA, batchB), m, 1, 1, n);
        if (m_batch_num <= 0) m_batch_num = std::max(batchA, batchB);
        return 0;
    }
    std::int32_t SetDequantType(DequantType) { return 0; }
    std::int32_t GetBaseM() const { return m_result.baseM; }
    std::int32_t GetBaseN() const { return m_result.baseN; }
    std::int32_t GetBaseK() const { return m_result.baseK; }

    /// Fills `tiling`; -1 when no tiling fits (the shapes, types or buffers npusim's Matmul
    /// cannot take), 0 otherwise.
    std::int64_t GetTiling(TCubeTiling& tiling) {
        // SetShape's -1: the original shape's extent.
        if (m_m <= 0) m_m = m_org_m;
        if (m_n <= 0) m_n = m_org_n;
        if (m_k <= 0) m_k = m_org_ka;
        if (!types_supported() || m_m <= 0 || m_n <= 0 || m_k <= 0) return -1;
        // npusim's Matmul moves fp32 / int8 tiles that need a transposing load row-major, in
        // whole 32-byte rows: N and K (and a transposed A's M) are then multiples of 32 bytes
        // of the input type (8 fp32, 32 int8 elements). Other tiles take any shape.
        const bool fractal = in_bytes() == 2 || (!m_a_trans && m_b_trans);
        if (!fractal && (m_n % c0() != 0 || m_k % c0() != 0 || (m_a_trans && m_m % c0() != 0)))
            return -1;
        TCubeTiling t;
        t.M = m_org_m > 0 ? m_org_m : m_m;
        t.N = m_org_n > 0 ? m_org_n : m_n;
        t.Ka = m_org_ka > 0 ? m_org_ka : m_k;
        t.Kb = m_org_kb > 0 ? m_org_kb : m_k;
        if (!split_cores(t)) return -1;
        if (!choose_base(t)) return -1;
        t.isBias = m_bias ? 1 : 0;
        t.iterateOrder = m_order;
        t.depthA1 = t.depthB1 = 2;
        t.dbL0A = t.dbL0B = 2;
        t.dbL0C = 1;
        t.shareL1Size = static_cast<std::int32_t>(l1_bytes(t.baseM, t.baseN, t.baseK));
        t.shareL0CSize = t.baseM * t.baseN * 4;
        std::tie(t.ALayoutInfoB, t.ALayoutInfoS, t.ALayoutInfoN, t.ALayoutInfoG, t.ALayoutInfoD) =
            m_layout[0];
        std::tie(t.BLayoutInfoB, t.BLayoutInfoS, t.BLayoutInfoN, t.BLayoutInfoG, t.BLayoutInfoD) =
            m_layout[1];
        std::tie(t.CLayoutInfoB, t.CLayoutInfoS1, t.CLayoutInfoN, t.CLayoutInfoG, t.CLayoutInfoS2) =
            m_layout[2];
        t.BatchNum = m_batch_num;
        m_result = t;
        tiling = t;
        return 0;
    }

protected:
    /// Cores over M and N (the multi-core tiling overrides it; one core here).
    virtual bool split_cores(TCubeTiling& t) {
        t.singleCoreM = m_single_m > 0 ? m_single_m : m_m;
        t.singleCoreN = m_single_n > 0 ? m_single_n : m_n;
        t.singleCoreK = m_single_k > 0 ? m_single_k : m_k;
        t.usedCoreNum = 1;
        return true;
    }
    static std::int32_t align16(std::int64_t v) {
        return static_cast<std::int32_t>((v + 15) / 16 * 16);
    }
    /// The input element's bytes (fp32 4, fp16 / bf16 2, int8 1; 0: npusim's Matmul does not
    /// take it).
    std::int64_t in_bytes() const {
        if (m_a_type != m_b_type) return 0;
        if (m_a_type == DataType::DT_FLOAT16 || m_a_type == DataType::DT_BF16) return 2;
        if (m_a_type == DataType::DT_FLOAT) return 4;
        return m_a_type == DataType::DT_INT8 ? 1 : 0;
    }
    /// Elements of the input type in 32 bytes: N and K steps are multiples of it.
    std::int32_t c0() const { return static_cast<std::int32_t>(32 / in_bytes()); }
    static std::int32_t align_to(std::int64_t v, std::int64_t step) {
        return static_cast<std::int32_t>((v + step - 1) / step * step);
    }
    static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

    std::int32_t m_m = 0, m_n = 0, m_k = 0;
    std::int32_t m_single_m = -1, m_single_n = -1, m_single_k = -1;
    std::int32_t m_fix_m = -1, m_fix_n = -1, m_fix_k = -1;
    std::int32_t m_cores = 1;
    using Axes = std::tuple<std::int32_t, std::int32_t, std::int32_t, std::int32_t, std::int32_t>;
    Axes m_layout[3] = {};  // A, B, C
    std::int32_t m_batch_num = 0;
    // ScheduleType::N_BUFFER_33: the kernel's NBuffer33 policy holds a core's A as whole base
    // blocks and its samples never call SetTail, so every core gets the same M and N.
    bool m_whole_cores = false;

private:
    /// The types npusim's Matmul takes (npusim_ascendc/matmul_config.h): fp16 / bf16 / fp32 inputs
    /// to fp32 (or fp16 / bf16 through the fixpipe) with an fp32 bias, int8 to int32 with an
    /// int32 bias; ND C (NZ of L0C's type); ND or NZ A and B.
    bool types_supported() const {
        const bool int8 = m_a_type == DataType::DT_INT8;
        const DataType l0c = int8 ? DataType::DT_INT32 : DataType::DT_FLOAT;
        // int8 -> half: the fixpipe's dequantisation (SetQuantScalar / SetQuantVector).
        const bool c_ok = int8
                              ? m_c_type == DataType::DT_INT32 || m_c_type == DataType::DT_FLOAT16
                              : (m_c_type == DataType::DT_FLOAT ||
                                 m_c_type == DataType::DT_FLOAT16 || m_c_type == DataType::DT_BF16);
        const bool c_format_ok = m_c_format == CubeFormat::ND ||
                                 m_c_format == CubeFormat::ND_ALIGN ||
                                 (m_c_format == CubeFormat::NZ && m_c_type == l0c);
        return in_bytes() != 0 && c_ok && c_format_ok && (!m_bias || m_bias_type == l0c) &&
               (m_a_format == CubeFormat::ND || m_a_format == CubeFormat::NZ ||
                m_a_format == CubeFormat::VECTOR) &&
               (m_b_format == CubeFormat::ND || m_b_format == CubeFormat::NZ);
    }
    std::uint64_t l1_bytes(std::int64_t bm, std::int64_t bn, std::int64_t bk) const {
        return static_cast<std::uint64_t>(2 * (bm * bk + bk * bn) * in_bytes() +
                                          (m_bias ? 2 * bn * 4 : 0));
    }
    bool fits(std::int64_t bm, std::int64_t bn, std::int64_t bk) const {
        const std::uint64_t l1 = std::min(m_l1, m_l1_limit);
        const std::uint64_t l0c = std::min(m_l0c, m_l0c_limit);
        const auto l0 = [&](std::int64_t rows, std::int64_t cols) {
            return static_cast<std::uint64_t>(2 * rows * cols * in_bytes());
        };
        // The bias row of baseN fp32 / int32 values sits in the bias table (A2/A3: 1 KiB).
        if (m_bias && static_cast<std::uint64_t>(bn) * 4 > kBiasTableBytes) return false;
        return l1_bytes(bm, bn, bk) <= l1 && l0(bm, bk) <= m_l0a && l0(bk, bn) <= m_l0b &&
               static_cast<std::uint64_t>(bm * bn * 4) <= l0c;
    }
    bool choose_base(TCubeTiling& t) const {
        const std::int32_t step = c0();
        const std::int32_t step_n = std::max(step, 16);  // whole fractals of L0C
        const std::int32_t max_m = align16(t.singleCoreM), max_n = align_to(t.singleCoreN, step_n);
        const std::int32_t max_k = align_to(t.singleCoreK, step);
        std::int64_t best_area = 0, best_skew = 0;
        bool found = false;
        for (std::int32_t bm = 16; bm <= std::min(max_m, 512); bm += 16) {
            if (m_fix_m > 0 && bm != m_fix_m) continue;
            for (std::int32_t bn = step_n; bn <= std::min(max_n, 512); bn += step_n) {
                if (m_fix_n > 0 && bn != m_fix_n) continue;
                const std::int32_t bk = m_fix_k > 0 ? m_fix_k : std::min(max_k, step);
                if (!fits(bm, bn, bk)) continue;
                const std::int64_t area = std::int64_t{bm} * bn;
                const std::int64_t skew = std::abs(bm - bn);
                if (!found || area > best_area || (area == best_area && skew < best_skew)) {
                    t.baseM = bm;
                    t.baseN = bn;
                    best_area = area;
                    best_skew = skew;
                    found = true;
                }
            }
        }
        if (!found) return false;
        // The deepest K step that still fits (fewer, longer Mmads), up to 256.
        t.baseK = m_fix_k > 0 ? m_fix_k : step;
        if (m_fix_k <= 0) {
            for (std::int32_t bk = std::min(max_k, 256 / step * step); bk >= step; bk -= step) {
                if (fits(t.baseM, t.baseN, bk)) {
                    t.baseK = bk;
                    break;
                }
            }
        }
        return true;
    }

    CubeFormat m_a_format = CubeFormat::ND, m_b_format = CubeFormat::ND,
               m_c_format = CubeFormat::ND;
    DataType m_a_type = DataType::DT_FLOAT16, m_b_type = DataType::DT_FLOAT16,
             m_c_type = DataType::DT_FLOAT, m_bias_type = DataType::DT_FLOAT;
    bool m_a_trans = false, m_b_trans = false, m_bias = false;
    std::int32_t m_org_m = 0, m_org_n = 0, m_org_ka = 0, m_org_kb = 0;
    std::int32_t m_order = 0;
    static constexpr std::uint64_t kBiasTableBytes = 1024;
    // A2's per-core sizes unless a platform says otherwise.
    std::uint64_t m_l1 = 524288, m_l0a = 65536, m_l0b = 65536, m_l0c = 131072, m_ub = 196608;
    std::uint64_t m_l1_limit = UINT64_MAX, m_l0c_limit = UINT64_MAX, m_ub_limit = UINT64_MAX;
    TCubeTiling m_result{};
};

class MultiCoreMatmulTiling : public MatmulApiTiling {
public:
    MultiCoreMatmulTiling() = default;
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& platform)
        : MatmulApiTiling(platform) {}

    /// The cores (blocks) the matmul may use.
    std::int32_t SetDim(std::int32_t dim) {
        m_dim = dim;
        return 0;
    }
    /// Split K over cores too (after M and N): each core multiplies a K slice and the kernel
    /// adds the slices into C (IterateAll with enAtomic 1 over a zeroed C).
    void EnableMultiCoreSplitK(bool flag) { m_split_k = flag; }
    std::int32_t GetCoreNum(std::int32_t& dim, std::int32_t& mDim, std::int32_t& nDim) const {
        dim = m_used;
        mDim = m_mdim;
        nDim = m_ndim;
        return 0;
    }
    std::int32_t GetSingleShape(std::int32_t& shapeM, std::int32_t& shapeN,
                                std::int32_t& shapeK) const {
        shapeM = m_smm;
        shapeN = m_snn;
        shapeK = m_skk;
        return 0;
    }

protected:
    /// mDim x nDim <= dim cores minimising the largest per-core block (then the most cores):
    /// each core's M and N are multiples of 16 except the last core's tail.
    bool split_cores(TCubeTiling& t) override {
        const std::int32_t dim = m_dim > 0 ? m_dim : m_cores;
        if (m_single_m > 0 && m_single_n > 0) {
            t.singleCoreM = m_single_m;
            t.singleCoreN = m_single_n;
        } else {
            // The order of preference: with N_BUFFER_33, a split without tails (every core the
            // same M and N, as asc-devkit matmul_nbuffer33 assumes); a split whose cores all
            // have the same N (no N tail): samples copy whole base tiles along N and handle only
            // an M tail (asc-devkit matmul_async_iterate: 640 x 1024 over 48 AIVs, 6 x 8 cores
            // of 112 x 128); the smallest per-core block; with base tiles fixed (SetFixSplit),
            // fewer base tiles a core (samples copy whole base tiles out: 1024 x 640 over 2 with
            // 128 x 128 tiles splits M, 512 x 640); without fixed tiles, the squarest per-core
            // block (matmul_format_nd_align's 128 x 7679 over 24 splits N only, 128 x 320: its
            // C offsets assume M is not split); then the smaller of M and N split further, M
            // when equal (512 x 512 over 2 splits M; matmul_leakyrelu_advanced_api's 512 x 128
            // over 2 with 128 x 64 tiles splits N).
            struct Score {
                bool any_tail, tail;
                std::int64_t cost, tiles, skew;
                std::int32_t split;
                bool operator<(const Score& o) const {
                    if (any_tail != o.any_tail) return !any_tail;
                    if (tail != o.tail) return !tail;
                    if (cost != o.cost) return cost < o.cost;
                    if (tiles != o.tiles) return tiles < o.tiles;
                    if (skew != o.skew) return skew < o.skew;
                    return split > o.split;
                }
            };
            const bool fixed = m_fix_m > 0 || m_fix_n > 0;
            bool found = false;
            Score best{};
            for (std::int32_t md = 1; md <= dim; ++md) {
                for (std::int32_t nd = 1; md * nd <= dim; ++nd) {
                    const std::int32_t sm = align16(ceil_div(m_m, md));
                    const std::int32_t sn = align_to(ceil_div(m_n, nd), c0());
                    const Score score{
                        m_whole_cores && (m_m % sm != 0 || m_n % sn != 0),
                        m_n % sn != 0,
                        std::int64_t{sm} * sn,
                        ceil_div(sm, m_fix_m > 0 ? m_fix_m : 1) *
                            ceil_div(sn, m_fix_n > 0 ? m_fix_n : 1),
                        fixed ? 0 : std::int64_t{std::max(sm, sn)} * 1024 / std::min(sm, sn),
                        m_m <= m_n ? md : nd};
                    if (!found || score < best) {
                        found = true;
                        best = score;
                        t.singleCoreM = sm;
                        t.singleCoreN = sn;
                    }
                }
            }
        }
        t.singleCoreK = m_single_k > 0 ? m_single_k : m_k;
        m_mdim = static_cast<std::int32_t>(ceil_div(m_m, t.singleCoreM));
        m_ndim = static_cast<std::int32_t>(ceil_div(m_n, t.singleCoreN));
        m_used = m_mdim * m_ndim;
        if (m_split_k && m_single_k <= 0) {
            // The most K slices the free cores take that split K evenly in whole 16-element
            // steps (the samples give every core singleCoreK, with no K tail).
            for (std::int32_t kd = std::max(1, dim / m_used); kd > 1; --kd) {
                if (m_k % kd == 0 && (m_k / kd) % std::max(16, c0()) == 0) {
                    t.singleCoreK = m_k / kd;
                    m_used *= kd;
                    break;
                }
            }
        }
        t.usedCoreNum = m_used;
        m_smm = t.singleCoreM;
        m_snn = t.singleCoreN;
        m_skk = t.singleCoreK;
        return m_used <= dim;
    }

private:
    bool m_split_k = false;
    std::int32_t m_dim = 0, m_used = 0, m_mdim = 0, m_ndim = 0, m_smm = 0, m_snn = 0, m_skk = 0;
};

/// The batch matmul's tiling (IterateBatch / IterateNBatch): one core's tiling of one batch, with
/// the layouts above.
class BatchMatmulTiling : public MatmulApiTiling {
public:
    BatchMatmulTiling() = default;
    explicit BatchMatmulTiling(const platform_ascendc::PlatformAscendC& platform)
        : MatmulApiTiling(platform) {}
};

}  // namespace matmul_tiling
