// The softmax family of advanced APIs, ND format: SoftMax, SimpleSoftMax, LogSoftMax and
// AdjustSoftMaxRes (tiling and temp sizes: adv_softmax_tiling.h). Row by row, as the
// vendor's reference describes the steps: ReduceMax of the row, its broadcast into the row's
// 32-byte block of maxTensor (one Brcb), Sub of that block from the row (a level-0 Sub with a
// zero block stride: npusim issues one instruction per 32-byte block, hardware one per
// call), Exp, ReduceSum, its broadcast into sumTensor, Div, and for LogSoftMax a log10 (the
// vendor's current reference: dst = log10(softmax)). half rows are computed in float in the
// temp buffer and cast back.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/adv_softmax_tiling.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/reduce.h"
#include "npusim_ascendc/shape_info.h"

namespace AscendC {

enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
    constexpr SoftmaxConfig(bool isCheckTilingIn) : isCheckTiling(isCheckTilingIn) {}
    constexpr SoftmaxConfig(bool isCheckTilingIn, std::uint32_t m, std::uint32_t k)
        : isCheckTiling(isCheckTilingIn), oriSrcM(m), oriSrcK(k) {}
    constexpr SoftmaxConfig(bool isCheckTilingIn, std::uint32_t m, std::uint32_t k,
                            SoftmaxMode modeIn)
        : isCheckTiling(isCheckTilingIn), oriSrcM(m), oriSrcK(k), mode(modeIn) {}
    bool isCheckTiling = true;
    std::uint32_t oriSrcM = 0;
    std::uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
inline constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};
/// srcM rows of srcK elements (srcK x sizeof(T) a multiple of 32 bytes), of which the first
/// oriSrcK are data (0: all).
struct SoftMaxShapeInfo {
    std::uint32_t srcM = 0;
    std::uint32_t srcK = 0;
    std::uint32_t oriSrcM = 0;
    std::uint32_t oriSrcK = 0;
};

}  // namespace AscendC

