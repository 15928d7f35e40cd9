// Host side of the [A, R] LayerNorm (rstd out), Normalize, DeepNorm and the Welford APIs
// (adv_norm_v2.h, adv_welford.h): the tiling structs and parameter structs kernels name, and
// the temp-size queries. One table of temp needs (kNormV2Needs) drives both sides, so the size
// the host is told is the size the kernel takes.
//
// Temp needs, in bytes, for rows of `r` elements (r = the padded row) and `a` rows:
//   bytes = max(32, (slots x align8(r) + per_row x align8(a) + fixed) x 4)
// (half inputs: half_slots instead of slots: the casts to float).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "npusim_ascendc/adv_norm_quant_tiling.h"
#include "npusim_ascendc/adv_tiling.h"

/// The vendor declares these tilings at global scope (kernels name them unqualified). npusim
/// reads aLength and rLength (LayerNormSeparateTiling) and bLength, sLength, hLength,
/// originalHLength (DeepNormTiling); the other fields carry the vendor's names.
struct LayerNormSeparateTiling {
    std::uint32_t aLength = 0, rLength = 0, halfAddRepeatTimes = 0, rHeadLength = 0;
    float k2Rec = 0, k2RRec = 0;
    std::uint32_t inputXSize = 0, meanVarSize = 0, numberOfTmpBuf = 0;
    std::uint32_t varianceTmpTensorPos = 0, varianceTmpTensorSize = 0;
    std::uint32_t tmpBufSize = 0, oneTmpSize = 0;
    std::uint32_t firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0;
    std::uint32_t loopRound = 0, inputRoundSize = 0, inputTailSize = 0, inputTailPos = 0;
    std::uint32_t meanVarRoundSize = 0, meanVarTailSize = 0, meanVarTailPos = 0;
    std::uint32_t arCurLength = 0, aCurLength = 0;
    float rValueBack = 0;
};
/// DeepNorm's tiling has LayerNorm's fields (a [B, S, H] shape).
struct DeepNormTiling : LayerNormTiling {};

namespace optiling {
using ::DeepNormTiling;
using ::LayerNormSeparateTiling;
}  // namespace optiling
namespace AscendC::tiling {
using ::DeepNormTiling;
using ::LayerNormSeparateTiling;
}  // namespace AscendC::tiling

namespace AscendC {

/// LayerNorm's [A, R] form: which inputs and outputs take part (A2/A3: isOutputRstd true).
struct LayerNormConfig {
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
    bool isOutputRstd = true;
};
inline constexpr LayerNormConfig LNCFG_NORM = {false, false, false, true};
struct LayerNormPara {
    std::uint32_t aLength;
    std::uint32_t rLength;
    std::uint32_t rLengthWithPadding;
};

/// Normalize: only ReducePattern::AR; aLength -1 takes para's.
struct NormalizeConfig {
    ReducePattern reducePattern = ReducePattern::AR;
    std::int32_t aLength = -1;
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
};
inline constexpr NormalizeConfig NLCFG_NORM = {ReducePattern::AR, -1, false, false, false};
struct NormalizePara {
    std::uint32_t aLength;
    std::uint32_t rLength;
    std::uint32_t rLengthWithPadding;
};

/// WelfordUpdate: isInplace copies the inputs to the outputs beyond abComputeLength.
struct WelfordUpdateConfig {
    bool isInplace = false;
};
inline constexpr WelfordUpdateConfig WFUPDATE_DEFAULT_CFG = {false};
struct WelfordUpdateParam {
    std::uint32_t rnLength;
    std::uint32_t abLength;
    std::uint32_t abComputeLength;
    float nRec;
};

/// WelfordFinalize: isCorrection (Ascend 950 only) must stay false on A2/A3.
struct WelfordFinalizeConfig {
    bool isCorrection = false;
};
inline constexpr WelfordFinalizeConfig WFFINALIZE_DEFAULT_CFG = {false};
struct WelfordFinalizePara {
    std::uint32_t rnLength;
    std::uint32_t abLength;
    std::uint32_t headCount;
    std::uint32_t headCountLength;
    std::uint32_t tailCount;
    std::uint32_t tailCountLength;
    float abRec;
    float rRec;
    float rRecWithCorrection = 0;
};

}  // namespace AscendC

