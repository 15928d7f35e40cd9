// The advanced reductions (vendor API reference, "Sum", "ReduceSum / ReduceMax / ReduceMin"
// with a Pattern): compositions of the basic per-repeat reductions (WholeReduce groups, PIPE_V)
// in the caller's temp buffer, so timing, trace and checker see each instruction at the
// kernel's line. Also the shared checks of the advanced APIs (temp buffer sizes).
//
// A row of n elements is reduced in two levels when it spans more than one 256-byte repeat:
// one result per repeat into the temp buffer, then the partials into the row's result. The
// temp buffer must hold one row's partials: align32(ceil(n / per_repeat) x sizeof(T)) bytes
// (the tiling side's GetSumMaxMinTmpSize / GetReduceXxxMaxMinTmpSize report exactly that).
#pragma once

#include <cstdint>
#include <string>

#include "npusim_ascendc/adv_tiling.h"
#include "npusim_ascendc/reduce.h"
#include "npusim_ascendc/vector.h"

namespace npusim::ascendc {

/// A KernelError naming `api` and the line when `tmp` holds fewer than `need` bytes.
template <class U>
void adv_check_tmp(const AscendC::LocalTensor<U>& tmp, std::uint64_t need, const char* api,
                   const Loc& loc) {
    const std::uint64_t have = tmp.GetSize() * sizeof(U);
    if (have < need) {
        throw KernelError(EventIds::where(loc) + api + ": the temp buffer holds " +
                          std::to_string(have) + " bytes, this call needs " + std::to_string(need) +
                          " (the tiling side's Get...MaxMinTmpSize)");
    }
}

/// A KernelError naming `api` when `t` holds fewer than `need` elements.
template <class T>
void adv_check_size(const AscendC::LocalTensor<T>& t, std::uint64_t need, const char* what,
                    const char* api, const Loc& loc) {
    if (t.GetSize() < need) {
        throw KernelError(EventIds::where(loc) + api + ": " + what + " holds " +
                          std::to_string(t.GetSize()) + " elements, the shape needs " +
                          std::to_string(need));
    }
}

/// dst[row] = the reduction (GroupReduceSum / Max / Min) of src[row x stride ..][0..n) for
/// `rows` rows. Rows within one repeat are one instruction when they are dense (stride n) or
/// one per row; longer rows reduce per repeat into `tmp` first, then the partials.
template <Element T>
void adv_reduce_rows(Op op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     const AscendC::LocalTensor<T>& tmp, std::uint64_t rows, std::uint64_t n,
                     std::uint64_t stride, const Loc& loc) {
    constexpr std::uint64_t per_repeat = 256 / sizeof(T);
    if (rows == 0 || n == 0) return;
    if (n <= per_repeat) {
        if (stride == n) {
            issue_group_reduce(op, dst, src, ReduceBatch{0, 0, rows * n, n}, loc);
        } else {
            for (std::uint64_t r = 0; r < rows; ++r) {
                issue_group_reduce(op, dst, src, ReduceBatch{r * stride, r, n, n}, loc);
            }
        }
        return;
    }
    const std::uint64_t full = n / per_repeat;
    const std::uint64_t tail = n % per_repeat;
    const std::uint64_t partials = full + (tail != 0 ? 1 : 0);
    for (std::uint64_t r = 0; r < rows; ++r) {
        issue_group_reduce(op, tmp, src, ReduceBatch{r * stride, 0, full * per_repeat, per_repeat},
                           loc);
        if (tail != 0) {
            issue_group_reduce(op, tmp, src,
                               ReduceBatch{r * stride + full * per_repeat, full, tail, tail}, loc);
        }
        issue_group_reduce(op, dst, tmp, ReduceBatch{0, r, partials, partials}, loc);
    }
}

/// dst[a] = the reduction of src[r x stride + a] over r < rows for a < n (the RA pattern): a
/// copy of the first row, then one Add / Max / Min per further row (PIPE_V).
template <Element T>
void adv_reduce_columns(Op op, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src, std::uint64_t rows, std::uint64_t n,
                        std::uint64_t stride, const Loc& loc) {
    if (rows == 0 || n == 0) return;
    const auto count = static_cast<std::int32_t>(n);
    AscendC::Adds(dst, src, T{}, count, loc);
    for (std::uint64_t r = 1; r < rows; ++r) {
        if (op == Op::GroupReduceSum) {
            AscendC::Add(dst, dst, src[r * stride], count, loc);
        } else if (op == Op::GroupReduceMax) {
            AscendC::Max(dst, dst, src[r * stride], count, loc);
        } else {
            AscendC::Min(dst, dst, src[r * stride], count, loc);
        }
    }
}

template <class T>
constexpr void adv_check_half_float(const char*) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: this advanced API takes half or float (Atlas A2/A3)");
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Sum's shape: `outter` rows of `inner` elements (inner x sizeof(T) a multiple of 32 bytes),
/// of which the first `n` are summed.
struct SumParams {
    std::uint32_t outter = 1;
    std::uint32_t inner = 0;
    std::uint32_t n = 0;
};

/// Sum(dst, src, sharedTmpBuffer, SumParams): dst[i] = the sum of src[i x inner + 0..n) for
/// i < outter (half or float). The temp buffer: GetSumMaxMinTmpSize.
template <class T, std::int32_t reduceDim = -1, bool isReuseSource = false,
          bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
         const LocalTensor<std::uint8_t>& sharedTmpBuffer, const SumParams& p,
         Loc loc = Loc::current()) {
    npusim::ascendc::adv_check_half_float<T>("Sum");
    if (p.inner * sizeof(T) % 32 != 0 || p.n > p.inner || p.n == 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "Sum: SumParams needs 0 < n <= inner and inner x sizeof(T) a "
                                  "multiple of 32 bytes (inner " +
                                  std::to_string(p.inner) + ", n " + std::to_string(p.n) + ")");
    }
    npusim::ascendc::adv_check_size(src, std::uint64_t{p.outter} * p.inner, "src", "Sum", loc);
    npusim::ascendc::adv_check_size(dst, p.outter, "dst", "Sum", loc);
    npusim::ascendc::adv_check_tmp(
        sharedTmpBuffer, npusim::ascendc::adv_row_partials_bytes(p.n, sizeof(T)), "Sum", loc);
    npusim::ascendc::adv_reduce_rows(npusim::Op::GroupReduceSum, dst, src,
                                     sharedTmpBuffer.template ReinterpretCast<T>(), p.outter, p.n,
                                     p.inner, loc);
}

