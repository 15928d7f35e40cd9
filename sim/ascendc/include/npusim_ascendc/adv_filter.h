// The filter advanced APIs (host side: adv_sort_filter_tiling.h): Select with a byte mask
// tensor (SelectWithBytesMask) and DropOut with a byte or bit mask. Built on basic vector
// instructions at the caller's line: a byte mask is converted (Cast to half, or float for
// 4-byte masks, then CompareScalar against 0) into the bits a Select instruction reads, in
// chunks of a multiple of 256 elements of the temp buffer; a bit mask is read as it is.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "npusim_ascendc/adv_sort_filter_tiling.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/compare_select.h"
#include "npusim_ascendc/vector.h"

namespace AscendC {

/// Select's shape: firstAxis rows of srcLastAxis elements, mask rows of maskLastAxis.
struct SelectWithBytesMaskShapeInfo {
    std::uint32_t firstAxis = 0;
    std::uint32_t srcLastAxis = 0;
    std::uint32_t maskLastAxis = 0;
};
/// DropOut's shape: firstAxis rows of srcLastAxis elements, mask rows of maskLastAxis bytes.
struct DropOutShapeInfo {
    std::uint32_t firstAxis = 0;
    std::uint32_t srcLastAxis = 0;
    std::uint32_t maskLastAxis = 0;
};

}  // namespace AscendC

