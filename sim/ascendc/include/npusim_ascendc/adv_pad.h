// Pad and UnPad (vendor API reference, "Pad", "UnPad"): width padding of a {height, width}
// tensor to 32-byte rows, and its inverse, composed of basic PIPE_V instructions at the
// kernel's line in the caller's temp buffer (or UB reserved as the element-wise APIs do).
//
// Pad: the source holds height rows of `width` elements one after another; the destination
// rows are pad_row(width) elements (32-byte aligned). Width already aligned: the first
// srcOriWidth columns are kept and the rest of each row becomes padValue (rightPad columns
// at most: the row's own width). Width not aligned: a row becomes leftPad x padValue, the
// row, rightPad x padValue, and padValue up to the aligned width (width + leftPad + rightPad
// must fit it: else a KernelError).
// UnPad: rows of `width` elements lose leftPad columns in front and rightPad behind; the
// destination holds the rows one after another.
//
// Both build the source offset of each destination element in the temp buffer (an index by
// CreateVecIndex, its row by a floor of index / row length through int32, the offset by
// Muls / Add / Adds, clamped), then one Gather (whose offsets the scalar unit reads: npusim's
// timed approximation); Pad then one CompareScalar on |column - centre| and one Select of
// padValue. Temp sizes: adv_pad_tiling.h.
#pragma once

#include <cstdint>
#include <string>

#include "npusim_ascendc/adv_pad_tiling.h"
#include "npusim_ascendc/adv_reduce.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/compare_select.h"
#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/vector_bits.h"

namespace AscendC {

struct PadParams {
    std::uint16_t leftPad = 0;
    std::uint16_t rightPad = 0;
    std::int32_t padValue = 0;
};
struct UnPadParams {
    std::uint16_t leftPad = 0;
    std::uint16_t rightPad = 0;
};

}  // namespace AscendC

namespace npusim::ascendc {

/// In slots a (index -> column), b (row), c (offset, int32 bytes): for destination element k
/// of rows of `out_row`, its row i = floor(k / out_row), column j = k - i out_row, and the
/// byte offset of source element i x in_row + j + shift, clamped to [0, last].
template <class T>
void pad_offsets(const AscendC::LocalTensor<float>& a, const AscendC::LocalTensor<float>& b,
                 const AscendC::LocalTensor<float>& c, std::uint64_t count, std::uint64_t out_row,
                 std::uint64_t in_row, float shift, std::uint64_t last, const Loc& loc) {
    const auto n = static_cast<std::int32_t>(count);
    const AscendC::LocalTensor<std::int32_t> ci = c.template ReinterpretCast<std::int32_t>();
    AscendC::CreateVecIndex(a, 0.0F, static_cast<std::uint32_t>(count), loc);
    AscendC::Adds(b, a, 0.5F, n, loc);
    AscendC::Muls(b, b, 1.0F / static_cast<float>(out_row), n, loc);
    AscendC::Cast(ci, b, AscendC::RoundMode::CAST_FLOOR, n, loc);
    AscendC::Cast(b, ci, AscendC::RoundMode::CAST_NONE, n, loc);
    AscendC::Muls(c, b, static_cast<float>(out_row), n, loc);
    AscendC::Sub(a, a, c, n, loc);
    AscendC::Muls(c, b, static_cast<float>(in_row), n, loc);
    AscendC::Add(c, c, a, n, loc);
    AscendC::Adds(c, c, shift, n, loc);
    AscendC::Maxs(c, c, 0.0F, n, loc);
    AscendC::Mins(c, c, static_cast<float>(last), n, loc);
    AscendC::Muls(c, c, static_cast<float>(sizeof(T)), n, loc);
    AscendC::Cast(ci, c, AscendC::RoundMode::CAST_RINT, n, loc);
}

template <class T>
void adv_pad(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
             const AscendC::PadParams& p, const AscendC::LocalTensor<std::uint8_t>* shared,
             const PadTiling& t, const Loc& loc) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: Pad takes 2- or 4-byte elements (half, float, int16_t, ...)");
    constexpr const char* api = "Pad";
    const std::uint64_t h = t.srcHeight, w = t.srcWidth, row = pad_row(w, sizeof(T));
    if (h == 0 || w == 0) return;
    const bool aligned = row == w;
    const std::uint64_t data = aligned ? std::min<std::uint64_t>(t.srcOriWidth, w) : w;
    const std::uint64_t left = aligned ? 0 : p.leftPad;
    if (!aligned && w + p.leftPad + p.rightPad > row) {
        adv::fail(loc, api,
                  "width " + std::to_string(w) +
                      " + leftPad + rightPad exceeds the 32-byte row of " + std::to_string(row) +
                      " elements");
    }
    const std::uint64_t count = h * row;
    adv_check_size(src, h * w, "srcTensor", api, loc);
    adv_check_size(dst, count, "dstTensor", api, loc);
    const AscendC::LocalTensor<float> tmp =
        adv::sized_float_tmp(api, pad_tmp_bytes(h, w, sizeof(T)), shared, loc);
    const std::uint64_t s = (count + 7) / 8 * 8;
    const AscendC::LocalTensor<float> a = tmp, b = tmp[s], c = tmp[2 * s];
    const AscendC::LocalTensor<std::uint8_t> bits =
        tmp[3 * s].template ReinterpretCast<std::uint8_t>();
    pad_offsets<T>(a, b, c, count, row, w, -static_cast<float>(left), h * w - 1, loc);
    const auto n = static_cast<std::int32_t>(count);
    // Data columns: |j - (left + (data - 1) / 2)| < data / 2.
    AscendC::Adds(b, a, -(static_cast<float>(left) + (static_cast<float>(data) - 1.0F) / 2.0F), n,
                  loc);
    AscendC::Abs(b, b, n, loc);
    AscendC::CompareScalar(bits, b, static_cast<float>(data) / 2.0F, AscendC::CMPMODE::LT,
                           static_cast<std::uint32_t>(count), loc);
    AscendC::Gather(dst, src, c.template ReinterpretCast<std::uint32_t>(), 0,
                    static_cast<std::uint32_t>(count), loc);
    AscendC::Select(dst, bits, dst, static_cast<T>(p.padValue),
                    AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<std::uint32_t>(count),
                    loc);
}