/// The reduction patterns of the advanced ReduceSum / ReduceMax / ReduceMin: AR reduces the
/// inner (second) axis, RA the outer (first) one; the others are not supported yet.
namespace Pattern::Reduce {
struct AR {};
struct RA {};
}  // namespace Pattern::Reduce

}  // namespace AscendC

namespace npusim::ascendc {

/// The advanced reduction over srcShape {rows, columns} by `pattern` (AR: one result per row,
/// RA: one per column); with srcInnerPad the rows lie 32-byte aligned in memory.
template <class T, class pattern>
void adv_reduce_pattern(Op op, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src,
                        const AscendC::LocalTensor<std::uint8_t>* tmp, const std::uint32_t shape[],
                        bool srcInnerPad, const char* api, const Loc& loc) {
    adv_check_half_float<T>(api);
    static_assert(std::is_same_v<pattern, AscendC::Pattern::Reduce::AR> ||
                      std::is_same_v<pattern, AscendC::Pattern::Reduce::RA>,
                  "npusim Ascend C: the advanced reductions support Pattern::Reduce::AR and RA");
    constexpr std::uint64_t per_block = 32 / sizeof(T);
    const std::uint64_t rows = shape[0];
    const std::uint64_t columns = shape[1];
    const std::uint64_t stride =
        srcInnerPad ? (columns + per_block - 1) / per_block * per_block : columns;
    adv_check_size(src, rows * stride - (stride - columns), "src", api, loc);
    if constexpr (std::is_same_v<pattern, AscendC::Pattern::Reduce::AR>) {
        adv_check_size(dst, rows, "dst", api, loc);
        const std::uint64_t need =
            adv_row_partials_bytes(static_cast<std::uint32_t>(columns), sizeof(T));
        if (columns > 256 / sizeof(T)) {
            if (tmp == nullptr) {
                throw KernelError(EventIds::where(loc) + api +
                                  ": rows longer than one 256-byte repeat need the "
                                  "sharedTmpBuffer form in npusim (the framework-allocated "
                                  "temp space is not supported yet)");
            }
        }
        if (tmp != nullptr) adv_check_tmp(*tmp, need, api, loc);
        const AscendC::LocalTensor<T> work =
            tmp != nullptr ? tmp->template ReinterpretCast<T>() : AscendC::LocalTensor<T>{};
        adv_reduce_rows(op, dst, src, work, rows, columns, stride, loc);
    } else {
        adv_check_size(dst, columns, "dst", api, loc);
        if (tmp != nullptr) adv_check_tmp(*tmp, 32, api, loc);
        adv_reduce_columns(op, dst, src, rows, columns, stride, loc);
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// ReduceSum / ReduceMax / ReduceMin<T, pattern, isReuseSource>(dst, src[, sharedTmpBuffer],
/// srcShape, srcInnerPad): srcShape = {rows, columns}; AR: dst[i] = the reduction of row i,
/// RA: dst[j] = the reduction of column j (half or float). isReuseSource is accepted (npusim
/// never writes src).
#define NPUSIM_ASCENDC_ADV_REDUCE(Name, op)                                                       \
    template <class T, class pattern, bool isReuseSource = false>                                 \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                               \
              const LocalTensor<std::uint8_t>& sharedTmpBuffer, const std::uint32_t srcShape[],   \
              bool srcInnerPad, Loc loc = Loc::current()) {                                       \
        npusim::ascendc::adv_reduce_pattern<T, pattern>(op, dst, src, &sharedTmpBuffer, srcShape, \
                                                        srcInnerPad, #Name, loc);                 \
    }                                                                                             \
    template <class T, class pattern, bool isReuseSource = false>                                 \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                               \
              const std::uint32_t srcShape[], bool srcInnerPad, Loc loc = Loc::current()) {       \
        npusim::ascendc::adv_reduce_pattern<T, pattern>(op, dst, src, nullptr, srcShape,          \
                                                        srcInnerPad, #Name, loc);                 \
    }

NPUSIM_ASCENDC_ADV_REDUCE(ReduceSum, npusim::Op::GroupReduceSum)
NPUSIM_ASCENDC_ADV_REDUCE(ReduceMax, npusim::Op::GroupReduceMax)
NPUSIM_ASCENDC_ADV_REDUCE(ReduceMin, npusim::Op::GroupReduceMin)
#undef NPUSIM_ASCENDC_ADV_REDUCE

}  // namespace AscendC