namespace npusim::ascendc::adv {

/// A run of the filter: `count` elements from source offset `src`, mask element `mask`.
struct FilterRun {
    std::uint64_t src = 0;
    std::uint64_t mask = 0;
    std::uint64_t count = 0;
};

/// The runs of rows x last elements whose mask rows are mask_last apart: one run when the
/// rows are contiguous in both, else one per row.
inline std::vector<FilterRun> filter_runs(std::uint32_t rows, std::uint32_t last,
                                          std::uint32_t mask_last) {
    if (mask_last == last) return {{0, 0, std::uint64_t{rows} * last}};
    std::vector<FilterRun> runs;
    for (std::uint32_t r = 0; r < rows; ++r) {
        runs.push_back({std::uint64_t{r} * last, std::uint64_t{r} * mask_last, last});
    }
    return runs;
}

/// The chunk (elements) a byte-mask run of `run` elements takes in `bytes` of temp: the whole
/// run when it fits, else the largest multiple of 256 (0: the buffer is below the minimum).
inline std::uint64_t byte_mask_chunk(std::uint64_t run, std::uint64_t bytes,
                                     std::uint32_t mask_size) {
    if (byte_mask_tmp_bytes(static_cast<std::uint32_t>(run), mask_size) <= bytes) return run;
    std::uint64_t chunk = 0;
    while (byte_mask_tmp_bytes(static_cast<std::uint32_t>(chunk + kFilterGranule), mask_size) <=
           bytes) {
        chunk += kFilterGranule;
    }
    return chunk;
}

/// bits (LSB first) = mask[i] != 0 (set_when_true) or mask[i] == 0, through `converted`.
template <class U>
void mask_bits(const LocalTensor<std::uint8_t>& bits, const LocalTensor<U>& mask, std::uint64_t at,
               std::uint64_t count, bool set_when_true, std::uint64_t work, const Loc& loc) {
    using M = std::conditional_t<std::is_same_v<U, bool>, std::uint8_t, U>;
    using C = std::conditional_t<sizeof(M) == 4, float, half>;
    const LocalTensor<M> m = mask.template ReinterpretCast<M>()[at];
    const LocalTensor<C> converted{npusim::LocalTensor<C>{MemSpace::UB, work, count},
                                   AscendC::TPosition::VECCALC};
    const auto n = static_cast<std::int32_t>(count);
    AscendC::Cast(converted, m, AscendC::RoundMode::CAST_NONE, n, loc);
    AscendC::CompareScalar(bits, converted, C(0.0F),
                           set_when_true ? AscendC::CMPMODE::NE : AscendC::CMPMODE::EQ,
                           static_cast<std::uint32_t>(count), loc);
}

/// dst = mask != 0 ? (tensor_when_set ? src : scalar) : (tensor_when_set ? scalar : src), the
/// shared machinery of both Select forms and DropOut's byte mode.
template <class T, class U>
void select_bytes(std::string_view api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  T scalar, bool tensor_when_set, const LocalTensor<U>& mask, const Tmp* shared,
                  std::uint32_t rows, std::uint32_t last, std::uint32_t mask_last, const Loc& loc) {
    using M = std::conditional_t<std::is_same_v<U, bool>, std::uint8_t, U>;
    if (mask_last < last || (last * sizeof(T)) % 32 != 0 ||
        (mask_last != last && (mask_last * sizeof(M)) % 32 != 0)) {
        fail(loc, api,
             "rows of " + std::to_string(last) + " elements with mask rows of " +
                 std::to_string(mask_last) +
                 ": the mask row must be at least the source row, the source row and (when "
                 "longer) the mask row 32-byte aligned");
    }
    const std::uint64_t total = std::uint64_t{rows} * last;
    require_count(api, total, dst.GetSize(), "dst", loc);
    require_count(api, total, src.GetSize(), "src", loc);
    require_count(api, std::uint64_t{rows} * mask_last, mask.GetSize(), "mask", loc);
    const auto runs = filter_runs(rows, last, mask_last);
    const std::uint64_t run = runs.empty() ? 0 : runs[0].count;
    const std::uint32_t min_bytes = byte_mask_tmp_bytes(
        static_cast<std::uint32_t>(std::min<std::uint64_t>(run, kFilterGranule)), sizeof(M));
    const std::uint32_t max_bytes = byte_mask_tmp_bytes(static_cast<std::uint32_t>(run), sizeof(M));
    const Tmp tmp = shared != nullptr ? *shared : internal_tmp(api, min_bytes, max_bytes, loc);
    const std::uint64_t chunk = byte_mask_chunk(run, tmp.bytes, sizeof(M));
    if (chunk == 0) {
        fail(loc, api,
             "sharedTmpBuffer holds " + std::to_string(tmp.bytes) + " bytes, at least " +
                 std::to_string(min_bytes) + " are needed (Get" + std::string(api) +
                 "MaxMinTmpSize)");
    }
    const std::uint64_t converted_bytes =
        sf_align(static_cast<std::uint32_t>(chunk * (sizeof(M) == 4 ? 4 : 2)), 32);
    const LocalTensor<std::uint8_t> bits{
        npusim::LocalTensor<std::uint8_t>{MemSpace::UB, tmp.address + converted_bytes,
                                          (chunk + 7) / 8},
        AscendC::TPosition::VECCALC};
    for (const FilterRun& r : runs) {
        for (std::uint64_t at = 0; at < r.count; at += chunk) {
            const std::uint64_t n = std::min(chunk, r.count - at);
            mask_bits(bits, mask, r.mask + at, n, tensor_when_set, tmp.address, loc);
            AscendC::Select(dst[r.src + at], bits, src[r.src + at], scalar,
                            AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE,
                            static_cast<std::uint32_t>(n), loc);
        }
    }
}

template <class T, class U>
void require_select_types() {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: Select with a mask tensor takes half or float data");
    static_assert(std::is_same_v<U, bool> || std::is_same_v<U, std::uint8_t> ||
                      std::is_same_v<U, std::int8_t> || std::is_same_v<U, std::uint16_t> ||
                      std::is_same_v<U, std::int16_t> || std::is_same_v<U, std::uint32_t> ||
                      std::is_same_v<U, std::int32_t>,
                  "npusim Ascend C: Select's mask is bool or an 8-, 16- or 32-bit integer");
}

template <class T>
void dropout(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<std::uint8_t>& mask, const Tmp* shared, float keepProb,
             const AscendC::DropOutShapeInfo& info, const Loc& loc) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: DropOut takes half or float data");
    const std::uint32_t rows = info.firstAxis, last = info.srcLastAxis, ml = info.maskLastAxis;
    const std::uint64_t total = std::uint64_t{rows} * last;
    require_count("DropOut", total, dst.GetSize(), "dst", loc);
    require_count("DropOut", total, src.GetSize(), "src", loc);
    // dst = src / keepProb first; the mask then keeps dst or writes 0.
    AscendC::Muls(dst, src, T(1.0F / keepProb), static_cast<std::int32_t>(total), loc);
    if (ml >= last) {  // byte mode
        select_bytes<T, std::uint8_t>("DropOut", dst, dst, T(0.0F), true, mask, shared, rows, last,
                                      ml, loc);
        return;
    }
    if (ml * 8 < last || (ml * 8 != last && (ml % 32 != 0 || (last * sizeof(T)) % 32 != 0))) {
        fail(loc, "DropOut",
             "rows of " + std::to_string(last) + " elements with mask rows of " +
                 std::to_string(ml) +
                 " bytes: a bit mask row holds at least the row's bits, 32-byte aligned rows "
                 "when it holds more");
    }
    require_count("DropOut", std::uint64_t{rows} * ml, mask.GetSize(), "mask", loc);
    for (const FilterRun& r : filter_runs(rows, last, ml * 8 == last ? last : ml * 8)) {
        const LocalTensor<std::uint8_t> bits = mask[r.mask / 8];
        AscendC::Select(dst[r.src], bits, dst[r.src], T(0.0F),
                        AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE,
                        static_cast<std::uint32_t>(r.count), loc);
    }
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// Select(dst, src0, scalar, mask, sharedTmpBuffer, info): dst = mask != 0 ? scalar : src0,
/// per row of srcLastAxis (the mask row's first srcLastAxis elements).
template <class T, class U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1,
            const LocalTensor<U>& mask, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
            const SelectWithBytesMaskShapeInfo& info, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_select_types<T, U>();
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::select_bytes("Select", dst, src0, src1, false, mask, &tmp, info.firstAxis,
                                       info.srcLastAxis, info.maskLastAxis, loc);
}
/// Select(dst, scalar, src1, mask, sharedTmpBuffer, info): dst = mask != 0 ? src1 : scalar.
template <class T, class U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1,
            const LocalTensor<U>& mask, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
            const SelectWithBytesMaskShapeInfo& info, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_select_types<T, U>();
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::select_bytes("Select", dst, src1, src0, true, mask, &tmp, info.firstAxis,
                                       info.srcLastAxis, info.maskLastAxis, loc);
}

