// The advanced TransData (vendor API reference, "TransData"): the four conversions of
// adv_transdata_tiling.h between 16-bit tensors in UB, with the shapes given as Layouts
// (TransDataParams{srcLayout, dstLayout}; strides are not read). NCDHW data keeps each
// (n, c, d)'s H x W elements padded to 16 (the caller pads an input; an output's padding is
// written 0, the vendor leaves it undefined). The C (and N) padding of NDC1HWC0 and
// FRACTAL_Z_3D outputs is 0.
// npusim issues per (n, d, C1 group) [NDC1HWC0] or per (d, C1 group, n) [FRACTAL_Z_3D] one
// PIPE_V Transpose instruction of the group's up to 16 channel rows of H x W elements (strided
// rows on both sides), after one Duplicate of 0 over the destination when it has padding. The
// vendor's TransDataTo5HD passes through the temp buffer are a timed approximation here: the
// temp buffer is size-checked (GetTransDataMaxMinTmpSize), not touched; without one, TransData
// reserves that much UB as the other advanced APIs do.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "npusim_ascendc/adv_reduce.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/adv_transdata_tiling.h"
#include "npusim_ascendc/layout.h"
#include "npusim_ascendc/transpose.h"
#include "npusim_ascendc/vector.h"

namespace AscendC {

/// The shapes of TransData's source and destination (both Layouts).
template <class T, class U>
struct TransDataParams {
    T srcLayout;
    U dstLayout;
};

}  // namespace AscendC

