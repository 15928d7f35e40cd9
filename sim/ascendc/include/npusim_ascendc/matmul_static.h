// The Matmul API's compile-time options (lib/matmul_intf.h): GetMMConfig and its parameter
// structs, the constant tiling (MatmulApiStaticTiling, GetMatmulApiTiling), the callback
// template (MatmulCallBackFunc) and the schedule policies. Which of them npusim's Matmul runs
// and which it rejects is decided in npusim_ascendc/matmul.h (docs/ascendc.md, "The Matmul
// API").
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/cube_tiling.h"
#include "npusim_ascendc/matmul_config.h"

namespace AscendC {

/// GetMMConfig's parameters (the vendor's reference, "GetMMConfig"), each in any order.
struct MatmulShapeParams {
    std::uint32_t singleCoreM, singleCoreN, singleCoreK;
    std::uint32_t basicM, basicN, basicK;
};
struct MatmulQuantParams {
    bool isPerTensor;
    bool hasAntiQuantOffset;
};
struct MatmulBatchParams {
    bool isNBatch;
    BatchMode batchMode;
    bool isBiasBatch = true;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
};
struct MatmulFuncParams {
    bool intrinsicsCheck;
    bool enVecND2NZ;
    bool enableDoubleCache;
    bool enableL1CacheUB;
    std::uint32_t doMTE2Preload;
    IterateOrder iterateOrder;
    ScheduleType scheduleType;
    bool enableReuse = true;
    bool enableUBReuse;
    bool isPartialOutput = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
};
struct MatmulBiasParams {
    bool enableSetBias = true;
};

namespace npusim_detail {
constexpr void apply(MatmulConfig& c, const MatmulShapeParams& p) {
    c.singleCoreM = p.singleCoreM;
    c.singleCoreN = p.singleCoreN;
    c.singleCoreK = p.singleCoreK;
    c.basicM = p.basicM;
    c.basicN = p.basicN;
    c.basicK = p.basicK;
}
constexpr void apply(MatmulConfig& c, const MatmulQuantParams& p) {
    c.isPerTensor = p.isPerTensor;
    c.hasAntiQuantOffset = p.hasAntiQuantOffset;
}
constexpr void apply(MatmulConfig& c, const MatmulBatchParams& p) {
    c.isNBatch = p.isNBatch;
    c.batchMode = p.batchMode;
    c.isBiasBatch = p.isBiasBatch;
    c.bmmOutMode = p.bmmOutMode;
}
constexpr void apply(MatmulConfig& c, const MatmulFuncParams& p) {
    c.intrinsicsCheck = p.intrinsicsCheck;
    c.enVecND2NZ = p.enVecND2NZ;
    c.enableDoubleCache = p.enableDoubleCache;
    c.enableL1CacheUB = p.enableL1CacheUB;
    c.doMTE2Preload = p.doMTE2Preload;
    c.iterateOrder = p.iterateOrder;
    c.scheduleType = p.scheduleType;
    c.enableReuse = p.enableReuse;
    c.enableUBReuse = p.enableUBReuse;
    c.isPartialOutput = p.isPartialOutput;
    c.isA2B2Shared = p.isA2B2Shared;
    c.isEnableChannelSplit = p.isEnableChannelSplit;
    c.enableKdimReorderLoad = p.enableKdimReorderLoad;
    c.enableL1BankConflictOptimise = p.enableL1BankConflictOptimise;
    c.enableRelu = p.enableRelu;
    c.decompMode = p.decompMode;
}
constexpr void apply(MatmulConfig& c, const MatmulBiasParams& p) {
    c.enableSetBias = p.enableSetBias;
}
}  // namespace npusim_detail

/// A configuration of `configMode` with the given parameter structs applied.
template <MatmulConfigMode configMode, class... ArgTypes>
constexpr MatmulConfig GetMMConfig(ArgTypes&&... args) {
    MatmulConfig c = CFG_NORM;
    if constexpr (configMode == MatmulConfigMode::CONFIG_MDL ||
                  configMode == MatmulConfigMode::CONFIG_SPECIALMDL) {
        c = CFG_MDL;
    } else if constexpr (configMode == MatmulConfigMode::CONFIG_IBSHARE) {
        c = CFG_IBSHARE_NORM;
    }
    (npusim_detail::apply(c, args), ...);
    return c;
}

#define NPUSIM_STATIC_TILING_MEMBER(field, init) std::int32_t field = -1;
/// A constant tiling: TCubeTiling's fields (-1: not constant) and the configuration. As
/// Matmul's MM_CFG it configures the object as `cfg` does, and REGIST_MATMUL_OBJ / Init
/// without a TCubeTiling take their tiling from it.
struct MatmulApiStaticTiling {
    NPUSIM_TCUBE_TILING_FIELDS(NPUSIM_STATIC_TILING_MEMBER)
    MatmulConfig cfg = CFG_NORM;
};
#undef NPUSIM_STATIC_TILING_MEMBER

/// The constant tiling of `mmCFG`'s shapes (GetMMConfig with MatmulShapeParams): one core's
/// singleCore M x N x K in base tiles basicM x basicN x basicK, L0A / L0B double-buffered
/// when two base tiles fit A2/A3's 64 KiB. Without the shapes the tiling stays runtime (-1).
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig& mmCFG,
                                                   std::int32_t l1Size = 512 * 1024) {
    (void)l1Size;
    MatmulApiStaticTiling t;
    t.cfg = mmCFG;
    if (mmCFG.singleCoreM == 0 || mmCFG.singleCoreN == 0 || mmCFG.singleCoreK == 0 ||
        mmCFG.basicM == 0 || mmCFG.basicN == 0 || mmCFG.basicK == 0) {
        return t;
    }
    using SrcT = typename A_TYPE::T;
    t.M = static_cast<std::int32_t>(mmCFG.singleCoreM);
    t.N = static_cast<std::int32_t>(mmCFG.singleCoreN);
    t.Ka = t.Kb = static_cast<std::int32_t>(mmCFG.singleCoreK);
    t.singleCoreM = t.M;
    t.singleCoreN = t.N;
    t.singleCoreK = t.Ka;
    t.baseM = static_cast<std::int32_t>(mmCFG.basicM);
    t.baseN = static_cast<std::int32_t>(mmCFG.basicN);
    t.baseK = static_cast<std::int32_t>(mmCFG.basicK);
    t.usedCoreNum = 1;
    t.depthA1 = t.depthB1 = t.stepM = t.stepN = t.stepKa = t.stepKb = 1;
    t.isBias = mmCFG.enableSetBias ? 1 : 0;
    t.iterateOrder = 0;
    constexpr std::uint64_t kL0Bytes = 64 * 1024;
    t.dbL0A = 2 * std::uint64_t{mmCFG.basicM} * mmCFG.basicK * sizeof(SrcT) <= kL0Bytes ? 2 : 1;
    t.dbL0B = 2 * std::uint64_t{mmCFG.basicK} * mmCFG.basicN * sizeof(SrcT) <= kL0Bytes ? 2 : 1;
    t.dbL0C = 1;
    (void)sizeof(B_TYPE);
    (void)sizeof(C_TYPE);
    (void)sizeof(BIAS_TYPE);
    return t;
}

