// Host side of the LayerNorm family (adv_layernorm.h) and the quantization APIs (adv_quant.h):
// the tiling structs the kernels read and the temp-size queries. One table of temp needs
// (kNormQuantNeeds) drives both sides, so a size the host is told is a size the kernel takes.
//
// Temp needs, in bytes, for rows of `h` elements (LayerNorm family: h = hLength, the padded
// row; quantization: h = the row or chunk length):
//   bytes = (slots x align8(h) + fixed) x 4        (half inputs: half_slots instead of slots)
// AscendQuant computes in half (as the vendor's reference describes it) in chunks of 128
// elements: its need is per chunk of the count, max one chunk of all, min one 128-chunk.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "npusim_ascendc/ge_data_type.h"
#include "npusim_ascendc/ge_shape.h"

/// The vendor declares the LayerNorm tilings at global scope (kernels name them unqualified).
/// npusim reads bLength, sLength, hLength and originalHLength; the other fields are the
/// vendor's names, filled where npusim has an equivalent (sizes in elements).
struct LayerNormTiling {
    std::uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0;
    std::uint32_t inputXSize = 0, meanVarSize = 0, numberOfTmpBuf = 0;
    std::uint32_t meanTmpTensorPos = 0, meanTmpTensorSize = 0;
    std::uint32_t varianceTmpTensorPos = 0, varianceTmpTensorSize = 0;
    std::uint32_t tmpBufSize = 0, oneTmpSize = 0;
    std::uint32_t firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0;
    std::uint32_t loopRound = 0, inputRoundSize = 0, inputTailSize = 0, inputTailPos = 0;
    std::uint32_t meanVarRoundSize = 0, meanVarTailSize = 0, meanVarTailPos = 0;
    std::uint32_t bshCurLength = 0, bsCurLength = 0;
    float lastDimValueBack = 0;
};
struct LayerNormGradTiling {
    std::uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0;
    std::uint32_t stackBufferSize = 0, loopNum = 0, tailSize = 0, oneCalSize = 0;
    std::uint32_t inputXSize = 0, meanVarSize = 0, tmpBufSize = 0;
    float lastDimValueBack = 0;
};
struct LayerNormGradBetaTiling {
    std::uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0;
    std::uint32_t stackBufferSize = 0, bshLength = 0, bsLength = 0, oneCalSize = 0;
    std::uint32_t loopRound = 0, inputTailSize = 0, inputTailPos = 0, bsTailSize = 0;
};

namespace optiling {
using ::LayerNormGradBetaTiling;
using ::LayerNormGradTiling;
using ::LayerNormTiling;
}  // namespace optiling
namespace AscendC::tiling {
using ::LayerNormGradBetaTiling;
using ::LayerNormGradTiling;
using ::LayerNormTiling;
}  // namespace AscendC::tiling

