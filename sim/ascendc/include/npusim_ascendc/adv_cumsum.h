// CumSum (the vendor's lib/math cumsum): prefix sums of an outter x inner matrix along the
// first axis (row i = rows 0..i summed) or the last axis (column j = columns 0..j summed),
// optionally the result's last row into lastRowTensor. half data is summed in float.
//   first axis: one Add per row (half: a float accumulator row and a cast per row);
//   last axis: Gather transposes the matrix into the temp buffer (rows padded to 8 floats),
//   one Add per column, and a second Gather transposes it back.
// Temp bytes (cumsum_tmp_bytes, also the host's GetCumSumMaxMinTmpSize): first axis 32
// (float; none used) or 2 x inner x 4 (half); last axis 2 x inner x align8(outter) x 4, plus
// outter x inner x 4 for half. Both algorithms (CumSumAlgorithm) give the line-by-line sums.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/vector_bits.h"

namespace AscendC {

enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };
struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
    CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};
inline constexpr CumSumConfig defaultCumSumConfig = {true, false, true};
struct CumSumInfo {
    std::uint32_t outter{0};
    std::uint32_t inner{0};  // inner x sizeof(T): a multiple of 32 bytes
};

}  // namespace AscendC

namespace npusim::ascendc::adv {

inline LocalTensor<float> floats_at(std::uint64_t address, std::uint64_t count) {
    return {npusim::LocalTensor<float>{MemSpace::UB, address, count}, AscendC::TPosition::VECCALC};
}

/// Last-axis prefix sums of `f` (outter x inner floats, in place) through the temp region at
/// `address` (2 x inner x align8(outter) floats).
inline void cumsum_last_axis(const LocalTensor<float>& f, std::uint32_t outter, std::uint32_t inner,
                             std::uint64_t address, const Loc& loc) {
    using namespace AscendC;
    const std::uint32_t padded = (outter + 7) / 8 * 8;
    const LocalTensor<float> moved = floats_at(address, std::uint64_t{inner} * padded);
    const auto offsets =
        floats_at(address + std::uint64_t{inner} * padded * 4, std::uint64_t{inner} * padded)
            .ReinterpretCast<std::int32_t>();
    const auto p = static_cast<std::int32_t>(padded), in = static_cast<std::int32_t>(inner);
    // offsets[j][i] = byte offset of f[i][j] (rows past outter repeat the last one)
    CreateVecIndex(offsets, 0, p, loc);
    Muls(offsets, offsets, in * 4, p, loc);
    Mins(offsets, offsets, static_cast<std::int32_t>((outter - 1) * inner * 4), p, loc);
    for (std::uint32_t j = 1; j < inner; ++j) {
        Adds(offsets[j * padded], offsets, static_cast<std::int32_t>(j * 4), p, loc);
    }
    Gather(moved, f, offsets.ReinterpretCast<std::uint32_t>(), 0, inner * padded, loc);
    for (std::uint32_t j = 1; j < inner; ++j) {
        Add(moved[j * padded], moved[j * padded], moved[(j - 1) * padded], p, loc);
    }
    // offsets[i][j] = byte offset of moved[j][i]
    CreateVecIndex(offsets, 0, in, loc);
    Muls(offsets, offsets, p * 4, in, loc);
    for (std::uint32_t i = 1; i < outter; ++i) {
        Adds(offsets[i * inner], offsets, static_cast<std::int32_t>(i * 4), in, loc);
    }
    Gather(f, moved, offsets.ReinterpretCast<std::uint32_t>(), 0, outter * inner, loc);
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// CumSum<T, config>(dst, lastRowTensor, src[, sharedTmpBuffer], cumSumInfo).
template <class T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(const LocalTensor<T>& dst, const LocalTensor<T>& lastRowTensor,
            const LocalTensor<T>& src, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
            const CumSumInfo& cumSumInfo, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                  "npusim Ascend C: CumSum takes half or float tensors");
    namespace adv = npusim::ascendc::adv;
    const std::uint32_t outter = cumSumInfo.outter, inner = cumSumInfo.inner;
    const auto in = static_cast<std::int32_t>(inner);
    if (inner * sizeof(T) % 32 != 0 || outter == 0 || inner == 0) {
        adv::fail(loc, "CumSum",
                  "cumSumInfo.inner x sizeof(T) must be a non-zero multiple of 32 "
                  "bytes and outter non-zero");
    }
    adv::require_count("CumSum", std::uint64_t{outter} * inner, src.GetSize(), "src", loc);
    adv::require_count("CumSum", std::uint64_t{outter} * inner, dst.GetSize(), "dst", loc);
    if (config.outputLastRow)
        adv::require_count("CumSum", inner, lastRowTensor.GetSize(), "lastRowTensor", loc);
    const std::uint32_t need =
        npusim::ascendc::cumsum_tmp_bytes(outter, inner, sizeof(T), config.isLastAxis);
    const adv::Tmp shared = adv::tmp_of(sharedTmpBuffer);
    if (shared.bytes < need) {
        adv::fail(loc, "CumSum",
                  "sharedTmpBuffer holds " + std::to_string(shared.bytes) + " bytes, at least " +
                      std::to_string(need) + " are needed (GetCumSumMaxMinTmpSize)");
    }
    if (config.isLastAxis) {
        if constexpr (std::is_same_v<T, float>) {
            if (dst.GetPhyAddr() != src.GetPhyAddr()) Muls(dst, src, 1.0f, in * outter, loc);
            adv::cumsum_last_axis(dst, outter, inner, shared.address, loc);
        } else {
            const std::uint32_t padded = (outter + 7) / 8 * 8;
            const auto f = adv::floats_at(shared.address + 2ull * inner * padded * 4,
                                          std::uint64_t{outter} * inner);
            Cast(f, src, RoundMode::CAST_NONE, in * static_cast<std::int32_t>(outter), loc);
            adv::cumsum_last_axis(f, outter, inner, shared.address, loc);
            Cast(dst, f, RoundMode::CAST_RINT, in * static_cast<std::int32_t>(outter), loc);
        }
    } else if constexpr (std::is_same_v<T, float>) {
        if (dst.GetPhyAddr() != src.GetPhyAddr()) Muls(dst, src, 1.0f, in, loc);
        for (std::uint32_t i = 1; i < outter; ++i) {
            Add(dst[i * inner], src[i * inner], dst[(i - 1) * inner], in, loc);
        }
    } else {
        const auto sum = adv::floats_at(shared.address, inner);
        const auto row = adv::floats_at(shared.address + inner * 4ull, inner);
        Cast(sum, src, RoundMode::CAST_NONE, in, loc);
        Cast(dst, sum, RoundMode::CAST_RINT, in, loc);
        for (std::uint32_t i = 1; i < outter; ++i) {
            Cast(row, src[i * inner], RoundMode::CAST_NONE, in, loc);
            Add(sum, sum, row, in, loc);
            Cast(dst[i * inner], sum, RoundMode::CAST_RINT, in, loc);
        }
    }
    if (config.outputLastRow) {
        Muls(lastRowTensor, dst[(outter - 1) * inner], static_cast<T>(1.0f), in, loc);
    }
}
template <class T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(const LocalTensor<T>& dst, const LocalTensor<T>& lastRowTensor,
            const LocalTensor<T>& src, const CumSumInfo& cumSumInfo, Loc loc = Loc::current()) {
    const std::uint32_t need = npusim::ascendc::cumsum_tmp_bytes(
        cumSumInfo.outter, cumSumInfo.inner, sizeof(T), config.isLastAxis);
    const auto tmp = npusim::ascendc::adv::internal_tmp("CumSum", need, need, loc);
    const LocalTensor<std::uint8_t> buffer(
        npusim::LocalTensor<std::uint8_t>{npusim::MemSpace::UB, tmp.address, tmp.bytes},
        TPosition::VECCALC);
    CumSum<T, config>(dst, lastRowTensor, src, buffer, cumSumInfo, loc);
}

}  // namespace AscendC
