// Reductions (PIPE_V): ReduceSum / ReduceMax / ReduceMin over a count, and the per-repeat
// forms WholeReduceSum / Max / Min (one result per repeat), BlockReduceSum / Max / Min (one per
// 32-byte block) and PairReduceSum (one per two adjacent elements).
//
// dstRepStride counts reduced repeats (1 element for WholeReduce, 8 for BlockReduce, half a
// repeat for PairReduce); srcBlkStride / srcRepStride are in 32-byte blocks. Each group's
// enabled elements must be contiguous (a KernelError otherwise); npusim issues groups of one
// length with contiguous sources and results as one instruction (dense calls: one, as on
// hardware), others one instruction each (a timed approximation).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "npusim_ascendc/level0.h"
#include "npusim_ascendc/vector.h"

namespace AscendC {
enum class ReduceOrder : std::uint8_t {
    ORDER_VALUE_INDEX,
    ORDER_INDEX_VALUE,
    ORDER_ONLY_VALUE,
    ORDER_ONLY_INDEX
};
}  // namespace AscendC

namespace npusim::ascendc {

/// `count` source elements from `src`, reduced in groups of `group`, results from `dst`.
struct ReduceBatch {
    std::uint64_t src = 0;
    std::uint64_t dst = 0;
    std::uint64_t count = 0;
    std::uint64_t group = 0;
};

/// The batches of a per-repeat reduction whose groups hold `group` elements of a repeat.
template <Element T, class Mask>
std::vector<ReduceBatch> reduce_batches(const Mask& mask, bool is_set_mask,
                                        std::uint64_t repeat_times, std::uint64_t group,
                                        std::uint64_t dst_rep_stride, std::uint64_t src_blk_stride,
                                        std::uint64_t src_rep_stride, const char* api,
                                        const Loc& loc) {
    constexpr std::uint64_t per_block = 32 / sizeof(T);
    constexpr std::uint64_t per_repeat = 256 / sizeof(T);
    const Level0Mask m = level0_mask<T>(mask, is_set_mask, loc);
    const std::uint64_t groups = per_repeat / group;
    std::vector<ReduceBatch> batches;
    for (std::uint64_t r = 0; r < level0_repeats<T>(m, repeat_times); ++r) {
        for (std::uint64_t g = 0; g < groups; ++g) {
            std::uint64_t start = 0;
            std::uint64_t length = 0;
            for (std::uint64_t e = g * group; e < (g + 1) * group; ++e) {
                if (!level0_enabled<T>(m, r, e)) continue;
                const std::uint64_t at =
                    (r * src_rep_stride + (e / per_block) * src_blk_stride) * per_block +
                    e % per_block;
                if (length != 0 && at != start + length) {
                    throw KernelError(EventIds::where(loc) + api +
                                      ": a group whose enabled elements are not contiguous "
                                      "(block strides inside a group or a gapped bit mask) is "
                                      "not supported yet");
                }
                if (length == 0) start = at;
                ++length;
            }
            if (length == 0) continue;
            const std::uint64_t dst = r * dst_rep_stride * groups + g;
            if (!batches.empty()) {
                ReduceBatch& last = batches.back();
                if (last.group == length && start == last.src + last.count &&
                    dst == last.dst + last.count / last.group) {
                    last.count += length;
                    continue;
                }
            }
            batches.push_back(ReduceBatch{start, dst, length, length});
        }
    }
    return batches;
}

/// One GroupReduce instruction for `batch`; with an index order each result is a (value,
/// position) pair, so result slots are two elements apart.
template <Element T>
void issue_group_reduce(Op op, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src, const ReduceBatch& batch,
                        const Loc& loc, IndexOrder order = IndexOrder::None) {
    const std::uint64_t per_result = order == IndexOrder::None ? 1 : 2;
    context(loc).last_reduce() = KernelContext::ReduceResult{op, {}, dtype_of<T>, false};
    const auto out = dst[batch.dst * per_result];
    const auto in = src[batch.src];
    vector_instruction(out.native(), batch.count / batch.group * per_result,
                       {read_of(in.native(), batch.count)}, loc, [&](Block& b) {
                           b.group_reduce(op, out.native(), in.native(), batch.count,
                                          static_cast<std::uint32_t>(batch.group), order, loc);
                       });
}

}  // namespace npusim::ascendc

