// SoftMaxTiling / LogSoftMaxTiling (the tiling the host's SoftMaxTilingFunc fills and the
// kernel's SoftMax reads) and the host queries of the softmax family's temp size. npusim's
// SoftMax (adv_softmax.h) walks the rows one at a time and reads only the row count and
// length from the tiling (when no SoftMaxShapeInfo is given), so its temp need is fixed:
//   kSoftmaxFixedTmp bytes (reduce result, max and sum blocks), plus one float row of the
//   32-byte-aligned last dimension for half inputs (the row computed in float).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "npusim_ascendc/ge_shape.h"

// The fields in the vendor's order (all uint32_t): the struct's bytes are these alone.
// (clang-format 14 does not settle on one layout of this list.)
// clang-format off
#define NPUSIM_SOFTMAX_TILING_FIELDS(X)                                              \
    X(srcM) X(srcK) X(srcSize) X(outMaxM) X(outMaxK) X(outMaxSize) X(splitM)         \
    X(splitK) X(splitSize) X(reduceM) X(reduceK) X(reduceSize) X(rangeM) X(tailM)    \
    X(tailSplitSize) X(tailReduceSize)
// clang-format on
#define NPUSIM_SOFTMAX_TILING_MEMBER(field) std::uint32_t field = 0;
#define NPUSIM_SOFTMAX_TILING_ACCESSORS(field) \
    void set_##field(std::uint32_t value) {    \
        field = value;                         \
    }                                          \
    std::uint32_t get_##field() const {        \
        return field;                          \
    }
#define NPUSIM_SOFTMAX_TILING_STRUCT(Name)                                                \
    struct Name {                                                                         \
        NPUSIM_SOFTMAX_TILING_FIELDS(NPUSIM_SOFTMAX_TILING_MEMBER)                        \
        NPUSIM_SOFTMAX_TILING_FIELDS(NPUSIM_SOFTMAX_TILING_ACCESSORS)                     \
        void SaveToBuffer(void* buffer, std::size_t capacity) const {                     \
            if (buffer == nullptr || capacity < sizeof(Name)) {                           \
                throw std::length_error("tiling data " #Name " does not fit the buffer"); \
            }                                                                             \
            std::memcpy(buffer, this, sizeof(Name));                                      \
        }                                                                                 \
        std::size_t GetDataSize() const { return sizeof(Name); }                          \
    };
NPUSIM_SOFTMAX_TILING_STRUCT(SoftMaxTiling)
NPUSIM_SOFTMAX_TILING_STRUCT(LogSoftMaxTiling)
#undef NPUSIM_SOFTMAX_TILING_STRUCT
#undef NPUSIM_SOFTMAX_TILING_MEMBER
#undef NPUSIM_SOFTMAX_TILING_ACCESSORS
#undef NPUSIM_SOFTMAX_TILING_FIELDS

/// The names the vendor's op_host headers and kernels use for the same structs.
namespace optiling {
using ::LogSoftMaxTiling;
using ::SoftMaxTiling;
}  // namespace optiling
namespace AscendC::tiling {
using ::LogSoftMaxTiling;
using ::SoftMaxTiling;
}  // namespace AscendC::tiling

namespace npusim::ascendc {

inline constexpr std::uint32_t kSoftmaxFixedTmp = 128;

/// Rows (every dimension but the last) and the last dimension of a softmax shape.
struct SoftmaxRows {
    std::uint32_t rows = 0;
    std::uint32_t length = 0;
};
inline SoftmaxRows softmax_rows(const ge::Shape& shape) {
    const std::size_t dims = shape.GetDimNum();
    if (dims == 0) return {};
    const auto length = static_cast<std::uint32_t>(shape.GetDim(dims - 1));
    std::uint64_t rows = 1;
    for (std::size_t d = 0; d + 1 < dims; ++d) rows *= static_cast<std::uint64_t>(shape.GetDim(d));
    return {static_cast<std::uint32_t>(rows), length};
}
/// The temp bytes npusim's softmax family needs for rows of `length` elements.
constexpr std::uint32_t softmax_tmp_bytes(std::uint32_t length, std::uint32_t type_size) {
    const std::uint32_t aligned = (length + 7) / 8 * 8;
    return kSoftmaxFixedTmp + (type_size == 4 ? 0 : aligned * 4);
}
template <class Tiling>
void fill_softmax_tiling(const ge::Shape& shape, std::uint32_t type_size, Tiling& t) {
    const SoftmaxRows r = softmax_rows(shape);
    const std::uint32_t block = type_size == 0 ? 8 : 32 / type_size;
    t = Tiling{};
    t.srcM = r.rows;
    t.srcK = r.length;
    t.srcSize = r.rows * r.length;
    t.outMaxM = r.rows;
    t.outMaxK = block;
    t.outMaxSize = r.rows * block;
    t.splitM = 1;  // npusim walks one row at a time
    t.splitK = r.length;
    t.splitSize = r.length;
    t.reduceM = 1;
    t.reduceK = block;
    t.reduceSize = block;
    t.rangeM = r.rows;
}

}  // namespace npusim::ascendc

namespace AscendC {

inline std::uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, std::uint32_t dataTypeSize,
                                          bool /*isReuseSource*/) {
    return npusim::ascendc::softmax_tmp_bytes(npusim::ascendc::softmax_rows(srcShape).length,
                                              dataTypeSize);
}
inline std::uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t dataTypeSize,
                                          bool isReuseSource) {
    return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource);
}
inline std::uint32_t GetLogSoftMaxMaxTmpSize(const ge::Shape& srcShape, std::uint32_t dataTypeSize,
                                             bool isReuseSource) {
    return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource);
}
inline std::uint32_t GetLogSoftMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t dataTypeSize,
                                             bool isReuseSource) {
    return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource);
}
/// SoftMaxTilingFunc(shape, dataTypeSize, localWorkSpaceSize, tiling): the rows and their
/// length for the kernel (npusim's SoftMax needs no more; the workspace size is checked in
/// the kernel against the buffer it is given).
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, std::uint32_t dataTypeSize,
                              std::uint32_t /*localWorkSpaceSize*/, SoftMaxTiling& softmaxTiling) {
    npusim::ascendc::fill_softmax_tiling(srcShape, dataTypeSize, softmaxTiling);
}
inline void LogSoftMaxTilingFunc(const ge::Shape& srcShape, std::uint32_t dataTypeSize,
                                 std::uint32_t /*localWorkSpaceSize*/,
                                 LogSoftMaxTiling& softmaxTiling) {
    npusim::ascendc::fill_softmax_tiling(srcShape, dataTypeSize, softmaxTiling);
}

}  // namespace AscendC
