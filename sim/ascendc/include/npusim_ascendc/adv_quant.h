// The A2 quantization APIs (vendor API reference, "AscendQuant", "AscendDequant",
// "AscendAntiQuant"), composed of basic PIPE_V instructions at the kernel's line in the
// caller's temp buffer (or UB reserved as the element-wise APIs do, adv_support.h). Temp
// sizes: adv_norm_quant_tiling.h (the host queries answer from the same table).
//
//   AscendQuant (per tensor): int8 = round_half_even(half(src) x half(scale) + half(offset)),
//     computed in half as the reference describes it (Cast, Muls, Adds, Cast to int8_t
//     CAST_RINT, saturating), in chunks of 128 elements of the temp buffer.
//   AscendDequant: dst(i, j) = float(src(i, j)) x deqScale(j) for j < calCount, per row of n
//     int32 (rows of the destination n aligned to 32 bytes of dstT apart); computed in float.
//   AscendAntiQuant (isTranspose false): dst(k, j) = (src(k, j) + offset(g, j)) x scale(g, j),
//     src K rows of N, offset / scale `groups` rows of N (from the AntiQuantShapeInfo, else
//     the tensor's ShapeInfo {groups, N}, else one row of its size), g = k / (K / groups);
//     half: in half, each step rounded (Cast, Add, Mul, in place in dst: no temp);
//     bfloat16_t: in float (int8 through half), rounded once.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/adv_layernorm.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/vector.h"

namespace AscendC {

/// AscendDequant's shape: m rows of n int32, the first calCount of each row dequantised.
/// 64-bit fields (the vendor's are 32-bit): samples write {m, n, tensor.GetSize()}, and
/// npusim's GetSize() is 64-bit, which a 32-bit field would reject as narrowing.
struct DequantParams {
    std::uint64_t m = 0;
    std::uint64_t n = 0;
    std::uint64_t calCount = 0;
};
/// AscendAntiQuant's optional shapes of offset and scale (npusim takes them from the tensors).
struct AntiQuantShapeInfo {
    std::uint32_t offsetHeight = 0;
    std::uint32_t offsetWidth = 0;
    std::uint32_t scaleHeight = 0;
    std::uint32_t scaleWidth = 0;
};
/// DEQUANT_WITH_SINGLE_ROW: {1, n, calCount} with calCount a multiple of 32 bytes of dstT
/// and n a multiple of calCount is taken as {n / calCount, calCount, calCount}.
enum class DeQuantMode : std::uint8_t { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW = 1 };

}  // namespace AscendC