namespace npusim::ascendc {

struct NormQuantNeed {
    std::string_view api;
    std::uint32_t slots;       // float rows of align8(h) for float inputs
    std::uint32_t half_slots;  // ... for half inputs (the casts to float)
    std::uint32_t fixed;       // floats besides the rows (the per-row scalars)
};

inline constexpr NormQuantNeed kNormQuantNeeds[] = {
    // d = x - mean, its square; half: x, gamma, beta in float too.
    {"LayerNorm", 2, 5, 24},
    // x - mean, dy x gamma, a product (float only).
    {"LayerNormGrad", 3, 3, 32},
    // dy x resForGamma (float only).
    {"LayerNormGradBeta", 1, 1, 0},
    // the int32 row in float, the scale in float (half / bfloat16 scales).
    {"AscendDequant", 2, 2, 0},
    // bfloat16_t out: the row, offset and scale in float (3 rows), the int8 row as half (half
    // a row); half out computes in dst (none: the query answers one block).
    {"AscendAntiQuant", 4, 4, 0},
    {"AscendAntiQuant/half", 0, 0, 0},
};

constexpr NormQuantNeed norm_quant_need(std::string_view api) {
    for (const NormQuantNeed& need : kNormQuantNeeds) {
        if (need.api == api) return need;
    }
    throw "npusim Ascend C: an API missing from kNormQuantNeeds";
}

constexpr std::uint32_t align8(std::uint64_t n) {
    return static_cast<std::uint32_t>((n + 7) / 8 * 8);
}

/// The temp bytes `api` needs for rows of `h` elements of `type_size` bytes.
constexpr std::uint32_t norm_quant_tmp_bytes(std::string_view api, std::uint64_t h,
                                             std::uint32_t type_size) {
    const NormQuantNeed need = norm_quant_need(api);
    const std::uint32_t slots = type_size == 4 ? need.slots : need.half_slots;
    return std::max<std::uint32_t>(32, (slots * align8(h) + need.fixed) * 4);
}

/// AscendQuant: half chunks of kQuantGranule elements.
inline constexpr std::uint32_t kQuantGranule = 128;
constexpr std::uint32_t quant_max_tmp(std::uint64_t count) {
    return static_cast<std::uint32_t>((count + kQuantGranule - 1) / kQuantGranule * kQuantGranule *
                                      2);
}
constexpr std::uint32_t quant_min_tmp() {
    return kQuantGranule * 2;
}

/// {b, s, h, originalH} of a LayerNorm shape {B, S, H[, originalH]}.
inline void layernorm_dims(const ge::Shape& shape, std::uint32_t& b, std::uint32_t& s,
                           std::uint32_t& h, std::uint32_t& original_h) {
    b = static_cast<std::uint32_t>(shape.GetDim(0));
    s = static_cast<std::uint32_t>(shape.GetDim(1));
    h = static_cast<std::uint32_t>(shape.GetDim(2));
    original_h = shape.GetDimNum() > 3 ? static_cast<std::uint32_t>(shape.GetDim(3)) : h;
}

template <class Tiling>
void fill_layernorm_tiling(const ge::Shape& shape, std::uint32_t stack_bytes, Tiling& t) {
    t = Tiling{};
    layernorm_dims(shape, t.bLength, t.sLength, t.hLength, t.originalHLength);
    if constexpr (requires { t.lastDimValueBack; }) {
        t.lastDimValueBack = t.originalHLength == 0 ? 0.0F : 1.0F / float(t.originalHLength);
    }
    if constexpr (requires { t.tmpBufSize; }) t.tmpBufSize = stack_bytes / 4;
    if constexpr (requires { t.stackBufferSize; }) t.stackBufferSize = stack_bytes / 4;
    if constexpr (requires { t.inputXSize; }) {
        t.inputXSize = t.bLength * t.sLength * t.hLength;
        t.meanVarSize = t.bLength * t.sLength;
    }
}

inline void norm_quant_row_sizes(std::string_view api, std::uint64_t h, std::uint32_t type_size,
                                 std::uint32_t& max_value, std::uint32_t& min_value) {
    max_value = min_value = norm_quant_tmp_bytes(api, h, type_size);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// LayerNorm (the form with mean and variance out), LayerNormGrad, LayerNormGradBeta: shape
/// {B, S, H[, originalH]}; max = min (more space is not used). isReuseSource is ignored.
#define NPUSIM_LAYERNORM_QUERIES(Name, Tiling)                                                    \
    inline void Get##Name##MaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,       \
                                         bool /*isReuseSource*/, std::uint32_t& maxValue,         \
                                         std::uint32_t& minValue) {                               \
        npusim::ascendc::norm_quant_row_sizes(#Name, srcShape.GetDim(2), typeSize, maxValue,      \
                                              minValue);                                          \
    }                                                                                             \
    inline void Get##Name##NDTilingInfo(const ge::Shape& srcShape, std::uint32_t stackBufferSize, \
                                        std::uint32_t /*typeSize*/, bool /*isReuseSource*/,       \
                                        Tiling& tiling) {                                         \
        npusim::ascendc::fill_layernorm_tiling(srcShape, stackBufferSize, tiling);                \
    }
NPUSIM_LAYERNORM_QUERIES(LayerNorm, LayerNormTiling)
NPUSIM_LAYERNORM_QUERIES(LayerNormGrad, LayerNormGradTiling)
NPUSIM_LAYERNORM_QUERIES(LayerNormGradBeta, LayerNormGradBetaTiling)
#undef NPUSIM_LAYERNORM_QUERIES

/// AscendQuant's temp space for srcShape's element count (typeSize of the source).
inline void GetAscendQuantMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t /*typeSize*/,
                                        std::uint32_t& maxValue, std::uint32_t& minValue) {
    const auto count = static_cast<std::uint64_t>(srcShape.GetShapeSize());
    maxValue = std::max(npusim::ascendc::quant_max_tmp(count), npusim::ascendc::quant_min_tmp());
    minValue = npusim::ascendc::quant_min_tmp();
}
/// AscendDequant's temp space for srcShape {m, n} (or {n}): two float rows of n.
inline void GetAscendDequantMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                          std::uint32_t& maxValue, std::uint32_t& minValue) {
    const std::size_t dims = srcShape.GetDimNum();
    const std::int64_t n = dims == 0 ? 0 : srcShape.GetDim(dims - 1);
    npusim::ascendc::norm_quant_row_sizes("AscendDequant", static_cast<std::uint64_t>(n), typeSize,
                                          maxValue, minValue);
}
/// AscendAntiQuant's temp space: rows of N = scaleShape's element count (isTranspose is not
/// supported by the kernel side).
inline void GetAscendAntiQuantMaxMinTmpSize(const ge::Shape& /*srcShape*/,
                                            const ge::Shape& scaleShape, bool /*isTranspose*/,
                                            ge::DataType /*inputDataType*/,
                                            ge::DataType /*outputDataType*/,
                                            std::uint32_t& maxValue, std::uint32_t& minValue) {
    npusim::ascendc::norm_quant_row_sizes("AscendAntiQuant",
                                          static_cast<std::uint64_t>(scaleShape.GetShapeSize()), 4,
                                          maxValue, minValue);
}

}  // namespace AscendC
