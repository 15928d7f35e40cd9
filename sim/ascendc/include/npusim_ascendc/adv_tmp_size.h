// The temp-buffer needs of the advanced element-wise APIs (adv_activation.h, adv_math.h) and
// the host-side queries that answer from them (AscendC::GetGeluMaxMinTmpSize, ...). One table
// drives both sides, so a size the host is told is a size the kernel accepts.
//
// An API computes in float: per element it needs `work` float slots, and for half / bfloat16
// inputs one more float slot per input and one for the result (the casts). It walks the data
// in chunks of a multiple of kAdvGranule elements that fit the temp buffer:
//   max temp = bytes per element x count rounded up to kAdvGranule (one chunk)
//   min temp = bytes per element x kAdvGranule (the smallest chunk)
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "npusim_ascendc/ge_shape.h"

namespace npusim::ascendc {

struct AdvNeed {
    std::string_view api;
    std::uint32_t work;    // slots per element (float; an API with casts false: its own type)
    std::uint32_t inputs;  // tensor inputs (each cast to float for half / bfloat16)
    bool casts = true;     // false: computes in the input type (integer or native ops)
};

inline constexpr AdvNeed kAdvNeeds[] = {
    {"Gelu", 1, 1},
    {"FasterGelu", 1, 1},
    {"Sigmoid", 1, 1},
    {"Swish", 1, 1},
    {"Silu", 1, 1},
    {"SwiGLU", 1, 2},
    {"GeGLU", 1, 2},
    {"Exp", 4, 1},
    {"Log", 0, 1},
    {"Erf", 4, 1},
    {"Acosh", 1, 1},
    {"Atanh", 1, 1},
    {"Tanh", 1, 1},
    {"Sinh", 1, 1},
    {"Cosh", 1, 1},
    {"Sin", 7, 1},  // adv_trig.h
    {"Cos", 7, 1},
    {"Tan", 8, 1},
    {"Atan", 7, 1},
    {"Asin", 9, 1},
    {"Acos", 9, 1},
    {"Ceil", 3, 1},
    {"Floor", 3, 1},
    {"Trunc", 3, 1},
    {"Round", 3, 1},
    {"Frac", 4, 1},
    {"Fmod", 4, 2},
    {"Power", 7, 2},
    {"ClampMax", 0, 1, false},
    {"ClampMin", 0, 1, false},
    {"Axpy", 1, 1, false},
    {"Xor", 1, 2, false},
};

/// The table's row for `api` (a compile-time error in constant evaluation when missing).
constexpr AdvNeed adv_need(std::string_view api) {
    for (const AdvNeed& need : kAdvNeeds) {
        if (need.api == api) return need;
    }
    throw "npusim Ascend C: an advanced API missing from kAdvNeeds";
}

inline constexpr std::uint32_t kAdvGranule = 64;  // elements: 256 bytes of float

/// Temp bytes per element for inputs of `type_size` bytes (integer APIs: their own type).
constexpr std::uint32_t adv_bytes_per_element(const AdvNeed& need, std::uint32_t type_size) {
    if (!need.casts) return need.work * (need.api == "Xor" ? type_size : 4);
    return 4 * (need.work + (type_size == 4 ? 0 : need.inputs + 1));
}

constexpr std::uint32_t adv_max_tmp(const AdvNeed& need, std::uint64_t count,
                                    std::uint32_t type_size) {
    const std::uint64_t chunks = (count + kAdvGranule - 1) / kAdvGranule;
    return static_cast<std::uint32_t>(chunks * kAdvGranule *
                                      adv_bytes_per_element(need, type_size));
}
constexpr std::uint32_t adv_min_tmp(const AdvNeed& need, std::uint64_t count,
                                    std::uint32_t type_size) {
    return count == 0 ? 0 : kAdvGranule * adv_bytes_per_element(need, type_size);
}

inline void adv_max_min(std::string_view api, const ge::Shape& shape, std::uint32_t type_size,
                        std::uint32_t& max_value, std::uint32_t& min_value) {
    const AdvNeed need = adv_need(api);
    const auto count = static_cast<std::uint64_t>(shape.GetShapeSize());
    // At least one 32-byte block, also for APIs that need none (ClampMax, Log of float):
    // samples size a TBuf with the answer, and InitBuffer of 0 bytes fails.
    max_value = std::max<std::uint32_t>(32, adv_max_tmp(need, count, type_size));
    min_value = std::max<std::uint32_t>(32, adv_min_tmp(need, count, type_size));
}
/// The factor form: temp bytes = maxLiveNodeCount x count x typeSize + extraBuffer.
inline void adv_factor(std::string_view api, std::uint32_t type_size,
                       std::uint32_t& max_live_node_count, std::uint32_t& extra_buffer) {
    const std::uint32_t bytes = adv_bytes_per_element(adv_need(api), type_size);
    max_live_node_count = (bytes + type_size - 1) / type_size;
    extra_buffer = 0;
}

/// CumSum's temp bytes (adv_cumsum.h).
constexpr std::uint32_t cumsum_tmp_bytes(std::uint32_t outter, std::uint32_t inner,
                                         std::uint32_t type_size, bool last_axis) {
    if (!last_axis) return type_size == 4 ? 32 : 2 * inner * 4;
    const std::uint32_t padded = (outter + 7) / 8 * 8;
    return 2 * inner * padded * 4 + (type_size == 4 ? 0 : outter * inner * 4);
}

}  // namespace npusim::ascendc