/// User copy functions in place of the Matmul's own (the vendor's reference,
/// "MatmulCallBackFunc"): C out of L0C, A and B into L1. npusim's Matmul calls CopyA1 /
/// CopyB1 for the tiles of A / B (matmul_tile.h); DataCopyOut is not supported yet.
template <void (*DataCopyOut)(const __gm__ void* gm, const LocalTensor<std::int8_t>& co1Local,
                              const void* dataCopyOutParams, const std::uint64_t tilingPtr,
                              const std::uint64_t dataPtr) = nullptr,
          void (*CopyA1)(const LocalTensor<std::int8_t>& aMatrix, const __gm__ void* gm, int row,
                         int col, int useM, int useK, const std::uint64_t tilingPtr,
                         const std::uint64_t dataPtr) = nullptr,
          void (*CopyB1)(const LocalTensor<std::int8_t>& bMatrix, const __gm__ void* gm, int row,
                         int col, int useK, int useN, const std::uint64_t tilingPtr,
                         const std::uint64_t dataPtr) = nullptr>
struct MatmulCallBackFunc {
    static constexpr bool npusim_custom_out = DataCopyOut != nullptr;
    static constexpr auto npusim_copy_a1 = CopyA1;
    static constexpr auto npusim_copy_b1 = CopyB1;
};

