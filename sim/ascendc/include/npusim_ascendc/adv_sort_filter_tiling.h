// Host side of the sort and filter advanced APIs (adv_sort.h, adv_filter.h): TopkTiling,
// SortConfig, TopKMode, TopKTilingFunc and the temp-size queries. The kernel side checks its
// buffers against the same functions below (sort_filter_*_bytes), so a size a query reports
// is what the kernel needs; max = min where more space would not be used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "npusim_ascendc/ge_data_type.h"
#include "npusim_ascendc/ge_shape.h"
#include "tiling/platform/platform_ascendc.h"

// TopkTiling: the vendor's field names and order (24 32-bit fields, 8 16-bit ones), so a
// tiling struct that embeds it has the vendor's layout. npusim's TopK reads none of them
// (its shape comes from TopKInfo); TopKTilingFunc fills the sizes for the record.
// clang-format off
#define NPUSIM_TOPK_TILING_FIELDS(X)                                                            \
    X(std::int32_t, tmpLocalSize) X(std::int32_t, allDataSize) X(std::int32_t, innerDataSize)  \
    X(std::uint32_t, sortRepeat) X(std::int32_t, mrgSortRepeat) X(std::int32_t, kAlignFourBytes) \
    X(std::int32_t, kAlignTwoBytes) X(std::int32_t, maskOffset)                                 \
    X(std::int32_t, maskVreducev2FourBytes) X(std::int32_t, maskVreducev2TwoBytes)              \
    X(std::int32_t, mrgSortSrc1offset) X(std::int32_t, mrgSortSrc2offset)                       \
    X(std::int32_t, mrgSortSrc3offset) X(std::int32_t, mrgSortTwoQueueSrc1Offset)               \
    X(std::int32_t, mrgFourQueueTailPara1) X(std::int32_t, mrgFourQueueTailPara2)               \
    X(std::int32_t, srcIndexOffset) X(std::uint32_t, copyUbToUbBlockCount)                      \
    X(std::int32_t, topkMrgSrc1MaskSizeOffset) X(std::int32_t, topkNSmallSrcIndexOffset)        \
    X(std::uint32_t, vreduceValMask0) X(std::uint32_t, vreduceValMask1)                         \
    X(std::uint32_t, vreduceIdxMask0) X(std::uint32_t, vreduceIdxMask1)                         \
    X(std::uint16_t, vreducehalfValMask0) X(std::uint16_t, vreducehalfValMask1)                 \
    X(std::uint16_t, vreducehalfValMask2) X(std::uint16_t, vreducehalfValMask3)                 \
    X(std::uint16_t, vreducehalfValMask4) X(std::uint16_t, vreducehalfValMask5)                 \
    X(std::uint16_t, vreducehalfValMask6) X(std::uint16_t, vreducehalfValMask7)
// clang-format on
#define NPUSIM_TOPK_TILING_MEMBER(type, field) type field = 0;
#define NPUSIM_TOPK_TILING_ACCESSORS(type, field) \
    void set_##field(type value) {                \
        field = value;                            \
    }                                             \
    type get_##field() const {                    \
        return field;                             \
    }
struct TopkTiling {
    NPUSIM_TOPK_TILING_FIELDS(NPUSIM_TOPK_TILING_MEMBER)
    NPUSIM_TOPK_TILING_FIELDS(NPUSIM_TOPK_TILING_ACCESSORS)
    void SaveToBuffer(void* buffer, std::size_t capacity) const {
        if (buffer == nullptr || capacity < sizeof(TopkTiling)) {
            throw std::length_error("tiling data TopkTiling does not fit the buffer");
        }
        std::memcpy(buffer, this, sizeof(TopkTiling));
    }
    std::size_t GetDataSize() const { return sizeof(TopkTiling); }
};
#undef NPUSIM_TOPK_TILING_MEMBER
#undef NPUSIM_TOPK_TILING_ACCESSORS
#undef NPUSIM_TOPK_TILING_FIELDS
static_assert(sizeof(TopkTiling) == 112);

/// The names the vendor's op_host headers and kernels use for the same struct.
namespace optiling {
using ::TopkTiling;
}  // namespace optiling
namespace AscendC::tiling {
using ::TopkTiling;
}  // namespace AscendC::tiling

namespace AscendC {

enum class SortType { RADIX_SORT, MERGE_SORT };
/// The sort's configuration (the Ascend 950 radix sort's; npusim's A2 Sort merges and
/// ignores it).
struct SortConfig {
    SortType type = SortType::RADIX_SORT;
    bool isDescend = false;
    bool hasSrcIndex = false;
    bool hasDstIndex = false;
};
inline constexpr SortConfig DEFAULT_SORT_CONFIG = {};

/// TOPK_NORMAL: any inner (a multiple of 32), one index row for all rows; TOPK_NSMALL: inner
/// 32, an index row per row.
enum class TopKMode { TOPK_NORMAL = 0, TOPK_NSMALL = 1 };

}  // namespace AscendC