/// DropOut(dst, src, mask[, sharedTmpBuffer], keepProb, info): dst = mask ? src / keepProb
/// : 0. maskLastAxis >= srcLastAxis: a byte mask (rows maskLastAxis apart); less: a bit mask
/// (LSB first; rows maskLastAxis bytes apart, or one continuous bit string when
/// maskLastAxis x 8 = srcLastAxis). dropOutMode 0 (chosen from the shapes) only.
template <class T, bool isInitBitMode = false, std::uint32_t dropOutMode = 0>
void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<std::uint8_t>& maskLocal,
             const LocalTensor<std::uint8_t>& sharedTmpBuffer, const float keepProb,
             const DropOutShapeInfo& info, Loc loc = Loc::current()) {
    static_assert(dropOutMode == 0,
                  "npusim Ascend C: DropOut's dropOutMode other than 0 (the mode chosen from the "
                  "shapes) is not supported yet (docs/ascendc.md)");
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::dropout(dstLocal, srcLocal, maskLocal, &tmp, keepProb, info, loc);
}
template <class T, bool isInitBitMode = false, std::uint32_t dropOutMode = 0>
void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<std::uint8_t>& maskLocal, const float keepProb,
             const DropOutShapeInfo& info, Loc loc = Loc::current()) {
    static_assert(dropOutMode == 0,
                  "npusim Ascend C: DropOut's dropOutMode other than 0 (the mode chosen from the "
                  "shapes) is not supported yet (docs/ascendc.md)");
    npusim::ascendc::adv::dropout(dstLocal, srcLocal, maskLocal, nullptr, keepProb, info, loc);
}

}  // namespace AscendC
