// Host side of the advanced reduce and layout APIs (adv_reduce.h, adv_layout.h): the temp
// sizes their kernel side checks. Both sides use adv_row_partials_bytes, so what a tiling
// function reports is what the kernel needs (max = min: more space is not used).
#pragma once

#include <cstdint>

#include "npusim_ascendc/adv_norm_quant_tiling.h"  // LayerNorm, quantization (part C)
#include "npusim_ascendc/adv_pad_tiling.h"         // Pad, UnPad (part C)
#include "npusim_ascendc/ge_data_type.h"
#include "npusim_ascendc/ge_shape.h"
#include "tiling/platform/platform_ascendc.h"

namespace npusim::ascendc {

/// The temp bytes one row of `n` elements of `elem_bytes` needs when it spans more than one
/// 256-byte repeat: one partial result per repeat, 32-byte aligned; at least one block.
constexpr std::uint32_t adv_row_partials_bytes(std::uint32_t n, std::uint32_t elem_bytes) {
    const std::uint32_t per_repeat = elem_bytes == 0 ? 1 : 256 / elem_bytes;
    const std::uint32_t partials = n <= per_repeat ? 0 : (n + per_repeat - 1) / per_repeat;
    const std::uint32_t bytes = (partials * elem_bytes + 31) / 32 * 32;
    return bytes == 0 ? 32 : bytes;
}

/// The bytes of one element of `type` (the advanced APIs' types; 4 for any other).
constexpr std::uint32_t adv_type_bytes(ge::DataType type) {
    switch (type) {
        case ge::DT_FLOAT16:
        case ge::DT_BF16:
        case ge::DT_INT16:
        case ge::DT_UINT16:
            return 2;
        case ge::DT_INT8:
        case ge::DT_UINT8:
        case ge::DT_BOOL:
            return 1;
        default:
            return 4;
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// The advanced reductions' patterns (host side); npusim supports AR and RA.
enum class ReducePattern : std::uint32_t {
    AR = 0,
    RA = 1,
    R,
    ARA,
    ARAR,
    ARARA,
    ARARAR,
    ARARARA,
    ARARARAR,
    ARARARARA,
    RAR,
    RARA,
    RARAR,
    RARARA,
    RARARAR,
    RARARARA,
};

/// Sum's temp space for rows of `n` elements of `typeSize` bytes.
inline void GetSumMaxMinTmpSize(const std::uint32_t n, const std::uint32_t typeSize,
                                const bool isReuseSource, std::uint32_t& maxValue,
                                std::uint32_t& minValue) {
    (void)isReuseSource;
    minValue = maxValue = npusim::ascendc::adv_row_partials_bytes(n, typeSize);
}

/// ReduceSum / ReduceMax / ReduceMin's temp space for srcShape {rows, columns}: AR one row's
/// partials, RA one block (npusim's RA needs none; the kernel side checks what this reports).
inline std::uint32_t adv_reduce_tmp_bytes(const ge::Shape& srcShape, ge::DataType dataType,
                                          ReducePattern pattern) {
    const auto size = npusim::ascendc::adv_type_bytes(dataType);
    if (pattern != ReducePattern::AR) return 32;
    return npusim::ascendc::adv_row_partials_bytes(static_cast<std::uint32_t>(srcShape.GetDim(1)),
                                                   size);
}

#define NPUSIM_ASCENDC_ADV_REDUCE_TMP(Name)                                         \
    inline void Name(const ge::Shape& srcShape, const ge::DataType dataType,        \
                     ReducePattern pattern, bool isSrcInnerPad, bool isReuseSource, \
                     std::uint32_t& maxValue, std::uint32_t& minValue) {            \
        (void)isSrcInnerPad;                                                        \
        (void)isReuseSource;                                                        \
        minValue = maxValue = adv_reduce_tmp_bytes(srcShape, dataType, pattern);    \
    }
NPUSIM_ASCENDC_ADV_REDUCE_TMP(GetReduceSumMaxMinTmpSize)
NPUSIM_ASCENDC_ADV_REDUCE_TMP(GetReduceMaxMaxMinTmpSize)
NPUSIM_ASCENDC_ADV_REDUCE_TMP(GetReduceMinMaxMinTmpSize)
#undef NPUSIM_ASCENDC_ADV_REDUCE_TMP

/// Broadcast's temp space: none in npusim.
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC& platform,
                                      const ge::Shape& srcShape, const ge::Shape& dstShape,
                                      std::uint32_t typeSize, const bool isReuseSource,
                                      std::uint32_t& maxValue, std::uint32_t& minValue) {
    (void)platform;
    (void)srcShape;
    (void)dstShape;
    (void)typeSize;
    (void)isReuseSource;
    maxValue = minValue = 0;
}

}  // namespace AscendC