namespace npusim::ascendc {

constexpr std::uint32_t sf_align(std::uint32_t v, std::uint32_t step) {
    return (v + step - 1) / step * step;
}
/// Sort's merge buffer: `count` (score, index) pairs of 8 bytes.
constexpr std::uint32_t sort_tmp_bytes(std::uint32_t count) {
    return count * 8;
}
/// TopK's temp for rows of `inner` scores of `type_size` bytes: the scores to sort (negated
/// for the smallest, padded past n), the generated indices, and two pair buffers the merge
/// passes alternate between.
constexpr std::uint32_t topk_tmp_bytes(std::uint32_t inner, std::uint32_t type_size) {
    return sf_align(inner * type_size, 32) + sf_align(inner * 4, 32) + 2 * inner * 8;
}
/// Elements of a byte mask a Select / DropOut chunk converts at a time (a multiple of 256).
inline constexpr std::uint32_t kFilterGranule = 256;
/// The temp a byte mask of `count` elements of `mask_size` bytes needs: the mask converted to
/// half (1- and 2-byte masks) or float (4-byte), and the compare bits.
constexpr std::uint32_t byte_mask_tmp_bytes(std::uint32_t count, std::uint32_t mask_size) {
    return sf_align(count * (mask_size == 4 ? 4 : 2), 32) + sf_align((count + 7) / 8, 32);
}
inline std::uint32_t sf_dim(const ge::Shape& shape, std::size_t d) {
    return d < shape.GetDimNum() ? static_cast<std::uint32_t>(shape.GetDim(d)) : 1;
}
inline std::uint32_t sf_last(const ge::Shape& shape) {
    const std::size_t dims = shape.GetDimNum();
    return dims == 0 ? 0 : static_cast<std::uint32_t>(shape.GetDim(dims - 1));
}
inline std::uint32_t sf_rows(const ge::Shape& shape) {
    std::uint32_t rows = 1;
    for (std::size_t d = 0; d + 1 < shape.GetDimNum(); ++d) rows *= sf_dim(shape, d);
    return rows;
}

}  // namespace npusim::ascendc

namespace AscendC {

inline void GetSortMaxMinTmpSize(const ge::Shape& srcShape, ge::DataType /*valueType*/,
                                 ge::DataType /*indexType*/, bool /*isReuseSource*/,
                                 const SortConfig& /*config*/, std::uint32_t& maxValue,
                                 std::uint32_t& minValue) {
    std::uint32_t count = 1;
    for (std::size_t d = 0; d < srcShape.GetDimNum(); ++d) {
        count *= npusim::ascendc::sf_dim(srcShape, d);
    }
    maxValue = minValue = npusim::ascendc::sort_tmp_bytes(npusim::ascendc::sf_align(count, 32));
}
inline std::uint32_t GetSortTmpSize(const platform_ascendc::PlatformAscendC& /*platform*/,
                                    std::uint32_t elemCount, std::uint32_t /*dataTypeSize*/) {
    return npusim::ascendc::sort_tmp_bytes(npusim::ascendc::sf_align(elemCount, 32));
}
/// Concat on A2 hands the scores to Sort as they are (no temp is used).
inline std::uint32_t GetConcatTmpSize(const platform_ascendc::PlatformAscendC& /*platform*/,
                                      std::uint32_t elemCount, std::uint32_t dataTypeSize) {
    return npusim::ascendc::sf_align(elemCount * dataTypeSize, 32);
}

inline bool GetTopKMaxMinTmpSize(const platform_ascendc::PlatformAscendC& /*platform*/,
                                 std::int32_t inner, std::int32_t /*outter*/,
                                 bool /*isReuseSource*/, bool /*isInitIndex*/, TopKMode /*mode*/,
                                 bool /*isLargest*/, std::uint32_t dataTypeSize,
                                 std::uint32_t& maxValue, std::uint32_t& minValue) {
    if (inner <= 0 || inner % 32 != 0 || (dataTypeSize != 2 && dataTypeSize != 4)) return false;
    maxValue = minValue =
        npusim::ascendc::topk_tmp_bytes(static_cast<std::uint32_t>(inner), dataTypeSize);
    return true;
}
inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& /*platform*/,
                           std::int32_t inner, std::int32_t outter, std::int32_t k,
                           std::uint32_t dataTypeSize, bool /*isInitIndex*/, TopKMode /*mode*/,
                           bool /*isLargest*/, TopkTiling& topKTiling) {
    if (inner <= 0 || inner % 32 != 0 || k <= 0 || k > inner || outter <= 0 ||
        (dataTypeSize != 2 && dataTypeSize != 4)) {
        return false;
    }
    topKTiling = TopkTiling{};
    topKTiling.tmpLocalSize = static_cast<std::int32_t>(
        npusim::ascendc::topk_tmp_bytes(static_cast<std::uint32_t>(inner), dataTypeSize));
    topKTiling.allDataSize = inner * outter;
    topKTiling.innerDataSize = inner;
    topKTiling.sortRepeat = static_cast<std::uint32_t>(inner / 32);
    topKTiling.kAlignFourBytes = (k + 7) / 8 * 8;
    topKTiling.kAlignTwoBytes = (k + 15) / 16 * 16;
    return true;
}