namespace npusim::ascendc {

struct NormV2Need {
    std::string_view api;
    std::uint32_t slots;       // float rows of align8(r) for float inputs
    std::uint32_t half_slots;  // ... for half inputs
    std::uint32_t per_row;     // floats per row of A (align8(a) each)
    std::uint32_t fixed;       // floats besides
};

inline constexpr NormV2Need kNormV2Needs[] = {
    // d = x - mean, its square; half: x, gamma, beta in float too. 24 floats of row scalars.
    {"LayerNormRstd", 2, 5, 0, 24},
    // half: x, y, gamma, beta in float; var + epsilon for every row.
    {"Normalize", 0, 4, 1, 0},
    // x1 = alpha x + gx, d, its square; half: gamma, beta, x, gx in float.
    {"DeepNorm", 3, 6, 0, 24},
    // x - mean, a product; half: x in float.
    {"WelfordUpdate", 2, 3, 0, 0},
    // the counts in float, a product, 16 floats of scalars.
    {"WelfordFinalize", 2, 2, 0, 16},
};

constexpr NormV2Need norm_v2_need(std::string_view api) {
    for (const NormV2Need& need : kNormV2Needs) {
        if (need.api == api) return need;
    }
    throw "npusim Ascend C: an API missing from kNormV2Needs";
}

/// The temp bytes `api` needs for `a` rows of `r` elements of `type_size` bytes.
constexpr std::uint32_t norm_v2_tmp_bytes(std::string_view api, std::uint64_t r, std::uint64_t a,
                                          std::uint32_t type_size) {
    const NormV2Need need = norm_v2_need(api);
    const std::uint32_t slots = type_size == 4 ? need.slots : need.half_slots;
    return std::max<std::uint32_t>(32,
                                   (slots * align8(r) + need.per_row * align8(a) + need.fixed) * 4);
}

inline std::uint32_t shape_dim(const ge::Shape& shape, std::size_t i) {
    return shape.GetDimNum() > i ? static_cast<std::uint32_t>(shape.GetDim(i)) : 1;
}

}  // namespace npusim::ascendc

namespace AscendC {

/// LayerNorm's [A, R] form (isComputeRstd true; srcShape {A, R}): max = min.
inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                      bool /*isReuseSource*/, bool /*isComputeRstd*/,
                                      bool /*isOnlyOutput*/, std::uint32_t& maxValue,
                                      std::uint32_t& minValue) {
    using namespace npusim::ascendc;
    maxValue = minValue = norm_v2_tmp_bytes("LayerNormRstd", shape_dim(srcShape, 1),
                                            shape_dim(srcShape, 0), typeSize);
}
inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, std::uint32_t stackBufferSize,
                                     std::uint32_t /*typeSize*/, bool /*isReuseSource*/,
                                     bool /*isComputeRstd*/, LayerNormSeparateTiling& tiling) {
    tiling = LayerNormSeparateTiling{};
    tiling.aLength = npusim::ascendc::shape_dim(srcShape, 0);
    tiling.rLength = npusim::ascendc::shape_dim(srcShape, 1);
    tiling.inputXSize = tiling.aLength * tiling.rLength;
    tiling.meanVarSize = tiling.aLength;
    tiling.tmpBufSize = stackBufferSize / 4;
    tiling.rValueBack = tiling.rLength == 0 ? 0.0F : 1.0F / float(tiling.rLength);
}

/// Normalize (srcShape {A, R}; typeSizeU gamma / beta, typeSizeT x / y): max = min.
inline void GetNormalizeMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t /*typeSizeU*/,
                                      std::uint32_t typeSizeT, bool /*isReuseSource*/,
                                      bool /*isComputeRstd*/, bool /*isOnlyOutput*/,
                                      std::uint32_t& maxValue, std::uint32_t& minValue) {
    using namespace npusim::ascendc;
    maxValue = minValue =
        norm_v2_tmp_bytes("Normalize", shape_dim(srcShape, 1), shape_dim(srcShape, 0), typeSizeT);
}

/// DeepNorm (srcShape {B, S, H}; originSrcShape's H is the data length): max = min.
inline bool GetDeepNormMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                     bool /*isReuseSource*/, bool /*isBasicBlock*/,
                                     std::uint32_t& maxValue, std::uint32_t& minValue) {
    using namespace npusim::ascendc;
    maxValue = minValue = norm_v2_tmp_bytes("DeepNorm", shape_dim(srcShape, 2), 1, typeSize);
    return true;
}
inline bool GetDeepNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                  std::uint32_t stackBufferSize, std::uint32_t /*typeSize*/,
                                  bool /*isReuseSource*/, bool /*isBasicBlock*/,
                                  DeepNormTiling& tiling) {
    using namespace npusim::ascendc;
    if (srcShape.GetDimNum() != 3) return false;
    tiling = DeepNormTiling{};
    fill_layernorm_tiling(srcShape, stackBufferSize, static_cast<LayerNormTiling&>(tiling));
    tiling.originalHLength = shape_dim(originSrcShape, 2);
    tiling.lastDimValueBack =
        tiling.originalHLength == 0 ? 0.0F : 1.0F / float(tiling.originalHLength);
    return true;
}

/// WelfordUpdate (srcShape {rnLength, abLength}): max = min.
inline void GetWelfordUpdateMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSizeT,
                                          std::uint32_t /*typeSizeU*/, bool /*isReuseSource*/,
                                          bool /*isInplace*/, std::uint32_t& maxValue,
                                          std::uint32_t& minValue) {
    using namespace npusim::ascendc;
    maxValue = minValue = norm_v2_tmp_bytes("WelfordUpdate", shape_dim(srcShape, 1), 1, typeSizeT);
}
/// WelfordFinalize (srcShape's last dimension: abLength): max = min.
inline void GetWelfordFinalizeMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                            bool /*isReuseSource*/, std::uint32_t& maxValue,
                                            std::uint32_t& minValue) {
    using namespace npusim::ascendc;
    const std::size_t dims = srcShape.GetDimNum();
    const std::uint32_t ab = dims == 0 ? 0 : shape_dim(srcShape, dims - 1);
    maxValue = minValue = norm_v2_tmp_bytes("WelfordFinalize", ab, 1, typeSize);
}

}  // namespace AscendC
