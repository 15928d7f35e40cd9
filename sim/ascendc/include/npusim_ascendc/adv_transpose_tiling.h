// Host side of the advanced Transpose with a ConfusionTransposeTiling (adv_transpose.h): the
// tiling struct kernels read and the temp-size and tiling queries (srcShape {B, N, S, H/N}).
#pragma once

#include <cstdint>

#include "npusim_ascendc/ge_shape.h"

/// The vendor declares it at global scope (18 words; kernels copy it word by word). npusim
/// fills param0..param5 = B, N, S, H/N, the TransposeType, the element bytes.
struct ConfusionTransposeTiling {
    std::uint32_t param0 = 0, param1 = 0, param2 = 0, param3 = 0, param4 = 0, param5 = 0;
    std::uint32_t param6 = 0, param7 = 0, param8 = 0, param9 = 0, param10 = 0, param11 = 0;
    std::uint32_t param12 = 0, param13 = 0, param14 = 0, param15 = 0, param16 = 0, param17 = 0;
};
namespace optiling {
using ::ConfusionTransposeTiling;
}  // namespace optiling
namespace AscendC::tiling {
using ::ConfusionTransposeTiling;
}  // namespace AscendC::tiling

namespace npusim::ascendc {

/// The temp bytes the vendor's scenarios 1 and 2 need: S/16 fractal blocks of 16 x 16.
constexpr std::uint32_t confusion_transpose_tmp_bytes(std::uint32_t s, std::uint32_t type_size) {
    return (s + 15) / 16 * 256 * type_size;
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Host queries for srcShape {B, N, S, H/N} and transposeTypeIn 1 or 2 (scenarios 1, 2; other
/// values give a tiling the kernel rejects): max = min = S/16 blocks of 16 x 16.
inline void GetTransposeMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                      std::uint32_t /*transposeTypeIn*/, std::uint32_t& maxValue,
                                      std::uint32_t& minValue) {
    const auto s = srcShape.GetDimNum() > 2 ? static_cast<std::uint32_t>(srcShape.GetDim(2)) : 0;
    maxValue = minValue = npusim::ascendc::confusion_transpose_tmp_bytes(s, typeSize);
}
inline void GetConfusionTransposeMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                               std::uint32_t transposeTypeIn,
                                               std::uint32_t& maxValue, std::uint32_t& minValue) {
    GetTransposeMaxMinTmpSize(srcShape, typeSize, transposeTypeIn, maxValue, minValue);
}
inline void GetTransposeTilingInfo(const ge::Shape& srcShape, std::uint32_t /*stackBufferSize*/,
                                   std::uint32_t typeSize, std::uint32_t transposeTypeIn,
                                   ConfusionTransposeTiling& tiling) {
    tiling = ConfusionTransposeTiling{};
    const auto dim = [&](std::size_t i) {
        return srcShape.GetDimNum() > i ? static_cast<std::uint32_t>(srcShape.GetDim(i)) : 0U;
    };
    tiling.param0 = dim(0);
    tiling.param1 = dim(1);
    tiling.param2 = dim(2);
    tiling.param3 = dim(3);
    tiling.param4 = transposeTypeIn;
    tiling.param5 = typeSize;
}
inline void GetConfusionTransposeTilingInfo(const ge::Shape& srcShape,
                                            std::uint32_t stackBufferSize, std::uint32_t typeSize,
                                            std::uint32_t transposeTypeIn,
                                            ConfusionTransposeTiling& tiling) {
    GetTransposeTilingInfo(srcShape, stackBufferSize, typeSize, transposeTypeIn, tiling);
}

}  // namespace AscendC
