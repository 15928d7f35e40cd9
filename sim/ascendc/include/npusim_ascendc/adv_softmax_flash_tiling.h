// Host side of SoftmaxFlashV2 and SoftmaxGrad / SoftmaxGradFront (adv_softmax_flash.h): the
// tiling functions (the rows and their length, as SoftMaxTilingFunc's) and the temp sizes
// the kernel side checks (softmax_flash_tmp_bytes, softmax_grad_tmp_bytes; max = min).
#pragma once

#include <cstdint>

#include "npusim_ascendc/adv_softmax_tiling.h"

namespace npusim::ascendc {

/// SoftmaxFlashV2 (float): the row's reduction, the new max block and two work blocks.
constexpr std::uint32_t softmax_flash_tmp_bytes() {
    return kSoftmaxFixedTmp;
}
/// SoftmaxGrad (float): the fixed blocks and one float row of the 32-byte-aligned length.
constexpr std::uint32_t softmax_grad_tmp_bytes(std::uint32_t length) {
    return kSoftmaxFixedTmp + (length + 7) / 8 * 8 * 4;
}

}  // namespace npusim::ascendc

namespace AscendC {

inline std::uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape& /*srcShape*/,
                                                 std::uint32_t /*dataTypeSize1*/,
                                                 std::uint32_t /*dataTypeSize2*/, bool /*isUpdate*/,
                                                 bool /*isBasicBlock*/ = false,
                                                 bool /*isFlashOutputBrc*/ = false) {
    return npusim::ascendc::softmax_flash_tmp_bytes();
}
inline std::uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape& srcShape,
                                                 std::uint32_t dataTypeSize1,
                                                 std::uint32_t dataTypeSize2, bool isUpdate,
                                                 bool isBasicBlock = false,
                                                 bool isFlashOutputBrc = false) {
    return GetSoftMaxFlashV2MinTmpSize(srcShape, dataTypeSize1, dataTypeSize2, isUpdate,
                                       isBasicBlock, isFlashOutputBrc);
}
/// SoftMaxFlashV2TilingFunc(shape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, tiling,
/// isUpdate, isBasicBlock, ...): the rows and their length (as SoftMaxTilingFunc's).
inline void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, std::uint32_t dataTypeSize1,
                                     std::uint32_t /*dataTypeSize2*/,
                                     std::uint32_t /*localWorkSpaceSize*/,
                                     SoftMaxTiling& softmaxFlashTiling, bool /*isUpdate*/ = false,
                                     bool /*isBasicBlock*/ = false,
                                     bool /*isFlashOutputBrc*/ = false) {
    npusim::ascendc::fill_softmax_tiling(srcShape, dataTypeSize1, softmaxFlashTiling);
}

inline std::uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape& srcShape, std::uint32_t /*typeSize*/,
                                              bool /*isFront*/, bool /*isReuseSource*/) {
    return npusim::ascendc::softmax_grad_tmp_bytes(npusim::ascendc::softmax_rows(srcShape).length);
}
inline std::uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape& srcShape, std::uint32_t typeSize,
                                              bool isFront, bool isReuseSource) {
    return GetSoftMaxGradMinTmpSize(srcShape, typeSize, isFront, isReuseSource);
}
inline void SoftMaxGradTilingFunc(const ge::Shape& srcShape, std::uint32_t dataTypeSize,
                                  std::uint32_t /*localWorkSpaceSize*/,
                                  SoftMaxTiling& softmaxGradTiling, bool /*isFront*/ = false) {
    npusim::ascendc::fill_softmax_tiling(srcShape, dataTypeSize, softmaxGradTiling);
}

}  // namespace AscendC
