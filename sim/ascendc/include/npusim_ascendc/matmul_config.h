// The Matmul API's types (lib/matmul_intf.h): MatmulType, the configurations, the UB size
// constants, and which element types npusim's Matmul takes, read from the cube's tables
// (base/cube_types.h): A and B of one cube input type, L0C of its result type, C either that
// type or converted by the fixpipe on the way out (F322F16, F322BF16), the bias of the L0C type.
#pragma once

#include <cstdint>
#include <type_traits>

#include "base/cube_types.h"
#include "npusim_ascendc/constants.h"
#include "npusim_ascendc/cube.h"

namespace AscendC {

enum class CubeFormat : std::uint8_t { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

/// Batch layouts (MatmulType's layout; NONE: not a batch matmul; IterateBatch reads matrix i
/// where npusim_ascendc/matmul_batch.h's batch_place says).
enum class LayoutMode : std::uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
/// How a batch matmul's batches relate to L1 (GetNormalConfig's bmmMode; a schedule hint).
enum class BatchMode : std::uint8_t {
    NONE = 0,
    BATCH_LESS_THAN_L1,
    BATCH_LARGE_THAN_L1,
    SINGLE_LARGE_THAN_L1
};
enum BatchOutMode : std::uint8_t { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };
/// Which configuration GetMMConfig starts from.
enum class MatmulConfigMode : std::uint8_t {
    CONFIG_NORM,
    CONFIG_MDL,
    CONFIG_SPECIALMDL,
    CONFIG_IBSHARE
};

/// `IBSHARE`: the two AIVs of a group share this operand's L1 copy (a schedule hint: npusim's
/// AIC loads the operand for each request either way).
template <TPosition POSITION, CubeFormat FORMAT, class TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

/// The order of the output tiles (MatmulConfig::iterateOrder; UNDEF: the tiling's).
enum class IterateOrder : std::uint8_t { ORDER_M = 0, ORDER_N, UNDEF };
/// One output tile per Iterate (INNER_PRODUCT); OUTER_PRODUCT (the vendor's M/N double
/// buffer, two tiles an Iterate) runs IterateAll as INNER_PRODUCT (the same C); its Iterate /
/// GetTensorC are a KernelError (not supported yet).
enum class ScheduleType : std::uint8_t { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class DecompressionMode : std::uint8_t { DECOMP_NONE = 0 };

/// The configurations: npusim runs the norm schedule for each (docs/ascendc.md). The fields
/// marked "hint" only tune the vendor's schedule (loads, buffers, preloads, flags) and do not
/// change npusim's; those that change the result (marked "result") are compile errors in
/// Matmul unless at their defaults.
struct MatmulConfig {
    bool doNorm = false;
    bool doBasicBlock = false;                         // hint
    bool doMultiDataLoad = false;                      // hint (the MDL template)
    std::uint32_t basicM = 0, basicN = 0, basicK = 0;  // base tiles of a constant tiling
    bool intrinsicsCheck = false;                      // hint
    bool isNBatch = false;                             // IterateNBatch
    bool enVecND2NZ = false;                           // hint
    bool doSpecialBasicBlock = false;                  // hint
    std::uint32_t doMTE2Preload = 0;                   // hint
    std::uint32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;   // of a constant tiling
    std::uint32_t stepM = 0, stepN = 0, baseMN = 0, singleCoreMN = 0;  // hint
    bool enUnitFlag = false;                                           // hint
    bool isPerTensor = false, hasAntiQuantOffset = false;  // int8 B with half A (not modelled)
    bool doIBShareNorm = false;                            // hint
    bool doSpecialMDL = false;                             // hint
    bool enableInit = true, enableEnd = true, enableGetTensorC = true, enableSetOrgShape = true;
    BatchMode batchMode = BatchMode::NONE;  // hint
    bool enableSetBias = true, enableSetTail = true, enableQuantVector = true;
    bool enableSetDefineData = true;
    std::uint8_t iterateMode = 0xff;
    bool enableReuse = true, enableUBReuse = false, enableL1CacheUB = false;  // hint
    bool intraBlockPartSum = false;                                           // result
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableDoubleCache = false;      // hint
    bool isBiasBatch = true;             // batch matmul
    bool enableStaticPadZeros = false;   // hint
    bool isPartialOutput = false;        // result
    bool enableMixDualMaster = false;    // result (AIC and AIV run on their own)
    bool isA2B2Shared = false;           // hint (L0A / L0B shared between objects)
    bool isEnableChannelSplit = false;   // result (C's NZ layout)
    bool enableKdimReorderLoad = false;  // hint (the order of the K steps' loads)
    bool isCO1Shared = false;            // result
    std::uint32_t sharedCO1BufferSize = 64 * 1024;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    bool enableL1BankConflictOptimise = false;  // hint
    bool enableRelu = false;                    // result
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
    bool isMsgReuse = true;  // hint
};
/// The vendor's parameters (its reference, "MatmulConfig"); npusim's schedule uses
/// iterateOrder and scheduleType (see the fields' notes for the rest).
constexpr MatmulConfig GetNormalConfig(bool intrinsicsLimit = false, bool batchLoop = false,
                                       bool isVecND2NZ = false,
                                       BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       bool isMsgReuse = true,
                                       IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       bool enUnitFlag = true, bool enableMixDualMaster = false,
                                       BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH) {
    MatmulConfig c;
    c.doNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.isMsgReuse = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    c.bmmOutMode = bmmOutMode;
    return c;
}
/// The vendor's parameters (the quantisation ones are for int8 B, not modelled).
constexpr MatmulConfig GetMDLConfig(bool intrinsicsLimit = false, bool batchLoop = false,
                                    std::uint32_t doMTE2Preload = 0, bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    bool enUnitFlag = false, bool isMsgReuse = true,
                                    bool enableUBReuse = true, bool enableL1CacheUB = false,
                                    bool enableMixDualMaster = false,
                                    bool enableKdimReorderLoad = false,
                                    bool enableL1BankConflictOptimise = false) {
    MatmulConfig c;
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    c.isMsgReuse = isMsgReuse;
    c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB;
    c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    c.enableL1BankConflictOptimise = enableL1BankConflictOptimise;
    return c;
}
/// The IBShare template: the norm schedule with the shared-L1 hints.
constexpr MatmulConfig GetIBShareNormConfig(bool intrinsicsLimit = false, bool batchLoop = false,
                                            bool isVecND2NZ = false,
                                            BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                            bool isDoubleCache = false, bool enUnitFlag = true) {
    MatmulConfig c = GetNormalConfig(intrinsicsLimit, batchLoop, isVecND2NZ, bmmMode);
    c.doNorm = false;
    c.doIBShareNorm = true;
    c.enableDoubleCache = isDoubleCache;
    c.enUnitFlag = enUnitFlag;
    return c;
}
constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();

/// The vendor's UB size constants for the modelled part (Atlas A2 / 910B, the vendor's kernel
/// constants as quoted publicly): 192 KiB of UB, the top 8 KiB reserved, so kernels size their
/// scratch (e.g. Matmul's SetLocalWorkspace) by TOTAL_VEC_LOCAL_SIZE.
constexpr std::int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr std::uint32_t TOTAL_UB_SIZE = 192 * 1024;

}  // namespace AscendC

// The vendor's headers declare the configurations at global scope: samples write
// `Matmul<A, B, C, Bias, CFG_NORM>` and `constexpr MatmulConfig GetCustomMDLCFG()` unqualified.
using AscendC::BatchMode;
using AscendC::BatchOutMode;
using AscendC::CFG_IBSHARE_NORM;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::GetIBShareNormConfig;
using AscendC::GetMDLConfig;
using AscendC::GetNormalConfig;
using AscendC::IterateOrder;
using AscendC::LayoutMode;
using AscendC::MatmulConfig;
using AscendC::MatmulConfigMode;
using AscendC::ScheduleType;

namespace npusim::ascendc {

/// L0C's element type for cube inputs `SrcT` (int8 -> int32, the float types -> float).
template <class SrcT>
using MatmulL0cT = std::conditional_t<std::is_same_v<SrcT, std::int8_t>, std::int32_t, float>;

/// The fixpipe conversion from L0C (`L0cT`) to C (`DstT`); None: C has L0C's type.
template <class L0cT, class DstT>
constexpr FixQuant matmul_quant() {
    if constexpr (std::is_same_v<L0cT, float> && std::is_same_v<DstT, half>) {
        return FixQuant::F322F16;
    } else if constexpr (std::is_same_v<L0cT, float> && std::is_same_v<DstT, npusim::bfloat16>) {
        return FixQuant::F322BF16;
    } else {
        return FixQuant::None;
    }
}
/// Whether npusim's Matmul writes `DstT` from L0C of `L0cT`: the same type, a conversion of the
/// fixpipe's table (base/cube_types.h) that needs no scale, or int32 -> half by a scale.
template <class L0cT, class DstT>
constexpr bool matmul_writes() {
    if constexpr (std::is_same_v<L0cT, DstT>) {
        return true;
    } else if constexpr (std::is_same_v<L0cT, std::int32_t> && std::is_same_v<DstT, half>) {
        return true;  // DEQF16 / VDEQF16 by SetQuantScalar / SetQuantVector (matmul_quant.h)
    } else if constexpr (Element<DstT>) {
        constexpr FixQuant q = matmul_quant<L0cT, DstT>();
        return q != FixQuant::None && fix_quant_info(q).source == dtype_of<L0cT> &&
               fix_quant_info(q).result == dtype_of<DstT> && !fix_quant_info(q).scaled;
    } else {
        return false;
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// L0C's element type of a Matmul with A of `T` (MatmulType or element): a C in TPosition::CO1
/// has it.
template <class T>
struct GetMmDstType {
    using Type = npusim::ascendc::MatmulL0cT<T>;
};
template <TPosition P, CubeFormat F, class T, bool TR, LayoutMode L, bool S>
struct GetMmDstType<MatmulType<P, F, T, TR, L, S>> : GetMmDstType<T> {};

namespace Impl {
/// The depth of the Matmul's own queues, which kernels reuse for theirs (a CO1 C's L0C queue).
constexpr std::int32_t QUEUE_DEPTH = 1;
}  // namespace Impl

}  // namespace AscendC
