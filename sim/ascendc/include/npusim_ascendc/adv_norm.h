// The advanced normalization APIs (vendor API reference, "RmsNorm"), composed of basic
// instructions at the kernel's line, and PopStackBuffer (the rest of UB as a temp buffer).
//
// RmsNorm, per row of hLength elements (bLength x sLength rows), in fp32 in the temp buffer:
//   [Cast to float (half)], Mul (x^2), two-level GroupReduceSum (the partials in place),
//   Muls (1 / originalHLength), Adds (epsilon), Rsqrt, a scalar read of the factor, Mul by
//   gamma, Muls by the factor [, Cast back (half)].
// The vendor spreads the per-row factor with Brcb over blocks of rows; npusim's per-row
// scalar read is a timed approximation (one scalar load per row, behind the V -> S wait).
// Temp space: hLength floats (2 x hLength for half) + 8 floats, the vendor's minimum.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/adv_reduce.h"
#include "npusim_ascendc/vector.h"
#include "tiling/platform/platform_ascendc.h"

/// The RmsNorm tiling (the vendor declares it at global scope; kernels name it unqualified).
struct RmsNormTiling {
    std::uint32_t bLength = 0;
    std::uint32_t sLength = 0;
    std::uint32_t hLength = 0;
    std::uint32_t originalHLength = 0;
    float reciprocalOfHLength = 0;
    std::uint32_t mainBshLength = 0;
    std::uint32_t mainBsLength = 0;
    std::uint32_t mainBsLengthAlign = 0;
    std::uint32_t loopRound = 0;
    std::uint32_t inputTailPos = 0;
    std::uint32_t tailBshLength = 0;
    std::uint32_t tailBsLength = 0;
};

namespace npusim::ascendc {

/// The temp bytes RmsNorm needs for rows of `h` elements of `elem_bytes`.
constexpr std::uint64_t adv_rmsnorm_tmp_bytes(std::uint64_t h, std::uint64_t elem_bytes) {
    return (h * (elem_bytes == 2 ? 2 : 1) + 8) * 4;
}

template <class T>
void adv_rmsnorm(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                 const AscendC::LocalTensor<T>& gamma,
                 const AscendC::LocalTensor<std::uint8_t>& tmp, T epsilon,
                 const RmsNormTiling& tiling, const Loc& loc) {
    adv_check_half_float<T>("RmsNorm");
    constexpr const char* api = "RmsNorm";
    const std::uint64_t h = tiling.hLength;
    const std::uint64_t rows = std::uint64_t{tiling.bLength} * tiling.sLength;
    if (h == 0 || rows == 0) return;
    adv_check_size(src, rows * h, "src", api, loc);
    adv_check_size(dst, rows * h, "dst", api, loc);
    adv_check_size(gamma, h, "gamma", api, loc);
    adv_check_tmp(tmp, adv_rmsnorm_tmp_bytes(h, sizeof(T)), api, loc);
    const auto n = static_cast<std::int32_t>(h);
    const float scale =
        tiling.reciprocalOfHLength != 0
            ? tiling.reciprocalOfHLength
            : 1.0F / static_cast<float>(tiling.originalHLength ? tiling.originalHLength
                                                               : tiling.hLength);
    const AscendC::LocalTensor<float> work = tmp.template ReinterpretCast<float>();
    const AscendC::LocalTensor<float> square = work;   // h floats
    const AscendC::LocalTensor<float> wide = work[h];  // h floats (half only)
    const AscendC::LocalTensor<float> factor = work[h * (sizeof(T) == 2 ? 2 : 1)];  // 8 floats
    constexpr std::uint64_t per_repeat = 64;
    const std::uint64_t partials = (h + per_repeat - 1) / per_repeat;
    for (std::uint64_t r = 0; r < rows; ++r) {
        AscendC::LocalTensor<float> x;
        if constexpr (std::is_same_v<T, half>) {
            AscendC::Cast(wide, src[r * h], AscendC::RoundMode::CAST_NONE, n, loc);
            x = wide;
        } else {
            x = src[r * h];
        }
        AscendC::Mul(square, x, x, n, loc);
        if (partials > 1) {
            adv_reduce_rows(Op::GroupReduceSum, factor, square, square, 1, h, h, loc);
        } else {
            issue_group_reduce(Op::GroupReduceSum, factor, square, ReduceBatch{0, 0, h, h}, loc);
        }
        AscendC::Muls(factor, factor, scale, 1, loc);
        AscendC::Adds(factor, factor, static_cast<float>(epsilon), 1, loc);
        AscendC::Rsqrt(factor, factor, 1, loc);
        const float f = factor.GetValue(0, loc);
        if constexpr (std::is_same_v<T, half>) {
            AscendC::Cast(square, gamma, AscendC::RoundMode::CAST_NONE, n, loc);
            AscendC::Mul(wide, wide, square, n, loc);
            AscendC::Muls(wide, wide, f, n, loc);
            AscendC::Cast(dst[r * h], wide, AscendC::RoundMode::CAST_RINT, n, loc);
        } else {
            AscendC::Mul(dst[r * h], x, gamma, n, loc);
            AscendC::Muls(dst[r * h], dst[r * h], f, n, loc);
        }
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// PopStackBuffer<T, pos>(tensor): the UB from the block's current allocation top to the end
/// of UB as a temp buffer (the vendor's "stack"); true on success. npusim allocates it (after
/// a 32-byte probe that finds the top; the end is the simulated chip's UB size), so a later
/// InitBuffer in the same block finds UB full (the vendor's stack would be overlapped).
/// Only VECCALC / LCM.
template <class T, TPosition pos>
bool PopStackBuffer(LocalTensor<T>& popLocal, Loc loc = Loc::current()) {
    static_assert(pos == TPosition::VECCALC, "npusim Ascend C: PopStackBuffer takes LCM / VECCALC");
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    // A 32-byte probe finds the allocation top; the rest of UB after it is one allocation.
    const std::uint64_t top = ctx.block().alloc<std::int8_t>(npusim::MemSpace::UB, 32, loc).address;
    std::uint64_t ub = 0;
    platform_ascendc::PlatformAscendCManager::GetInstance()->GetCoreMemSize(
        platform_ascendc::CoreMemType::UB, ub);
    if (ub <= top + 64) return false;
    const std::uint64_t bytes = (ub - top - 32) / 32 * 32;
    const std::uint64_t at =
        ctx.block().alloc<std::int8_t>(npusim::MemSpace::UB, bytes, loc).address;
    popLocal =
        LocalTensor<T>(npusim::LocalTensor<T>{npusim::MemSpace::UB, at, bytes / sizeof(T)}, pos);
    return true;
}

/// RmsNorm<T, isBasicBlock>(dst, src, gamma[, sharedTmpBuffer], epsilon, tiling): dst = src x
/// gamma / sqrt(mean(src^2 over the row) + epsilon), rows of tiling.hLength (half or float).
/// Without sharedTmpBuffer the temp space is PopStackBuffer's.
template <class T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<T>& gammaLocal, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
             const T epsilon, const RmsNormTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_rmsnorm(dstLocal, srcLocal, gammaLocal, sharedTmpBuffer, epsilon, tiling,
                                 loc);
}
template <class T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<T>& gammaLocal, const T epsilon, const RmsNormTiling& tiling,
             Loc loc = Loc::current()) {
    LocalTensor<std::uint8_t> stack;
    PopStackBuffer<std::uint8_t, TPosition::VECCALC>(stack, loc);
    npusim::ascendc::adv_rmsnorm(dstLocal, srcLocal, gammaLocal, stack, epsilon, tiling, loc);
}

}  // namespace AscendC