namespace AscendC {

// GetXxxMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue) and
// GetXxxTmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuffer): isReuseSource does not
// change the answer (npusim never computes in the source).
#define NPUSIM_ADV_TMP_SIZE(Name)                                                              \
    inline void Get##Name##MaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,    \
                                         bool /*isReuseSource*/, std::uint32_t& maxValue,      \
                                         std::uint32_t& minValue) {                            \
        npusim::ascendc::adv_max_min(#Name, srcShape, typeSize, maxValue, minValue);           \
    }                                                                                          \
    inline void Get##Name##TmpBufferFactorSize(                                                \
        std::uint32_t typeSize, std::uint32_t& maxLiveNodeCount, std::uint32_t& extraBuffer) { \
        npusim::ascendc::adv_factor(#Name, typeSize, maxLiveNodeCount, extraBuffer);           \
    }
NPUSIM_ADV_TMP_SIZE(Gelu)
NPUSIM_ADV_TMP_SIZE(FasterGelu)
NPUSIM_ADV_TMP_SIZE(Sigmoid)
NPUSIM_ADV_TMP_SIZE(GeGLU)
NPUSIM_ADV_TMP_SIZE(Exp)
NPUSIM_ADV_TMP_SIZE(Log)
NPUSIM_ADV_TMP_SIZE(Erf)
NPUSIM_ADV_TMP_SIZE(Acosh)
NPUSIM_ADV_TMP_SIZE(Atanh)
NPUSIM_ADV_TMP_SIZE(Tanh)
NPUSIM_ADV_TMP_SIZE(Sinh)
NPUSIM_ADV_TMP_SIZE(Cosh)
NPUSIM_ADV_TMP_SIZE(Sin)
NPUSIM_ADV_TMP_SIZE(Cos)
NPUSIM_ADV_TMP_SIZE(Tan)
NPUSIM_ADV_TMP_SIZE(Atan)
NPUSIM_ADV_TMP_SIZE(Asin)
NPUSIM_ADV_TMP_SIZE(Acos)
NPUSIM_ADV_TMP_SIZE(Ceil)
NPUSIM_ADV_TMP_SIZE(Floor)
NPUSIM_ADV_TMP_SIZE(Trunc)
NPUSIM_ADV_TMP_SIZE(Round)
NPUSIM_ADV_TMP_SIZE(Frac)
NPUSIM_ADV_TMP_SIZE(Fmod)
NPUSIM_ADV_TMP_SIZE(Axpy)
NPUSIM_ADV_TMP_SIZE(Xor)
#undef NPUSIM_ADV_TMP_SIZE

/// ClampMax and ClampMin share one query.
inline void GetClampMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize, bool,
                                  std::uint32_t& maxValue, std::uint32_t& minValue) {
    npusim::ascendc::adv_max_min("ClampMax", srcShape, typeSize, maxValue, minValue);
}
inline std::uint32_t GetGeluMaxTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize) {
    std::uint32_t max = 0, min = 0;
    npusim::ascendc::adv_max_min("Gelu", srcShape, typeSize, max, min);
    return max;
}
inline std::uint32_t GetGeluMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize) {
    std::uint32_t max = 0, min = 0;
    npusim::ascendc::adv_max_min("Gelu", srcShape, typeSize, max, min);
    return min;
}
/// Swish / Silu: GetSwishTmpSize(shape, typeSize, isReuseSource, max, min).
inline void GetSwishTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize, bool,
                            std::uint32_t& maxValue, std::uint32_t& minValue) {
    npusim::ascendc::adv_max_min("Swish", srcShape, typeSize, maxValue, minValue);
}
inline void GetSiluTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize, bool,
                           std::uint32_t& maxValue, std::uint32_t& minValue) {
    npusim::ascendc::adv_max_min("Silu", srcShape, typeSize, maxValue, minValue);
}
/// SwiGLU's query takes isReuseSource last.
inline void GetSwiGLUMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                   std::uint32_t& maxValue, std::uint32_t& minValue,
                                   bool /*isReuseSource*/ = false) {
    npusim::ascendc::adv_max_min("SwiGLU", srcShape, typeSize, maxValue, minValue);
}
/// Power(base, exponent): the larger of the two shapes (a scalar operand has shape {1});
/// typeIsInt: integer Power is not supported yet (answers as float).
inline void GetPowerMaxMinTmpSize(const ge::Shape& srcShape1, const ge::Shape& srcShape2,
                                  bool /*typeIsInt*/, std::uint32_t typeSize, bool,
                                  std::uint32_t& maxValue, std::uint32_t& minValue) {
    const ge::Shape& shape =
        srcShape1.GetShapeSize() >= srcShape2.GetShapeSize() ? srcShape1 : srcShape2;
    npusim::ascendc::adv_max_min("Power", shape, typeSize, maxValue, minValue);
}

/// GetCumSumMaxMinTmpSize(shape {outter, inner}, typeSize, isLastAxis, isReuseSource, max, min).
inline void GetCumSumMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                   bool isLastAxis, bool /*isReuseSource*/, std::uint32_t& maxValue,
                                   std::uint32_t& minValue) {
    const auto outter = static_cast<std::uint32_t>(srcShape.GetDim(0));
    const auto inner = static_cast<std::uint32_t>(srcShape.GetDim(1));
    maxValue = minValue = npusim::ascendc::cumsum_tmp_bytes(outter, inner, typeSize, isLastAxis);
}

}  // namespace AscendC