namespace npusim::ascendc::adv {

enum class SoftmaxKind { Normal, Log, Simple };

/// One Brcb instruction of one block: every element of `block` = value[0].
template <class U>
void broadcast_block(const LocalTensor<U>& block, const LocalTensor<U>& value, const Loc& loc) {
    vector_instruction(block.native(), 32 / sizeof(U), {read_of(value.native(), 1)}, loc,
                       [&](Block& b) { b.brcb(block.native(), value.native(), 1, loc); });
}

/// row = row (Sub | Div) the 8 floats of `block` repeated (a level-0 op, zero src1 strides).
inline void row_op_block(bool divide, const LocalTensor<float>& out, const LocalTensor<float>& row,
                         const LocalTensor<float>& block, std::uint32_t length, const Loc& loc) {
    const AscendC::BinaryRepeatParams p{1, 1, 0, 8, 8, 0};
    for (std::uint32_t at = 0; at < length; at += 64 * 255) {
        const std::uint32_t part = std::min<std::uint32_t>(length - at, 64 * 255);
        const std::uint32_t whole = part / 64, tail = part % 64;
        auto issue = [&](std::uint32_t offset, std::uint64_t mask, std::uint32_t repeats) {
            if (divide) {
                AscendC::Div(out[at + offset], row[at + offset], block, mask,
                             static_cast<std::uint8_t>(repeats), p, loc);
            } else {
                AscendC::Sub(out[at + offset], row[at + offset], block, mask,
                             static_cast<std::uint8_t>(repeats), p, loc);
            }
        };
        if (whole != 0) issue(0, 64, whole);
        if (tail != 0) issue(whole * 64, tail, 1);
    }
}

/// The rows of a softmax call: from the shape info, else from the tiling.
template <class Tiling>
AscendC::SoftMaxShapeInfo softmax_shape(const Tiling& tiling, const AscendC::SoftMaxShapeInfo& s,
                                        std::string_view api, const Loc& loc) {
    AscendC::SoftMaxShapeInfo r = s;
    if (r.srcM == 0 || r.srcK == 0) r = {tiling.srcM, tiling.srcK, tiling.srcM, tiling.srcK};
    if (r.oriSrcK == 0 || r.oriSrcK > r.srcK) r.oriSrcK = r.srcK;
    if (r.srcM == 0 || r.srcK == 0) {
        fail(loc, api, "no shape: neither the SoftMaxShapeInfo nor the tiling gives srcM, srcK");
    }
    return r;
}

/// The softmax family on srcM rows. `sum` / `max` may be empty tensors (not written); for
/// kSimple they are read (the row's max and sum, one block a row).
template <class T>
void softmax(SoftmaxKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& sum,
             const LocalTensor<T>& max, const LocalTensor<T>& src, const Tmp* shared,
             const AscendC::SoftMaxShapeInfo& shape, std::string_view api, const Loc& loc) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, npusim::half>,
                  "npusim Ascend C: the softmax APIs take half or float tensors");
    const std::uint32_t k = shape.srcK, valid = shape.oriSrcK;
    if (k * sizeof(T) % 32 != 0) {
        fail(loc, api, "srcK " + std::to_string(k) + " x sizeof(T) is not a multiple of 32 bytes");
    }
    require_count(api, std::uint64_t{shape.srcM} * k, src.GetSize(), "src", loc);
    require_count(api, std::uint64_t{shape.srcM} * k, dst.GetSize(), "dst", loc);
    constexpr std::uint32_t per_block = 32 / sizeof(T);
    for (const LocalTensor<T>* out : {&sum, &max}) {
        if (out->GetSize() != 0) {
            require_count(api, std::uint64_t{shape.srcM} * per_block, out->GetSize(),
                          out == &sum ? "sumTensor" : "maxTensor", loc);
        }
    }
    const std::uint32_t need = softmax_tmp_bytes(k, sizeof(T));
    const Tmp tmp = shared != nullptr ? *shared : internal_tmp(api, need, need, loc);
    if (tmp.bytes < need) {
        fail(loc, api,
             "sharedTmpBuffer holds " + std::to_string(tmp.bytes) + " bytes, at least " +
                 std::to_string(need) + " are needed (Get" + std::string(api) + "MinTmpSize)");
    }
    auto at = [&](std::uint64_t offset, std::uint64_t count) {
        return LocalTensor<float>(
            npusim::LocalTensor<float>{MemSpace::UB, tmp.address + offset, count},
            AscendC::TPosition::VECCALC);
    };
    const LocalTensor<float> reduced = at(0, 8), max_block = at(32, 8), sum_block = at(64, 8);
    const LocalTensor<T> staged(npusim::LocalTensor<T>{MemSpace::UB, tmp.address + 96, 1},
                                AscendC::TPosition::VECCALC);
    const auto n = static_cast<std::int32_t>(valid);
    // Writes the float row result `value` (block-broadcast) into the caller's block tensor.
    auto publish = [&](const LocalTensor<T>& out, std::uint32_t row, const LocalTensor<float>& v) {
        if (out.GetSize() == 0) return;
        if constexpr (std::is_same_v<T, float>) {
            broadcast_block(out[row * per_block], v, loc);
        } else {
            AscendC::Cast(staged, v, AscendC::RoundMode::CAST_RINT, 1, loc);
            broadcast_block(out[row * per_block], staged, loc);
        }
    };
    for (std::uint32_t row = 0; row < shape.srcM; ++row) {
        const LocalTensor<T> in = src[row * k], result = dst[row * k];
        LocalTensor<float> x, y;
        if constexpr (std::is_same_v<T, float>) {
            x = in;
            y = result;
        } else {
            x = y = at(kSoftmaxFixedTmp, k);
            AscendC::Cast(x, in, AscendC::RoundMode::CAST_NONE, n, loc);
        }
        if (kind == SoftmaxKind::Simple) {
            if constexpr (std::is_same_v<T, float>) {
                row_op_block(false, y, x, max[row * per_block], valid, loc);
                AscendC::Exp(y, y, n, loc);
                row_op_block(true, y, y, sum[row * per_block], valid, loc);
            } else {
                AscendC::Cast(max_block, max[row * per_block], AscendC::RoundMode::CAST_NONE, 8,
                              loc);
                AscendC::Cast(sum_block, sum[row * per_block], AscendC::RoundMode::CAST_NONE, 8,
                              loc);
                row_op_block(false, y, x, max_block, valid, loc);
                AscendC::Exp(y, y, n, loc);
                row_op_block(true, y, y, sum_block, valid, loc);
            }
        } else {
            AscendC::ReduceMax(reduced, x, reduced, n, false, loc);
            broadcast_block(max_block, reduced, loc);
            publish(max, row, reduced);
            row_op_block(false, y, x, max_block, valid, loc);
            AscendC::Exp(y, y, n, loc);
            AscendC::ReduceSum(reduced, y, reduced, n, loc);
            broadcast_block(sum_block, reduced, loc);
            publish(sum, row, reduced);
            row_op_block(true, y, y, sum_block, valid, loc);
            if (kind == SoftmaxKind::Log) {
                AscendC::Ln(y, y, n, loc);
                AscendC::Muls(y, y, 0.4342944819032518f, n, loc);
            }
        }
        if constexpr (!std::is_same_v<T, float>) {
            AscendC::Cast(result, y, AscendC::RoundMode::CAST_RINT, n, loc);
        }
    }
}

