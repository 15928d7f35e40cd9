// Host side of Pad / UnPad (adv_pad.h): the tilings the kernels read and the temp-size
// queries. Both sides size the temp buffer with pad_tmp_bytes / unpad_tmp_bytes, so what the
// host is told is what the kernel checks.
//
// Pad writes rows of `padded_width` elements (the source width rounded up to 32 bytes, or
// the width itself when it is already aligned); UnPad at most height x width elements. Each
// destination element takes float slots in the temp buffer: Pad 4 (its index, a work value,
// its gather offset, its mask bit), UnPad 3 (no mask).
#pragma once

#include <cstdint>

#include "npusim_ascendc/ge_shape.h"
#include "tiling/platform/platform_ascendc.h"

/// The vendor declares these tilings at global scope (kernels name them unqualified). npusim
/// reads srcHeight, srcWidth and srcOriWidth (Pad) / srcHeight and srcWidth (UnPad).
struct PadTiling {
    std::uint32_t srcHeight = 0, srcWidth = 0, srcOriWidth = 0, widthWithoutLastBlock = 0;
    std::uint32_t blocksPerRow = 0, heightTiling = 0, heightFractal = 0, heightFractalTail = 0;
    std::uint32_t mainLoopOffset = 0, tailBlockOffset = 0, tmpBuffer1BlockNum = 0;
    std::uint32_t tmpBuffer1RowNum = 0, tmpBuffer2Offset = 0, widthTiling = 0;
    std::uint32_t widthFractal = 0, widthFractalTail = 0, widthFractalTailAlingned = 0;
    std::uint32_t brcbTiling = 0, brcbFractal = 0, brcbFractalTail = 0, maxRepeatTimes = 0;
    std::uint32_t brcbTilingRepeatTimes = 0, brcbTilingRepeatTimesTail = 0;
    std::uint32_t brcbFractalTailRepeatTimes = 0, brcbFractalTailRepeatTimesTail = 0;
    std::uint32_t reserved = 0;
};
struct UnPadTiling {
    std::uint32_t srcHeight = 0, srcWidth = 0, tmpBuffer1BlockNum = 0, tmpBuffer1RowNum = 0;
    std::uint32_t tmpBuffer2Offset = 0, widthTiling = 0, widthFractal = 0, widthFractalTail = 0;
};

namespace optiling {
using ::PadTiling;
using ::UnPadTiling;
}  // namespace optiling
namespace AscendC::tiling {
using ::PadTiling;
using ::UnPadTiling;
}  // namespace AscendC::tiling

namespace npusim::ascendc {

/// Pad's destination row: the width rounded up to 32 bytes of `type_size`.
constexpr std::uint64_t pad_row(std::uint64_t width, std::uint32_t type_size) {
    const std::uint64_t block = type_size == 0 ? 8 : 32 / type_size;
    return (width + block - 1) / block * block;
}
constexpr std::uint32_t pad_tmp_bytes(std::uint64_t height, std::uint64_t width,
                                      std::uint32_t type_size) {
    return static_cast<std::uint32_t>(4 * ((height * pad_row(width, type_size) + 7) / 8 * 8) * 4);
}
constexpr std::uint32_t unpad_tmp_bytes(std::uint64_t height, std::uint64_t width) {
    return static_cast<std::uint32_t>(3 * ((height * width + 7) / 8 * 8) * 4);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Pad's temp space for srcShape {height, width} (max = min).
inline void GetPadMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                std::uint32_t& maxValue, std::uint32_t& minValue) {
    maxValue = minValue =
        npusim::ascendc::pad_tmp_bytes(static_cast<std::uint64_t>(srcShape.GetDim(0)),
                                       static_cast<std::uint64_t>(srcShape.GetDim(1)), typeSize);
}
/// PadTilingFunc(srcShape {height, width}, oriSrcShape {height, oriWidth}, stackBufferSize,
/// typeSize, tiling).
inline void PadTilingFunc(const ge::Shape& srcShape, const ge::Shape& oriSrcShape,
                          std::uint32_t /*stackBufferSize*/, std::uint32_t /*typeSize*/,
                          PadTiling& tiling) {
    tiling = PadTiling{};
    tiling.srcHeight = static_cast<std::uint32_t>(srcShape.GetDim(0));
    tiling.srcWidth = static_cast<std::uint32_t>(srcShape.GetDim(1));
    tiling.srcOriWidth = static_cast<std::uint32_t>(oriSrcShape.GetDim(1));
}
/// UnPad's temp space for srcShape {height, width} (max = min).
inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC& /*platform*/,
                                  const ge::Shape& srcShape, std::uint32_t /*typeSize*/,
                                  std::uint32_t& maxValue, std::uint32_t& minValue) {
    maxValue = minValue =
        npusim::ascendc::unpad_tmp_bytes(static_cast<std::uint64_t>(srcShape.GetDim(0)),
                                         static_cast<std::uint64_t>(srcShape.GetDim(1)));
}
inline void UnPadTilingFunc(const ge::Shape& srcShape, std::uint32_t /*stackBufferSize*/,
                            std::uint32_t /*typeSize*/, UnPadTiling& tiling) {
    tiling = UnPadTiling{};
    tiling.srcHeight = static_cast<std::uint32_t>(srcShape.GetDim(0));
    tiling.srcWidth = static_cast<std::uint32_t>(srcShape.GetDim(1));
}

}  // namespace AscendC
