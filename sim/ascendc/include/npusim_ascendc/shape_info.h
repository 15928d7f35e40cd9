// ShapeInfo: a tensor's shape as DumpTensor prints it and the advanced APIs take it (the
// current and the original shape, at most 8 dims each, and the data format).
#pragma once

#include <cstdint>

namespace AscendC {

enum class DataFormat : std::uint8_t {
    ND = 0,
    NZ,
    NCHW,
    NC1HWC0,
    NHWC,
    NCDHW,
    NDC1HWC0,
    FRACTAL_Z_3D
};

struct ShapeInfo {
    ShapeInfo() = default;
    ShapeInfo(std::uint8_t dim, const std::uint32_t* sizes, DataFormat format = DataFormat::ND)
        : ShapeInfo(dim, sizes, dim, sizes, format) {}
    ShapeInfo(std::uint8_t dim, const std::uint32_t* sizes, std::uint8_t originalDim,
              const std::uint32_t* originalSizes, DataFormat format = DataFormat::ND)
        : shapeDim(dim), originalShapeDim(originalDim), dataFormat(format) {
        for (std::uint8_t i = 0; i < dim && i < 8; ++i) shape[i] = sizes[i];
        for (std::uint8_t i = 0; i < originalDim && i < 8; ++i) originalShape[i] = originalSizes[i];
    }
    std::uint8_t shapeDim = 0;
    std::uint8_t originalShapeDim = 0;
    std::uint32_t shape[8] = {};
    std::uint32_t originalShape[8] = {};
    DataFormat dataFormat = DataFormat::ND;
};

}  // namespace AscendC