/// Select with a byte mask: src0Shape {rows, srcLast}, maskShape {rows, maskLast}. A mask row
/// as long as the source row makes one run of rows x srcLast elements, else each row is one.
inline void GetSelectMaxMinTmpSize(const ge::Shape& src0Shape, const ge::Shape& /*src1Shape*/,
                                   std::uint32_t /*srcTypeSize*/, const ge::Shape& maskShape,
                                   std::uint32_t maskTypeSize, bool /*isReuseMask*/,
                                   std::uint32_t& maxValue, std::uint32_t& minValue) {
    const std::uint32_t last = npusim::ascendc::sf_last(src0Shape);
    const std::uint32_t run = npusim::ascendc::sf_last(maskShape) == last
                                  ? last * npusim::ascendc::sf_rows(src0Shape)
                                  : last;
    maxValue = npusim::ascendc::byte_mask_tmp_bytes(run, maskTypeSize);
    minValue = npusim::ascendc::byte_mask_tmp_bytes(
        run < npusim::ascendc::kFilterGranule ? run : npusim::ascendc::kFilterGranule,
        maskTypeSize);
}
inline std::uint32_t GetSelectMaxTmpSize(const ge::Shape& s0, const ge::Shape& s1, std::uint32_t ts,
                                         const ge::Shape& m, std::uint32_t ms, bool reuse) {
    std::uint32_t max = 0, min = 0;
    GetSelectMaxMinTmpSize(s0, s1, ts, m, ms, reuse, max, min);
    return max;
}
inline std::uint32_t GetSelectMinTmpSize(const ge::Shape& s0, const ge::Shape& s1, std::uint32_t ts,
                                         const ge::Shape& m, std::uint32_t ms, bool reuse) {
    std::uint32_t max = 0, min = 0;
    GetSelectMaxMinTmpSize(s0, s1, ts, m, ms, reuse, max, min);
    return min;
}
inline void GetSelectWithBytesMaskMaxMinTmpSize(const ge::Shape& s0, const ge::Shape& s1,
                                                std::uint32_t ts, const ge::Shape& m,
                                                std::uint32_t ms, bool reuse, std::uint32_t& max,
                                                std::uint32_t& min) {
    GetSelectMaxMinTmpSize(s0, s1, ts, m, ms, reuse, max, min);
}

/// DropOut: srcShape {firstAxis, srcLastAxis, maskLastAxis} (as the vendor's sample passes
/// it; a 2-dimensional shape is {rows, last} with a byte mask of the same shape). A bit mask
/// needs no temp (32 bytes are reported, the smallest buffer).
inline void GetDropOutMaxMinTmpSize(const ge::Shape& srcShape, std::uint32_t /*typeSize*/,
                                    bool /*isReuseSource*/, std::uint32_t& maxValue,
                                    std::uint32_t& minValue) {
    const std::uint32_t rows = npusim::ascendc::sf_dim(srcShape, 0);
    const std::uint32_t last = npusim::ascendc::sf_dim(srcShape, 1);
    const std::uint32_t mask_last =
        srcShape.GetDimNum() >= 3 ? npusim::ascendc::sf_dim(srcShape, 2) : last;
    if (mask_last < last) {  // bit mask
        maxValue = minValue = 32;
        return;
    }
    const std::uint32_t run = mask_last == last ? rows * last : last;
    maxValue = npusim::ascendc::byte_mask_tmp_bytes(run, 1);
    minValue = npusim::ascendc::byte_mask_tmp_bytes(
        run < npusim::ascendc::kFilterGranule ? run : npusim::ascendc::kFilterGranule, 1);
}
inline std::uint32_t GetDropOutMaxTmpSize(const ge::Shape& s, std::uint32_t ts, bool reuse) {
    std::uint32_t max = 0, min = 0;
    GetDropOutMaxMinTmpSize(s, ts, reuse, max, min);
    return max;
}
inline std::uint32_t GetDropOutMinTmpSize(const ge::Shape& s, std::uint32_t ts, bool reuse) {
    std::uint32_t max = 0, min = 0;
    GetDropOutMaxMinTmpSize(s, ts, reuse, max, min);
    return min;
}

}  // namespace AscendC