template <class T>
void adv_unpad(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
               const AscendC::UnPadParams& p, const AscendC::LocalTensor<std::uint8_t>* shared,
               const UnPadTiling& t, const Loc& loc) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: UnPad takes 2- or 4-byte elements (half, float, int16_t, ...)");
    constexpr const char* api = "UnPad";
    const std::uint64_t h = t.srcHeight, w = t.srcWidth;
    if (p.leftPad + p.rightPad >= w) {
        adv::fail(
            loc, api,
            "leftPad + rightPad leave nothing of a row of " + std::to_string(w) + " elements");
    }
    const std::uint64_t out = w - p.leftPad - p.rightPad, count = h * out;
    if (count == 0) return;
    adv_check_size(src, h * w, "srcTensor", api, loc);
    adv_check_size(dst, count, "dstTensor", api, loc);
    const AscendC::LocalTensor<float> tmp =
        adv::sized_float_tmp(api, unpad_tmp_bytes(h, w), shared, loc);
    const std::uint64_t s = (h * w + 7) / 8 * 8;
    pad_offsets<T>(tmp, tmp[s], tmp[2 * s], count, out, w, static_cast<float>(p.leftPad), h * w - 1,
                   loc);
    AscendC::Gather(dst, src, tmp[2 * s].template ReinterpretCast<std::uint32_t>(), 0,
                    static_cast<std::uint32_t>(count), loc);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Pad<T>(dst, src, padParams[, sharedTmpBuffer], tiling).
template <class T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         const LocalTensor<std::uint8_t>& sharedTmpBuffer, const PadTiling& tiling,
         Loc loc = Loc::current()) {
    npusim::ascendc::adv_pad(dstTensor, srcTensor, padParams, &sharedTmpBuffer, tiling, loc);
}
template <class T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         const PadTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_pad(dstTensor, srcTensor, padParams, nullptr, tiling, loc);
}
/// UnPad<T>(dst, src, unPadParams[, sharedTmpBuffer], tiling).
template <class T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
           UnPadParams& unPadParams, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
           const UnPadTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_unpad(dstTensor, srcTensor, unPadParams, &sharedTmpBuffer, tiling, loc);
}
template <class T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
           UnPadParams& unPadParams, const UnPadTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_unpad(dstTensor, srcTensor, unPadParams, nullptr, tiling, loc);
}

}  // namespace AscendC