namespace AscendC {}  // namespace AscendC

namespace npusim::ascendc {

/// One ReduceSum / ReduceMax / ReduceMin instruction over `n` elements of `src`, remembered
/// for GetReduceRepeatSumSpr / GetReduceRepeatMaxMinSpr.
template <Element T>
void issue_reduce(Op op, const npusim::LocalTensor<T>& dst, const npusim::LocalTensor<T>& src,
                  std::uint64_t n, bool index, const Loc& loc) {
    const auto order = index ? IndexOrder::ValueThenIndex : IndexOrder::None;
    context(loc).last_reduce() = KernelContext::ReduceResult{
        op, {dst.space, dst.address, (index ? 2 : 1) * sizeof(T)}, dtype_of<T>, index};
    vector_instruction(dst, index ? 2 : 1, {read_of(src, n)}, loc, [&](Block& b) {
        if (op == Op::ReduceSum) {
            b.reduce_sum(dst, src, n, loc);
        } else if (op == Op::ReduceMax) {
            b.reduce_max(dst, src, n, order, loc);
        } else {
            b.reduce_min(dst, src, n, order, loc);
        }
    });
}

/// The mask/repeat form (dst, src, work, mask, repeatTime, srcRepStride[, calIndex]): the
/// enabled elements of every repeat (repeats srcRepStride blocks apart) reduced to dst[0]
/// (and the position, counted as r x 256 / sizeof(T) + e, in dst[1]). One contiguous run is
/// one instruction (dense calls, as on hardware); otherwise each run is reduced into work and
/// work once more (a timed approximation); an index over several runs is not supported yet.
template <Element T, class Mask>
void reduce_level0(Op op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                   const AscendC::LocalTensor<T>& work, const Mask& mask, std::int32_t repeat,
                   std::int32_t src_rep_stride, bool index, const char* api, const Loc& loc) {
    if (repeat <= 0) return;
    const auto runs =
        level0_runs<T, 1>(level0_mask<T>(mask, true, loc), static_cast<std::uint64_t>(repeat),
                          {Strides{1, static_cast<std::uint64_t>(src_rep_stride)}});
    if (runs.empty()) return;
    if (runs.size() == 1) {
        if (index && runs[0].offset[0] != 0) {
            throw KernelError(EventIds::where(loc) + api +
                              ": calIndex with a mask that does not start at the first element "
                              "is not supported yet");
        }
        issue_reduce(op, dst.native(), src[runs[0].offset[0]].native(), runs[0].count, index, loc);
        return;
    }
    if (index) {
        throw KernelError(EventIds::where(loc) + api +
                          ": calIndex over enabled elements that are not contiguous (a partial "
                          "mask over several repeats or srcRepStride other than 8) is not "
                          "supported yet");
    }
    if (work.GetSize() < runs.size()) {
        throw KernelError(EventIds::where(loc) + api + ": the work tensor holds " +
                          std::to_string(work.GetSize()) + " elements, " +
                          std::to_string(runs.size()) + " partial results are needed");
    }
    // Each run's partial result with a one-group GroupReduce (results may land at any element).
    const Op partial = op == Op::ReduceSum   ? Op::GroupReduceSum
                       : op == Op::ReduceMax ? Op::GroupReduceMax
                                             : Op::GroupReduceMin;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        issue_group_reduce(partial, work, src,
                           ReduceBatch{runs[k].offset[0], k, runs[k].count, runs[k].count}, loc);
    }
    {
        KernelContext& ctx = context(loc);
        Resume resume(ctx);
        ctx.pipe_barrier(Pipe::V, loc);
    }
    issue_reduce(op, dst.native(), work.native(), runs.size(), false, loc);
}