template <bool isDataFormatNZ>
void require_nd(std::string_view api, const Loc& loc) {
    if constexpr (isDataFormatNZ) {
        not_supported_yet_v(loc, std::string(api) + " with isDataFormatNZ = true");
    }
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// SoftMax(dst, sumTensor, maxTensor, src[, sharedTmpBuffer], tiling, shapeInfo): per row
/// max, dst = exp(src - max) / sum(exp(src - max)); max and sum block-broadcast, one 32-byte
/// block per row. isReuseSource, isBasicBlock and the config do not change the result.
template <class T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor,
             const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
             const LocalTensor<std::uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SoftMax", loc);
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::softmax(
        npusim::ascendc::adv::SoftmaxKind::Normal, dst, sumTensor, maxTensor, src, &tmp,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftMax", loc), "SoftMax",
        loc);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor,
             const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
             Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SoftMax", loc);
    npusim::ascendc::adv::softmax(
        npusim::ascendc::adv::SoftmaxKind::Normal, dst, sumTensor, maxTensor, src, nullptr,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftMax", loc), "SoftMax",
        loc);
}
/// SoftMax(dst, src[, sharedTmpBuffer], tiling, shapeInfo): without the max / sum outputs.
template <class T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<std::uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::softmax(
        npusim::ascendc::adv::SoftmaxKind::Normal, dst, LocalTensor<T>{}, LocalTensor<T>{}, src,
        &tmp, npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftMax", loc),
        "SoftMax", loc);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::softmax(
        npusim::ascendc::adv::SoftmaxKind::Normal, dst, LocalTensor<T>{}, LocalTensor<T>{}, src,
        nullptr, npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftMax", loc),
        "SoftMax", loc);
}

/// SimpleSoftMax(dst, inSumTensor, inMaxTensor, src[, sharedTmpBuffer], tiling, shapeInfo):
/// dst = exp(src - max) / sum with the given per-row max and sum blocks (no reductions).
template <class T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& src,
                   const LocalTensor<std::uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SimpleSoftMax", loc);
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::softmax(
        npusim::ascendc::adv::SoftmaxKind::Simple, dst, inSumTensor, inMaxTensor, src, &tmp,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SimpleSoftMax", loc),
        "SoftMax", loc);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& src,
                   const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                   Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SimpleSoftMax", loc);
    npusim::ascendc::adv::softmax(
        npusim::ascendc::adv::SoftmaxKind::Simple, dst, inSumTensor, inMaxTensor, src, nullptr,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SimpleSoftMax", loc),
        "SoftMax", loc);
}

/// LogSoftMax(dst, sumTensor, maxTensor, src, sharedTmpBuffer, tiling, shapeInfo): as SoftMax,
/// then log10 (the vendor's reference: dst = log10(exp(x - max) / sum)). The rows come from
/// the shape info when it is given (the tiling may be left empty then).
template <class T, bool isReuseSource = false, bool isDataFormatNZ = false>
void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor,
                const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
                const LocalTensor<std::uint8_t>& sharedTmpBuffer, const LogSoftMaxTiling& tiling,
                const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("LogSoftMax", loc);
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::softmax(
        npusim::ascendc::adv::SoftmaxKind::Log, dst, sumTensor, maxTensor, src, &tmp,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "LogSoftMax", loc),
        "LogSoftMax", loc);
}

/// AdjustSoftMaxRes<T1, T2>(softMaxRes, maxTensor, from, to, shapeInfo): every row whose max
/// (the first element of its maxTensor block, compared bit for bit with `from`) equals from
/// becomes `to`; true when a row changed. The scalar unit reads each row's max (behind the
/// automatic synchronization) and a Duplicate rewrites a matching row.
template <class T1, class T2, bool isDataFormatNZ = false, std::uint8_t stepSizeMode = 0>
bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor,
                      const std::uint32_t from, const T1 to,
                      const SoftMaxShapeInfo& softmaxShapeInfo, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("AdjustSoftMaxRes", loc);
    using Bits = std::conditional_t<sizeof(T2) == 4, std::uint32_t, std::uint16_t>;
    const LocalTensor<Bits> bits = maxTensor.template ReinterpretCast<Bits>();
    constexpr std::uint32_t per_block = 32 / sizeof(T2);
    const std::uint32_t k = softmaxShapeInfo.srcK;
    const std::uint32_t valid = softmaxShapeInfo.oriSrcK == 0 ? k : softmaxShapeInfo.oriSrcK;
    bool changed = false;
    for (std::uint32_t row = 0; row < softmaxShapeInfo.srcM; ++row) {
        if (bits.GetValue(row * per_block, loc) != static_cast<Bits>(from)) continue;
        Duplicate(softMaxRes[row * k], to, static_cast<std::int32_t>(valid), loc);
        changed = true;
    }
    return changed;
}

}  // namespace AscendC