namespace Impl::Detail {
/// The schedule policies (Matmul's last template parameter). MatmulPolicy is the default;
/// NBuffer33MatmulPolicy only balances the vendor's loads against its copy-out (a hint: npusim
/// runs its schedule); the triangle and split policies change which tiles are computed and
/// are compile errors in npusim's Matmul.
enum class NpusimPolicy : std::uint8_t { Default, NBuffer33, TriangleUpper, TriangleLower, Split };
template <const auto& MM_CFG, class IMPL, class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
struct MatmulPolicy {
    static constexpr NpusimPolicy npusim_policy = NpusimPolicy::Default;
};
template <const auto& MM_CFG, class IMPL, class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
struct NBuffer33MatmulPolicy {
    static constexpr NpusimPolicy npusim_policy = NpusimPolicy::NBuffer33;
};
template <const auto& MM_CFG, class IMPL, class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
struct TrianUpperMatmulPolicy {
    static constexpr NpusimPolicy npusim_policy = NpusimPolicy::TriangleUpper;
};
template <const auto& MM_CFG, class IMPL, class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
struct TrianLowerMatmulPolicy {
    static constexpr NpusimPolicy npusim_policy = NpusimPolicy::TriangleLower;
};
template <const auto& MM_CFG, class IMPL, class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
struct SplitMMatmulPolicy {
    static constexpr NpusimPolicy npusim_policy = NpusimPolicy::Split;
};
template <const auto& MM_CFG, class IMPL, class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
struct SplitNMatmulPolicy {
    static constexpr NpusimPolicy npusim_policy = NpusimPolicy::Split;
};
}  // namespace Impl::Detail

}  // namespace AscendC

using AscendC::GetMatmulApiTiling;
using AscendC::GetMMConfig;
using AscendC::MatmulApiStaticTiling;
using AscendC::MatmulBatchParams;
using AscendC::MatmulBiasParams;
using AscendC::MatmulFuncParams;
using AscendC::MatmulQuantParams;
using AscendC::MatmulShapeParams;

namespace npusim::ascendc {

/// The TCubeTiling of a constant tiling with its shapes (GetMatmulApiTiling), else null.
template <const auto& MM_CFG>
const TCubeTiling* matmul_static_tiling() {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(MM_CFG)>,
                                 AscendC::MatmulApiStaticTiling>) {
        if (MM_CFG.baseM <= 0) return nullptr;
        static const TCubeTiling tiling = [] {
            TCubeTiling t;
#define NPUSIM_STATIC_TILING_COPY(field, init) \
    if (MM_CFG.field >= 0) t.field = MM_CFG.field;
            NPUSIM_TCUBE_TILING_FIELDS(NPUSIM_STATIC_TILING_COPY)
#undef NPUSIM_STATIC_TILING_COPY
            return t;
        }();
        return &tiling;
    } else {
        return nullptr;
    }
}

/// MM_CFG as a MatmulConfig, whether it is one or a constant tiling.
template <class Cfg>
constexpr const AscendC::MatmulConfig& matmul_config_of(const Cfg& cfg) {
    if constexpr (std::is_same_v<std::remove_cv_t<Cfg>, AscendC::MatmulApiStaticTiling>) {
        return cfg.cfg;
    } else {
        return cfg;
    }
}

}  // namespace npusim::ascendc