/// The last reduction's result for the GetReduceRepeat*Spr registers, read back by the
/// scalar unit; a KernelError naming `api` when the last reduction was not one of `ops`.
template <Element T>
KernelContext::ReduceResult last_reduce(std::initializer_list<Op> ops, const char* api,
                                        const Loc& loc) {
    const auto& last = context(loc).last_reduce();
    const bool found =
        last && std::find(ops.begin(), ops.end(), last->op) != ops.end() && last->at.count != 0;
    if (!found) {
        throw KernelError(EventIds::where(loc) + api +
                          (last ? ": the last reduction was not one npusim keeps this register "
                                  "for (ReduceSum for the sum, ReduceMax / ReduceMin for the "
                                  "extreme; WholeReduce / ReduceRepeat not supported yet)"
                                : ": no reduction ran before it in this block"));
    }
    if (last->dtype != dtype_of<T>) {
        throw KernelError(EventIds::where(loc) + api + ": the last reduction was of " +
                          std::string(to_string(last->dtype)) + ", not " +
                          std::string(to_string(dtype_of<T>)));
    }
    return *last;
}

}  // namespace npusim::ascendc

namespace AscendC {

/// ReduceSum / ReduceMax / ReduceMin(dst, src, work, count): dst[0] = the reduction of
/// src[0..count); ReduceMax / Min with calIndex also write the first position of the extreme
/// into dst[1] (an unsigned integer of T's width in T's bytes: reinterpret it to read it).
/// npusim does not use `work` in this form (its contents are not modelled). The mask/repeat
/// forms: see npusim::ascendc::reduce_level0.
#define NPUSIM_ASCENDC_REDUCE(Name, op)                                                         \
    template <class T>                                                                          \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, \
              std::int32_t count, bool calIndex = false, Loc loc = Loc::current()) {            \
        (void)work;                                                                             \
        npusim::ascendc::issue_reduce(op, dst.native(), src.native(),                           \
                                      static_cast<std::uint64_t>(count), calIndex, loc);        \
    }                                                                                           \
    template <class T, class Mask>                                                              \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, \
              const Mask& mask, std::int32_t repeatTime, std::int32_t srcRepStride,             \
              bool calIndex = false, Loc loc = Loc::current()) {                                \
        npusim::ascendc::reduce_level0(op, dst, src, work, mask, repeatTime, srcRepStride,      \
                                       calIndex, #Name, loc);                                   \
    }

NPUSIM_ASCENDC_REDUCE(ReduceMax, npusim::Op::ReduceMax)
NPUSIM_ASCENDC_REDUCE(ReduceMin, npusim::Op::ReduceMin)
#undef NPUSIM_ASCENDC_REDUCE

template <class T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               std::int32_t count, Loc loc = Loc::current()) {
    (void)work;
    npusim::ascendc::issue_reduce(npusim::Op::ReduceSum, dst.native(), src.native(),
                                  static_cast<std::uint64_t>(count), false, loc);
}
template <class T, class Mask>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               const Mask& mask, std::int32_t repeatTime, std::int32_t srcRepStride,
               Loc loc = Loc::current()) {
    npusim::ascendc::reduce_level0(npusim::Op::ReduceSum, dst, src, work, mask, repeatTime,
                                   srcRepStride, false, "ReduceSum", loc);
}

/// GetReduceRepeatSumSpr<T>(): the last ReduceSum's sum. npusim reads it back from where that
/// ReduceSum wrote it (the scalar unit waits for the vector unit as for GetValue): a kernel
/// that overwrites that element first reads the new value (hardware keeps the register).
template <class T>
T GetReduceRepeatSumSpr(Loc loc = Loc::current()) {
    const auto last =
        npusim::ascendc::last_reduce<T>({npusim::Op::ReduceSum}, "GetReduceRepeatSumSpr", loc);
    return npusim::ascendc::scalar_get<T>(npusim::LocalTensor<T>{last.at.space, last.at.address, 1},
                                          0, loc);
}
/// GetReduceRepeatMaxMinSpr<T>(value, index): the last ReduceMax / ReduceMin's extreme and,
/// with calIndex, its position (T's bytes; without calIndex 0: hardware documents it as not
/// accurate). After WholeReduce / ReduceRepeat: not supported yet (KernelError).
template <class T>
void GetReduceRepeatMaxMinSpr(T& maxMinValue, T& maxMinIndex, Loc loc = Loc::current()) {
    const auto last = npusim::ascendc::last_reduce<T>(
        {npusim::Op::ReduceMax, npusim::Op::ReduceMin}, "GetReduceRepeatMaxMinSpr", loc);
    const npusim::LocalTensor<T> at{last.at.space, last.at.address, 2};
    maxMinValue = npusim::ascendc::scalar_get<T>(at, 0, loc);
    maxMinIndex = last.index ? npusim::ascendc::scalar_get<T>(at, 1, loc) : T{};
}