namespace npusim::ascendc {

/// A Layout's shape as a list of extents.
template <class L>
std::vector<std::int64_t> layout_extents(const L& layout) {
    return std::apply(
        [](const auto&... d) { return std::vector<std::int64_t>{static_cast<std::int64_t>(d)...}; },
        layout.GetShape());
}

template <AscendC::TransDataConfig const& config, class T, class U, class S>
void adv_transdata(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                   const AscendC::LocalTensor<std::uint8_t>* shared,
                   const AscendC::TransDataParams<U, S>& params, const Loc& loc) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, bfloat16> ||
                      std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t>,
                  "npusim Ascend C: TransData takes int16_t, uint16_t, half or bfloat16_t");
    static_assert(AscendC::is_layout<U>::value && AscendC::is_layout<S>::value,
                  "npusim Ascend C: TransDataParams holds two Layouts");
    constexpr TransDataKind kind = transdata_kind(config);
    static_assert(kind != TransDataKind::None,
                  "npusim Ascend C: TransData converts NCDHW <-> NDC1HWC0 and NCDHW <-> "
                  "FRACTAL_Z_3D (docs/ascendc.md)");
    static_assert(
        std::tuple_size_v<std::remove_cvref_t<decltype(params.srcLayout.GetShape())>> ==
                transdata_rank(config.srcFormat) &&
            std::tuple_size_v<std::remove_cvref_t<decltype(params.dstLayout.GetShape())>> ==
                transdata_rank(config.dstFormat),
        "npusim Ascend C: TransData: the layouts' shapes must have the formats' modes "
        "(NCDHW 5, NDC1HWC0 6, FRACTAL_Z_3D 7)");
    constexpr const char* api = "TransData";
    TransDataDims s;
    const std::string bad =
        transdata_dims(kind, layout_extents(params.srcLayout), layout_extents(params.dstLayout), s);
    if (!bad.empty()) throw KernelError(EventIds::where(loc) + api + ": " + bad);
    const bool from_ncdhw =
        kind == TransDataKind::NcdhwToNdc1hwc0 || kind == TransDataKind::NcdhwToFz3d;
    const bool fz = kind == TransDataKind::NcdhwToFz3d || kind == TransDataKind::Fz3dToNcdhw;
    const auto split = static_cast<std::uint64_t>(fz ? s.fz3d_elements() : s.ndc1hwc0_elements());
    const auto plain = static_cast<std::uint64_t>(s.ncdhw_elements());
    const std::uint64_t src_count = from_ncdhw ? plain : split,
                        dst_count = from_ncdhw ? split : plain;
    adv_check_size(src, src_count, "srcTensor", api, loc);
    adv_check_size(dst, dst_count, "dstTensor", api, loc);
    const std::uint64_t tmp_bytes = transdata_tmp_bytes(kind, s);
    if (shared != nullptr) {
        adv_check_tmp(*shared, tmp_bytes, api, loc);
    } else {
        adv::internal_tmp(api, tmp_bytes, tmp_bytes, loc);
    }
    const std::uint64_t d_at = dst.native().address, s_at = src.native().address;
    if (d_at < s_at + src_count * 2 && s_at < d_at + dst_count * 2) {
        throw KernelError(EventIds::where(loc) + api + ": dstTensor overlaps srcTensor");
    }
    // The destination's padding (C, N, or an NCDHW row's H x W tail) is written 0 first.
    const bool padded =
        from_ncdhw ? s.c % 16 != 0 || (fz && s.n % 16 != 0) : s.padded_hw() != s.hw();
    if (padded) {
        AscendC::Duplicate(dst.template ReinterpretCast<std::uint16_t>(), std::uint16_t{0},
                           static_cast<std::int32_t>(dst_count), loc);
    }
    const auto hw = static_cast<std::uint64_t>(s.hw()),
               p = static_cast<std::uint64_t>(s.padded_hw());
    const auto n = static_cast<std::uint64_t>(s.n), c = static_cast<std::uint64_t>(s.c),
               d = static_cast<std::uint64_t>(s.d), c1 = static_cast<std::uint64_t>(s.c1()),
               n1 = static_cast<std::uint64_t>(s.n1());
    const std::uint64_t ncdhw_pitch = d * p * 2;  // bytes between the channel rows of one (n, d)
    // One group: channels c1 x 16 .. of (ni, di) in NCDHW at `plain_at`, as rows of H x W, and
    // the same elements as H x W rows of up to 16 at `split_at`, rows `split_pitch` bytes apart.
    auto group = [&](std::uint64_t ni, std::uint64_t di, std::uint64_t ci, std::uint64_t split_at,
                     std::uint64_t split_pitch) {
        const auto channels = static_cast<std::uint32_t>(std::min<std::uint64_t>(16, c - ci * 16));
        const std::uint64_t plain_at = ((ni * c + ci * 16) * d + di) * p * 2;
        if (from_ncdhw) {
            transpose_instruction<std::uint16_t>(d_at + split_at, s_at + plain_at, channels, hw,
                                                 ncdhw_pitch, split_pitch, loc);
        } else {
            transpose_instruction<std::uint16_t>(d_at + plain_at, s_at + split_at,
                                                 static_cast<std::uint32_t>(hw), channels,
                                                 split_pitch, ncdhw_pitch, loc);
        }
    };
    if (!fz) {
        // NDC1HWC0 [N, D, C1, HW, 16]: a group's H x W rows of 16 are dense.
        for (std::uint64_t ni = 0; ni < n; ++ni) {
            for (std::uint64_t di = 0; di < d; ++di) {
                for (std::uint64_t ci = 0; ci < c1; ++ci) {
                    group(ni, di, ci, ((ni * d + di) * c1 + ci) * hw * 16 * 2, 32);
                }
            }
        }
        return;
    }
    // FRACTAL_Z_3D [D, C1, HW, N1, 16, 16]: n's row of 16 channels per H x W position, the
    // positions N1 x 256 elements apart.
    for (std::uint64_t di = 0; di < d; ++di) {
        for (std::uint64_t ci = 0; ci < c1; ++ci) {
            for (std::uint64_t ni = 0; ni < n; ++ni) {
                group(ni, di, ci, (((di * c1 + ci) * hw * n1 + ni / 16) * 16 + ni % 16) * 16 * 2,
                      n1 * 512);
            }
        }
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// TransData<config>(dst, src[, sharedTmpBuffer], params): see the file comment.
template <const TransDataConfig& config, class T, class U, class S>
void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const LocalTensor<std::uint8_t>& sharedTmpBuffer,
               const TransDataParams<U, S>& params, Loc loc = Loc::current()) {
    npusim::ascendc::adv_transdata<config>(dstTensor, srcTensor, &sharedTmpBuffer, params, loc);
}
template <const TransDataConfig& config, class T, class U, class S>
void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const TransDataParams<U, S>& params, Loc loc = Loc::current()) {
    npusim::ascendc::adv_transdata<config>(dstTensor, srcTensor, nullptr, params, loc);
}

}  // namespace AscendC
