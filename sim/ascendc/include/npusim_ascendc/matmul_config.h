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

template <TPosition POSITION, CubeFormat FORMAT, class TYPE, bool ISTRANS = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
};

/// The order of the output tiles (MatmulConfig::iterateOrder; UNDEF: the tiling's).
enum class IterateOrder : std::uint8_t { ORDER_M = 0, ORDER_N, UNDEF };
/// One output tile per Iterate (INNER_PRODUCT); OUTER_PRODUCT (two) is not supported yet.
enum class ScheduleType : std::uint8_t { INNER_PRODUCT = 0, OUTER_PRODUCT };

/// The configurations: npusim runs the norm schedule for each (docs/ascendc.md); the fields
/// that only tune the vendor's schedule (preloads, unit flags, message reuse) are kept and
/// do not change npusim's.
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
    bool enUnitFlag = false;
    bool isMsgReuse = true;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
};
/// The vendor's parameters (its reference, "MatmulConfig"): intrinsicsLimit, batchLoop,
/// isVecND2NZ, bmmMode (npusim: unused), isMsgReuse, iterateOrder, scheduleType, enUnitFlag.
constexpr MatmulConfig GetNormalConfig(bool intrinsicsLimit = false, bool batchLoop = false,
                                       bool isVecND2NZ = false, int bmmMode = 0,
                                       bool isMsgReuse = true,
                                       IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       bool enUnitFlag = true) {
    (void)bmmMode;
    MatmulConfig c;
    c.doNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.isMsgReuse = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    return c;
}
/// The vendor's parameters: intrinsicsLimit, batchLoop, doMTE2Preload, isVecND2NZ,
/// isPerTensor, hasAntiQuantOffset, enUnitFlag, isMsgReuse (the quantisation ones unused).
constexpr MatmulConfig GetMDLConfig(bool intrinsicsLimit = false, bool batchLoop = false,
                                    std::uint32_t doMTE2Preload = 0, bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    bool enUnitFlag = false, bool isMsgReuse = true) {
    (void)isPerTensor;
    (void)hasAntiQuantOffset;
    MatmulConfig c;
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.enUnitFlag = enUnitFlag;
    c.isMsgReuse = isMsgReuse;
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

// The vendor's headers declare the configurations at global scope: samples write
// `Matmul<A, B, C, Bias, CFG_NORM>` and `constexpr MatmulConfig GetCustomMDLCFG()` unqualified.
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::GetMDLConfig;
using AscendC::GetNormalConfig;
using AscendC::IterateOrder;
using AscendC::MatmulConfig;
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
/// Whether npusim's Matmul writes `DstT` from L0C of `L0cT`: the same type, or a conversion of
/// the fixpipe's table (base/cube_types.h) that needs no scale (SetQuantScalar is not modelled).
template <class L0cT, class DstT>
constexpr bool matmul_writes() {
    if constexpr (std::is_same_v<L0cT, DstT>) {
        return true;
    } else if constexpr (Element<DstT>) {
        constexpr FixQuant q = matmul_quant<L0cT, DstT>();
        return q != FixQuant::None && fix_quant_info(q).source == dtype_of<L0cT> &&
               fix_quant_info(q).result == dtype_of<DstT> && !fix_quant_info(q).scaled;
    } else {
        return false;
    }
}

}  // namespace npusim::ascendc