/// WholeReduceSum(dst, src, mask, repeatTimes, dstRepStride, srcBlkStride, srcRepStride):
/// dst[r x dstRepStride] = the sum of repeat r's enabled elements.
template <class T, bool isSetMask = true, class Mask>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Mask& mask,
                    std::int32_t repeatTimes, std::int32_t dstRepStride, std::int32_t srcBlkStride,
                    std::int32_t srcRepStride, Loc loc = Loc::current()) {
    for (const auto& batch : npusim::ascendc::reduce_batches<T>(
             mask, isSetMask, static_cast<std::uint64_t>(repeatTimes), 256 / sizeof(T),
             static_cast<std::uint64_t>(dstRepStride), static_cast<std::uint64_t>(srcBlkStride),
             static_cast<std::uint64_t>(srcRepStride), "WholeReduceSum", loc)) {
        npusim::ascendc::issue_group_reduce(npusim::Op::GroupReduceSum, dst, src, batch, loc);
    }
}

/// WholeReduceMax / Min: per repeat the value and its position inside the repeat
/// (ORDER_VALUE_INDEX, the default; ORDER_INDEX_VALUE swaps them; dstRepStride then counts
/// pairs) or the value only (ORDER_ONLY_VALUE). ORDER_ONLY_INDEX is not supported yet.
#define NPUSIM_ASCENDC_WHOLE_EXTREME(Name, op)                                                 \
    template <class T, bool isSetMask = true, class Mask>                                      \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Mask& mask,          \
              std::int32_t repeatTimes, std::int32_t dstRepStride, std::int32_t srcBlkStride,  \
              std::int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,   \
              Loc loc = Loc::current()) {                                                      \
        if (order == ReduceOrder::ORDER_ONLY_INDEX) {                                          \
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + #Name            \
                                      ": ReduceOrder::ORDER_ONLY_INDEX is not supported yet"); \
        }                                                                                      \
        const npusim::IndexOrder index =                                                       \
            order == ReduceOrder::ORDER_ONLY_VALUE    ? npusim::IndexOrder::None               \
            : order == ReduceOrder::ORDER_INDEX_VALUE ? npusim::IndexOrder::IndexThenValue     \
                                                      : npusim::IndexOrder::ValueThenIndex;    \
        for (const auto& batch : npusim::ascendc::reduce_batches<T>(                           \
                 mask, isSetMask, static_cast<std::uint64_t>(repeatTimes), 256 / sizeof(T),    \
                 static_cast<std::uint64_t>(dstRepStride),                                     \
                 static_cast<std::uint64_t>(srcBlkStride),                                     \
                 static_cast<std::uint64_t>(srcRepStride), #Name, loc)) {                      \
            npusim::ascendc::issue_group_reduce(op, dst, src, batch, loc, index);              \
        }                                                                                      \
    }

NPUSIM_ASCENDC_WHOLE_EXTREME(WholeReduceMax, npusim::Op::GroupReduceMax)
NPUSIM_ASCENDC_WHOLE_EXTREME(WholeReduceMin, npusim::Op::GroupReduceMin)
#undef NPUSIM_ASCENDC_WHOLE_EXTREME

