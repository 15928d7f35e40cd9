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

#include <cstdint>
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
    const auto out = dst[batch.dst * per_result];
    const auto in = src[batch.src];
    vector_instruction(out.native(), batch.count / batch.group * per_result,
                       {read_of(in.native(), batch.count)}, loc, [&](Block& b) {
                           b.group_reduce(op, out.native(), in.native(), batch.count,
                                          static_cast<std::uint32_t>(batch.group), order, loc);
                       });
}

}  // namespace npusim::ascendc

namespace AscendC {

/// ReduceSum / ReduceMax / ReduceMin(dst, src, work, count): dst[0] = the reduction of
/// src[0..count); ReduceMax / Min with calIndex also write the first position of the extreme
/// into dst[1] (an unsigned integer of T's width in T's bytes: reinterpret it to read it).
/// npusim does not use `work` (its contents are not modelled).
#define NPUSIM_ASCENDC_REDUCE(Name, method)                                                     \
    template <class T>                                                                          \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, \
              std::int32_t count, bool calIndex = false, Loc loc = Loc::current()) {            \
        (void)work;                                                                             \
        const auto n = static_cast<std::uint64_t>(count);                                       \
        const auto order =                                                                      \
            calIndex ? npusim::IndexOrder::ValueThenIndex : npusim::IndexOrder::None;           \
        npusim::ascendc::vector_instruction(                                                    \
            dst.native(), calIndex ? 2 : 1, {npusim::ascendc::read_of(src.native(), n)}, loc,   \
            [&](npusim::Block& b) { b.method(dst.native(), src.native(), n, order, loc); });    \
    }

NPUSIM_ASCENDC_REDUCE(ReduceMax, reduce_max)
NPUSIM_ASCENDC_REDUCE(ReduceMin, reduce_min)
#undef NPUSIM_ASCENDC_REDUCE

template <class T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               std::int32_t count, Loc loc = Loc::current()) {
    (void)work;
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(
        dst.native(), 1, {npusim::ascendc::read_of(src.native(), n)}, loc,
        [&](npusim::Block& b) { b.reduce_sum(dst.native(), src.native(), n, loc); });
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

}  // namespace AscendC
