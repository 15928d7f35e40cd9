// The advanced data-layout and index APIs (vendor API reference, "Broadcast", "Fill",
// "Arange"), composed of basic instructions at the kernel's line:
//   Broadcast<T, dim, axis>: dim 1 ({1} -> {n}) and dim 2 along axis 0 ({1, n} -> {m, n}: one
//     PIPE_V copy per row) or axis 1 ({m, 1} -> {m, n}: per row a scalar read of the value and
//     a Duplicate; the vendor spreads the values with Brcb first, a timed approximation).
//   Fill(gm, size, value): InitGlobalMemory (Duplicate into UB, then copies out on MTE3).
//   Arange(dst, first, diff, count): CreateVecIndex, Muls, Adds (dst[i] = first + i x diff).
#pragma once

#include <cstdint>
#include <string>

#include "npusim_ascendc/adv_reduce.h"
#include "npusim_ascendc/init_global_memory.h"
#include "npusim_ascendc/vector.h"
#include "npusim_ascendc/vector_bits.h"

namespace npusim::ascendc {

/// The broadcast of `src` (srcShape) to `dst` (dstShape), dim 1 or 2.
template <class T, std::int32_t dim, std::int32_t axis>
void adv_broadcast(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                   const std::uint32_t dstShape[], const std::uint32_t srcShape[], const Loc& loc) {
    static_assert(dim == 1 || dim == 2, "npusim Ascend C: Broadcast supports dim 1 and 2");
    static_assert(axis == 0 || axis == 1, "npusim Ascend C: Broadcast's axis is 0 or 1");
    static_assert(dim == 2 || axis == 0, "npusim Ascend C: Broadcast with dim 1 takes axis 0");
    constexpr const char* api = "Broadcast";
    if constexpr (dim == 1) {
        if (srcShape[0] != 1 && srcShape[0] != dstShape[0]) {
            throw KernelError(EventIds::where(loc) + "Broadcast: srcShape {" +
                              std::to_string(srcShape[0]) + "} does not broadcast to {" +
                              std::to_string(dstShape[0]) + "}");
        }
        adv_check_size(dst, dstShape[0], "dst", api, loc);
        if (srcShape[0] == dstShape[0]) {
            AscendC::Adds(dst, src, T{}, static_cast<std::int32_t>(dstShape[0]), loc);
            return;
        }
        AscendC::Duplicate(dst, src.GetValue(0, loc), static_cast<std::int32_t>(dstShape[0]), loc);
    } else {
        const std::uint64_t m = dstShape[0], n = dstShape[1];
        const bool fits =
            axis == 0 ? srcShape[0] == 1 && srcShape[1] == n : srcShape[1] == 1 && srcShape[0] == m;
        if (!fits) {
            throw KernelError(EventIds::where(loc) + "Broadcast<dim 2, axis " +
                              std::to_string(axis) + ">: srcShape {" + std::to_string(srcShape[0]) +
                              ", " + std::to_string(srcShape[1]) + "} does not broadcast to {" +
                              std::to_string(m) + ", " + std::to_string(n) + "} along that axis");
        }
        adv_check_size(dst, m * n, "dst", api, loc);
        adv_check_size(src, axis == 0 ? n : m, "src", api, loc);
        for (std::uint64_t row = 0; row < m; ++row) {
            if constexpr (axis == 0) {
                AscendC::Adds(dst[row * n], src, T{}, static_cast<std::int32_t>(n), loc);
            } else {
                AscendC::Duplicate(dst[row * n], src.GetValue(row, loc),
                                   static_cast<std::int32_t>(n), loc);
            }
        }
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Broadcast<T, dim, axis[, isReuseSource]>(dst, src, dstShape, srcShape[, sharedTmpBuffer]):
/// dst = src repeated along `axis` (dim 1: a single value to dstShape[0] elements). npusim
/// needs no temp space (GetBroadCastMaxMinTmpSize reports 0); a given one is not touched.
template <class T, std::int32_t dim, std::int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::uint32_t dstShape[],
               const std::uint32_t srcShape[], Loc loc = Loc::current()) {
    npusim::ascendc::adv_broadcast<T, dim, axis>(dst, src, dstShape, srcShape, loc);
}
template <class T, std::int32_t dim, std::int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::uint32_t dstShape[],
               const std::uint32_t srcShape[], const LocalTensor<std::uint8_t>& sharedTmpBuffer,
               Loc loc = Loc::current()) {
    (void)sharedTmpBuffer;
    npusim::ascendc::adv_broadcast<T, dim, axis>(dst, src, dstShape, srcShape, loc);
}
/// BroadCast: Broadcast under the vendor's other spelling (both forms).
template <class T, std::int32_t dim, std::int32_t axis, bool isReuseSource = false>
void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::uint32_t dstShape[],
               const std::uint32_t srcShape[], Loc loc = Loc::current()) {
    npusim::ascendc::adv_broadcast<T, dim, axis>(dst, src, dstShape, srcShape, loc);
}
template <class T, std::int32_t dim, std::int32_t axis, bool isReuseSource = false>
void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::uint32_t dstShape[],
               const std::uint32_t srcShape[], const LocalTensor<std::uint8_t>& /*sharedTmpBuffer*/,
               Loc loc = Loc::current()) {
    npusim::ascendc::adv_broadcast<T, dim, axis>(dst, src, dstShape, srcShape, loc);
}

/// Fill(gm, size, value) is in npusim_ascendc/init_global_memory.h.

/// Arange(dst, firstValue, diffValue, count): dst[i] = firstValue + i x diffValue for i <
/// count (half, float, int16_t, int32_t): CreateVecIndex from 0, Muls by diffValue, Adds of
/// firstValue, three PIPE_V instructions (each result rounded to T once per step).
template <class T>
void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue,
            const std::int32_t count, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> ||
                      std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int32_t>,
                  "npusim Ascend C: Arange takes half, float, int16_t or int32_t");
    if (count <= 0) return;
    npusim::ascendc::adv_check_size(dst, static_cast<std::uint64_t>(count), "dst", "Arange", loc);
    CreateVecIndex(dst, T{}, static_cast<std::uint32_t>(count), loc);
    Muls(dst, dst, diffValue, count, loc);
    Adds(dst, dst, firstValue, count, loc);
}

}  // namespace AscendC