namespace npusim::ascendc {

template <class T>
void adv_quant(const AscendC::LocalTensor<std::int8_t>& dst, const AscendC::LocalTensor<T>& src,
               const AscendC::LocalTensor<std::uint8_t>* shared, float scale, float offset,
               std::uint64_t count, const Loc& loc) {
    adv_check_half_float<T>("AscendQuant");
    constexpr const char* api = "AscendQuant";
    adv::require_count(api, count, src.GetSize(), "srcTensor", loc);
    adv::require_count(api, count, dst.GetSize(), "dstTensor", loc);
    if (count == 0) return;
    const std::uint64_t min_bytes = quant_min_tmp();
    const adv::Tmp tmp = shared != nullptr
                             ? adv::tmp_of(*shared)
                             : adv::internal_tmp(api, min_bytes, quant_max_tmp(count), loc);
    if (tmp.bytes < min_bytes) {
        adv::fail(loc, api,
                  "sharedTmpBuffer holds " + std::to_string(tmp.bytes) + " bytes, at least " +
                      std::to_string(min_bytes) + " are needed (GetAscendQuantMaxMinTmpSize)");
    }
    const std::uint64_t chunk = tmp.bytes / 2 / kQuantGranule * kQuantGranule;
    const AscendC::LocalTensor<half> h{npusim::LocalTensor<half>{MemSpace::UB, tmp.address, chunk},
                                       AscendC::TPosition::VECCALC};
    for (std::uint64_t at = 0; at < count; at += chunk) {
        const auto m = static_cast<std::int32_t>(std::min(chunk, count - at));
        if constexpr (std::is_same_v<T, float>) {
            AscendC::Cast(h, src[at], AscendC::RoundMode::CAST_NONE, m, loc);
            AscendC::Muls(h, h, static_cast<half>(scale), m, loc);
        } else {
            AscendC::Muls(h, src[at], static_cast<half>(scale), m, loc);
        }
        AscendC::Adds(h, h, static_cast<half>(offset), m, loc);
        AscendC::Cast(dst[at], h, AscendC::RoundMode::CAST_RINT, m, loc);
    }
}

template <class D, class S>
void adv_dequant(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<std::int32_t>& src,
                 const AscendC::LocalTensor<S>* scale_tensor, float scale_value,
                 AscendC::DequantParams p, AscendC::DeQuantMode mode,
                 const AscendC::LocalTensor<std::uint8_t>* shared, const Loc& loc) {
    static_assert(
        std::is_same_v<D, float> || std::is_same_v<D, half> || std::is_same_v<D, npusim::bfloat16>,
        "npusim Ascend C: AscendDequant writes half, float or bfloat16_t");
    static_assert(
        std::is_same_v<S, float> || std::is_same_v<S, half> || std::is_same_v<S, npusim::bfloat16>,
        "npusim Ascend C: AscendDequant with a uint64_t deqScale is not supported yet "
        "(docs/ascendc.md, advanced APIs part C)");
    constexpr const char* api = "AscendDequant";
    constexpr std::uint32_t per_block = 32 / sizeof(D);
    if (mode == AscendC::DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount != 0 &&
        p.calCount % per_block == 0 && p.n % p.calCount == 0) {
        p = {p.n / p.calCount, p.calCount, p.calCount};
    }
    if (p.m == 0 || p.calCount == 0) return;
    if (p.calCount > p.n || p.n * 4 % 32 != 0) {
        adv::fail(loc, api,
                  "DequantParams {" + std::to_string(p.m) + ", " + std::to_string(p.n) + ", " +
                      std::to_string(p.calCount) +
                      "}: calCount must not exceed n, and a row of n int32 must be whole 32-byte "
                      "blocks");
    }
    const std::uint64_t dst_n = (p.n + per_block - 1) / per_block * per_block;
    adv_check_size(src, p.m * p.n, "srcTensor", api, loc);
    adv_check_size(dst, (p.m - 1) * dst_n + p.calCount, "dstTensor", api, loc);
    if (scale_tensor != nullptr) adv_check_size(*scale_tensor, p.calCount, "deqScale", api, loc);
    const AscendC::LocalTensor<float> w = norm_tmp(api, p.n, 4, shared, loc);
    const auto c = static_cast<std::int32_t>(p.calCount);
    const AscendC::LocalTensor<float> row = w, sc = w[align8(p.n)];
    AscendC::LocalTensor<float> scale = sc;
    if (scale_tensor == nullptr) {
        AscendC::Duplicate(sc, scale_value, c, loc);
    } else if constexpr (std::is_same_v<S, float>) {
        scale = *scale_tensor;
    } else {
        AscendC::Cast(sc, *scale_tensor, AscendC::RoundMode::CAST_NONE, c, loc);
    }
    for (std::uint64_t i = 0; i < p.m; ++i) {
        AscendC::Cast(row, src[i * p.n], AscendC::RoundMode::CAST_NONE, c, loc);
        if constexpr (std::is_same_v<D, float>) {
            AscendC::Mul(dst[i * dst_n], row, scale, c, loc);
        } else {
            AscendC::Mul(row, row, scale, c, loc);
            AscendC::Cast(dst[i * dst_n], row, AscendC::RoundMode::CAST_RINT, c, loc);
        }
    }
}

template <class U, class T>
void adv_antiquant(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& src,
                   const AscendC::LocalTensor<T>* offset_tensor, T offset_value,
                   const AscendC::LocalTensor<T>* scale_tensor, T scale_value,
                   const AscendC::LocalTensor<std::uint8_t>* shared, std::uint32_t k,
                   const AscendC::AntiQuantShapeInfo& info, const Loc& loc) {
    static_assert(std::is_same_v<U, std::int8_t>,
                  "npusim Ascend C: AscendAntiQuant takes int8_t input (int4b_t is not supported "
                  "yet; docs/ascendc.md, advanced APIs part C)");
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, npusim::bfloat16>,
                  "npusim Ascend C: AscendAntiQuant writes half or bfloat16_t");
    constexpr const char* api = "AscendAntiQuant";
    if (k == 0 || src.GetSize() % k != 0) {
        adv::fail(loc, api,
                  "K = " + std::to_string(k) + " does not divide srcTensor's " +
                      std::to_string(src.GetSize()) + " elements");
    }
    // N and the groups: the shape info's widths and heights, else the per-channel tensor's
    // ShapeInfo {groups, N}, else one group of its size; per tensor: the source's rows.
    const AscendC::LocalTensor<T>* per_channel =
        scale_tensor != nullptr ? scale_tensor : offset_tensor;
    std::uint64_t n = src.GetSize() / k, groups = 1;
    if (per_channel != nullptr) {
        const AscendC::ShapeInfo& shape = per_channel->GetShapeInfo();
        const std::uint32_t width = offset_tensor != nullptr ? info.offsetWidth : info.scaleWidth;
        const std::uint32_t height =
            offset_tensor != nullptr ? info.offsetHeight : info.scaleHeight;
        if (width != 0) {
            n = width;
            groups = height != 0 ? height : 1;
        } else if (shape.shapeDim == 2) {
            groups = shape.shape[0];
            n = shape.shape[1];
        } else {
            n = per_channel->GetSize();
        }
    }
    if (n == 0 || groups == 0 || k % groups != 0) {
        adv::fail(loc, api,
                  "offset / scale of " + std::to_string(groups) +
                      " rows of N = " + std::to_string(n) + " do not fit K = " + std::to_string(k) +
                      " rows (a group of K / rows each)");
    }
    adv_check_size(src, k * n, "srcTensor", api, loc);
    adv_check_size(dst, k * n, "dstTensor", api, loc);
    if (offset_tensor != nullptr) adv_check_size(*offset_tensor, groups * n, "offset", api, loc);
    if (scale_tensor != nullptr) adv_check_size(*scale_tensor, groups * n, "scale", api, loc);
    const auto c = static_cast<std::int32_t>(n);
    const std::uint64_t per_group = k / groups;
    if constexpr (std::is_same_v<T, half>) {
        // Half arithmetic in the destination row (as the reference describes A2's): no temp.
        for (std::uint64_t row_k = 0; row_k < k; ++row_k) {
            const std::uint64_t g = row_k / per_group;
            const AscendC::LocalTensor<half> out = dst[row_k * n];
            AscendC::Cast(out, src[row_k * n], AscendC::RoundMode::CAST_NONE, c, loc);
            if (offset_tensor != nullptr) {
                AscendC::Add(out, out, (*offset_tensor)[g * n], c, loc);
            } else if (static_cast<float>(offset_value) != 0.0F) {
                AscendC::Adds(out, out, offset_value, c, loc);
            }
            if (scale_tensor != nullptr) {
                AscendC::Mul(out, out, (*scale_tensor)[g * n], c, loc);
            } else {
                AscendC::Muls(out, out, scale_value, c, loc);
            }
        }
    } else {
        // bfloat16_t: in float (int8 through half), rounded once.
        const AscendC::LocalTensor<float> w = norm_tmp(api, n, 4, shared, loc);
        const std::uint64_t s = align8(n);
        const AscendC::LocalTensor<float> row = w, off = w[s], sc = w[2 * s];
        const AscendC::LocalTensor<half> as_half = w[3 * s].template ReinterpretCast<half>();
        for (std::uint64_t row_k = 0; row_k < k; ++row_k) {
            const std::uint64_t g = row_k / per_group;
            if (row_k % per_group == 0) {
                if (offset_tensor != nullptr) {
                    AscendC::Cast(off, (*offset_tensor)[g * n], AscendC::RoundMode::CAST_NONE, c,
                                  loc);
                } else if (row_k == 0) {
                    AscendC::Duplicate(off, static_cast<float>(offset_value), c, loc);
                }
                if (scale_tensor != nullptr) {
                    AscendC::Cast(sc, (*scale_tensor)[g * n], AscendC::RoundMode::CAST_NONE, c,
                                  loc);
                } else if (row_k == 0) {
                    AscendC::Duplicate(sc, static_cast<float>(scale_value), c, loc);
                }
            }
            AscendC::Cast(as_half, src[row_k * n], AscendC::RoundMode::CAST_NONE, c, loc);
            AscendC::Cast(row, as_half, AscendC::RoundMode::CAST_NONE, c, loc);
            AscendC::Add(row, row, off, c, loc);
            AscendC::Mul(row, row, sc, c, loc);
            AscendC::Cast(dst[row_k * n], row, AscendC::RoundMode::CAST_RINT, c, loc);
        }
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// AscendQuant<T, isReuseSource>(dst, src[, sharedTmpBuffer], scale, offset[, calCount]):
/// per tensor (the per-channel forms with scale / offset tensors are not supported yet).
template <class T, bool isReuseSource = false>
void AscendQuant(const LocalTensor<std::int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<std::uint8_t>& sharedTmpBuffer, const float scale,
                 const float offset, const std::uint32_t calCount, Loc loc = Loc::current()) {
    npusim::ascendc::adv_quant(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset, calCount,
                               loc);
}
template <class T, bool isReuseSource = false>
void AscendQuant(const LocalTensor<std::int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<std::uint8_t>& sharedTmpBuffer, const float scale,
                 const float offset, Loc loc = Loc::current()) {
    npusim::ascendc::adv_quant(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset,
                               srcTensor.GetSize(), loc);
}
template <class T, bool isReuseSource = false>
void AscendQuant(const LocalTensor<std::int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const float scale, const float offset, const std::uint32_t calCount,
                 Loc loc = Loc::current()) {
    npusim::ascendc::adv_quant(dstTensor, srcTensor, nullptr, scale, offset, calCount, loc);
}
template <class T, bool isReuseSource = false>
void AscendQuant(const LocalTensor<std::int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const float scale, const float offset, Loc loc = Loc::current()) {
    npusim::ascendc::adv_quant(dstTensor, srcTensor, nullptr, scale, offset, srcTensor.GetSize(),
                               loc);
}

/// AscendDequant<dstT, scaleT, mode>(dst, src, deqScale[, sharedTmpBuffer], params): deqScale
/// a tensor (float, half, bfloat16_t) or a scalar.
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<std::int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale,
                   const LocalTensor<std::uint8_t>& sharedTmpBuffer, DequantParams params,
                   Loc loc = Loc::current()) {
    npusim::ascendc::adv_dequant(dstTensor, srcTensor, &deqScale, 0.0F, params, mode,
                                 &sharedTmpBuffer, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<std::int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, DequantParams params,
                   Loc loc = Loc::current()) {
    npusim::ascendc::adv_dequant(dstTensor, srcTensor, &deqScale, 0.0F, params, mode, nullptr, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<std::int32_t>& srcTensor,
                   const scaleT deqScale, DequantParams params, Loc loc = Loc::current()) {
    npusim::ascendc::adv_dequant<dstT, scaleT>(
        dstTensor, srcTensor, nullptr, static_cast<float>(deqScale), params, mode, nullptr, loc);
}

/// AscendAntiQuant<InputDataType, OutputDataType, isTranspose>(dst, src, offset, scale,
/// sharedTmpBuffer, K[, shapeInfo]): offset / scale tensors (per channel, or per group of K
/// rows) or scalars (per tensor); the forms without offset. isTranspose true is not
/// supported yet (a compile error).
template <class InputDataType, class OutputDataType, bool isTranspose = false>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& offset,
                     const LocalTensor<OutputDataType>& scale,
                     const LocalTensor<std::uint8_t>& sharedTmpBuffer, const std::uint32_t K,
                     const AntiQuantShapeInfo& shapeInfo = {}, Loc loc = Loc::current()) {
    static_assert(!isTranspose,
                  "npusim Ascend C: AscendAntiQuant with isTranspose is not "
                  "supported yet (docs/ascendc.md, advanced APIs part C)");
    npusim::ascendc::adv_antiquant(dst, src, &offset, OutputDataType{}, &scale, OutputDataType{},
                                   &sharedTmpBuffer, K, shapeInfo, loc);
}
template <class InputDataType, class OutputDataType, bool isTranspose = false>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& scale,
                     const LocalTensor<std::uint8_t>& sharedTmpBuffer, const std::uint32_t K,
                     const AntiQuantShapeInfo& shapeInfo = {}, Loc loc = Loc::current()) {
    static_assert(!isTranspose,
                  "npusim Ascend C: AscendAntiQuant with isTranspose is not "
                  "supported yet (docs/ascendc.md, advanced APIs part C)");
    npusim::ascendc::adv_antiquant(dst, src, nullptr, OutputDataType{}, &scale, OutputDataType{},
                                   &sharedTmpBuffer, K, shapeInfo, loc);
}
template <class InputDataType, class OutputDataType, bool isTranspose = false>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType offset, const OutputDataType scale,
                     const LocalTensor<std::uint8_t>& sharedTmpBuffer, const std::uint32_t K,
                     const AntiQuantShapeInfo& shapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv_antiquant<InputDataType, OutputDataType>(
        dst, src, nullptr, offset, nullptr, scale, &sharedTmpBuffer, K, shapeInfo, loc);
}

}  // namespace AscendC