/// BlockReduceSum / Max / Min(dst, src, repeat, mask, dstRepStride, srcBlkStride,
/// srcRepStride): one result per 32-byte block, 8 per repeat. PairReduceSum: one per pair.
#define NPUSIM_ASCENDC_GROUPED(Name, op, group)                                          \
    template <class T, bool isSetMask = true, class Mask>                                \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::int32_t repeat, \
              const Mask& mask, std::int32_t dstRepStride, std::int32_t srcBlkStride,    \
              std::int32_t srcRepStride, Loc loc = Loc::current()) {                     \
        for (const auto& batch : npusim::ascendc::reduce_batches<T>(                     \
                 mask, isSetMask, static_cast<std::uint64_t>(repeat), group,             \
                 static_cast<std::uint64_t>(dstRepStride),                               \
                 static_cast<std::uint64_t>(srcBlkStride),                               \
                 static_cast<std::uint64_t>(srcRepStride), #Name, loc)) {                \
            npusim::ascendc::issue_group_reduce(op, dst, src, batch, loc);               \
        }                                                                                \
    }

NPUSIM_ASCENDC_GROUPED(BlockReduceSum, npusim::Op::GroupReduceSum, 32 / sizeof(T))
NPUSIM_ASCENDC_GROUPED(BlockReduceMax, npusim::Op::GroupReduceMax, 32 / sizeof(T))
NPUSIM_ASCENDC_GROUPED(BlockReduceMin, npusim::Op::GroupReduceMin, 32 / sizeof(T))
NPUSIM_ASCENDC_GROUPED(PairReduceSum, npusim::Op::GroupReduceSum, 2)
#undef NPUSIM_ASCENDC_GROUPED

/// ReduceRepeat<SUM / MAX / MIN, T, U>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
/// srcRepStride[, order]) and ReduceDataBlock<...>(dst, src, mask, repeatTime, dstRepStride,
/// srcBlkStride, srcRepStride): the newer spellings of WholeReduceSum / Max / Min (one result
/// per repeat; MAX / MIN with a ReduceOrder) and BlockReduceSum / Max / Min (one per 32-byte
/// block). On Atlas A2/A3 T and U are one type, half or float (vendor API reference).
enum class ReduceType : std::uint8_t { SUM = 0, MAX, MIN };

namespace detail {
template <class T, class U>
constexpr void check_reduce_types() {
    static_assert(std::is_same_v<T, U>,
                  "npusim Ascend C: ReduceRepeat / ReduceDataBlock take one element type for dst "
                  "and src on Atlas A2/A3");
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: ReduceRepeat / ReduceDataBlock take half or float on Atlas "
                  "A2/A3");
}
}  // namespace detail

template <ReduceType reduceType, class T, class U, bool isSetMask = true, class Mask>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const Mask& mask,
                  std::int32_t repeatTime, std::int32_t dstRepStride, std::int32_t srcBlkStride,
                  std::int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                  Loc loc = Loc::current()) {
    detail::check_reduce_types<T, U>();
    if constexpr (reduceType == ReduceType::SUM) {
        (void)order;
        WholeReduceSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                                     srcRepStride, loc);
    } else if constexpr (reduceType == ReduceType::MAX) {
        WholeReduceMax<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                                     srcRepStride, order, loc);
    } else {
        WholeReduceMin<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                                     srcRepStride, order, loc);
    }
}

template <ReduceType reduceType, class T, class U, bool isSetMask = true, class Mask>
void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const Mask& mask,
                     std::int32_t repeatTime, std::int32_t dstRepStride, std::int32_t srcBlkStride,
                     std::int32_t srcRepStride, Loc loc = Loc::current()) {
    detail::check_reduce_types<T, U>();
    if constexpr (reduceType == ReduceType::SUM) {
        BlockReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride,
                                     srcRepStride, loc);
    } else if constexpr (reduceType == ReduceType::MAX) {
        BlockReduceMax<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride,
                                     srcRepStride, loc);
    } else {
        BlockReduceMin<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride,
                                     srcRepStride, loc);
    }
}

/// ReducePairElem<SUM, T, U>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
/// srcRepStride): the newer spelling of PairReduceSum (each two adjacent elements summed,
/// dstRepStride in reduced repeats of 128 bytes); SUM is the only reduceType the vendor
/// offers; T = U = half or float on Atlas A2/A3.
template <ReduceType reduceType, class T, class U, bool isSetMask = true, class Mask>
void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const Mask& mask,
                    std::int32_t repeatTime, std::int32_t dstRepStride, std::int32_t srcBlkStride,
                    std::int32_t srcRepStride, Loc loc = Loc::current()) {
    detail::check_reduce_types<T, U>();
    static_assert(reduceType == ReduceType::SUM,
                  "npusim Ascend C: ReducePairElem supports ReduceType::SUM only (as the vendor)");
    PairReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride,
                                srcRepStride, loc);
}

}  // namespace AscendC
