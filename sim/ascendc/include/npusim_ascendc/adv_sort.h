// The sort advanced APIs as Atlas A2 has them (host side: adv_sort_filter_tiling.h):
// Concat, Sort<T, isFullSort>, Extract, GetSortLen / GetSortOffset, and TopK. Built on the
// basic sort instructions (gather_sort.h) at the caller's line: Sort32 sorts runs of 32
// scores into 8-byte (score, index) pairs, descending; full sorts merge the runs four at a
// time with MrgSort, alternating between the destination and the temp buffer; Extract and
// TopK pick scores and indices out of the pairs with GatherMask.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "npusim_ascendc/adv_sort_filter_tiling.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/data_copy.h"
#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/vector_bits.h"

namespace AscendC {

/// TopK's shape: outter rows of inner scores (a multiple of 32), the first n of them data.
struct TopKInfo {
    std::int32_t outter = 1;
    std::int32_t inner = 0;
    std::int32_t n = 0;
};

/// The elements of T that `elemCount` sorted (score, index) pairs take (8 bytes each).
template <class T>
constexpr std::uint32_t GetSortLen(const std::uint32_t elemCount) {
    return elemCount * 8 / sizeof(T);
}
/// The element offset of pair `elemOffset` in a sorted tensor.
template <class T>
constexpr std::uint32_t GetSortOffset(const std::uint32_t elemOffset) {
    return elemOffset * 8 / sizeof(T);
}

}  // namespace AscendC

namespace npusim::ascendc::adv {

template <class T>
LocalTensor<T> sort_view(std::uint64_t address, std::uint64_t count) {
    return {npusim::LocalTensor<T>{MemSpace::UB, address, count}, AscendC::TPosition::VECCALC};
}

template <class T>
void require_sort_elements(std::string_view api, const LocalTensor<T>& t, std::uint64_t need,
                           const char* operand, const Loc& loc) {
    if (t.GetSize() < need) {
        fail(loc, api,
             std::string(operand) + " holds " + std::to_string(t.GetSize()) +
                 " elements, at least " + std::to_string(need) + " are needed");
    }
}

/// Merges the sorted runs of `run` pairs in `a` (`pairs` in all; runs of a multiple of 32
/// pairs) into one run: each pass merges groups of up to four neighbouring runs with one
/// MrgSort (a group of one is copied) from one buffer into the other. Returns the buffer
/// holding the result (a or b).
template <class T>
LocalTensor<T> merge_runs(const LocalTensor<T>& a, const LocalTensor<T>& b, std::uint64_t pairs,
                          std::uint64_t run, const Loc& loc) {
    constexpr std::uint64_t per = 8 / sizeof(T);
    LocalTensor<T> from = a, to = b;
    for (; run < pairs; run *= 4) {
        for (std::uint64_t g = 0; g < pairs; g += 4 * run) {
            std::uint16_t lengths[4] = {0, 0, 0, 0};
            LocalTensor<T> queue[4];
            std::uint32_t queues = 0;
            for (; queues < 4 && g + queues * run < pairs; ++queues) {
                const std::uint64_t at = g + queues * run;
                lengths[queues] = static_cast<std::uint16_t>(std::min(run, pairs - at));
                queue[queues] = from[at * per];
            }
            if (queues == 1) {
                AscendC::DataCopy(to[g * per], from[g * per],
                                  static_cast<std::uint32_t>(lengths[0] * per), loc);
                continue;
            }
            for (std::uint32_t q = queues; q < 4; ++q) queue[q] = queue[0];
            const AscendC::MrgSort4Info info(lengths, false,
                                             static_cast<std::uint16_t>(queues == 2   ? 3
                                                                        : queues == 3 ? 7
                                                                                      : 15),
                                             1);
            AscendC::MrgSort(to[g * per],
                             AscendC::MrgSortSrcList<T>(queue[0], queue[1], queue[2], queue[3]),
                             info, loc);
        }
        std::swap(from, to);
    }
    return from;
}

/// The first `count` scores and indices of sorted pairs (GatherMask in counter mode: the
/// scores are every 2nd float / 4th half, the indices every 2nd 32-bit word from the 2nd).
template <class T>
void extract_pairs(const LocalTensor<T>& values, const LocalTensor<std::uint32_t>& indices,
                   const LocalTensor<T>& pairs, std::uint32_t count, const Loc& loc) {
    constexpr std::uint32_t per = 8 / sizeof(T);
    const AscendC::GatherMaskParams once{1, 1, 0, 0};
    std::uint64_t kept = 0;
    AscendC::GatherMask(values, pairs, static_cast<std::uint8_t>(sizeof(T) == 4 ? 1 : 3), true,
                        count * per, once, kept, loc);
    AscendC::GatherMask(indices, pairs.template ReinterpretCast<std::uint32_t>(), std::uint8_t{2},
                        true, count * 2, once, kept, loc);
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// Concat(concat, src, tmp, repeatTime): on A2 Sort32 reads the scores as they are, so concat
/// becomes a view of src (no instruction; tmp is not used).
template <class T>
void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& /*tmp*/,
            const std::int32_t repeatTime, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: Concat takes half or float scores");
    npusim::ascendc::adv::require_sort_elements("Concat", src, std::uint64_t{16} * repeatTime,
                                                "src", loc);
    concat = src;
}

/// Sort<T, isFullSort>(dst, concat, index, tmp, repeatTime): 32 x repeatTime scores with their
/// uint32 indices into (score, index) pairs, descending (equal scores keep their order).
/// isFullSort false sorts each run of 32; true merges the runs (tmp: as many elements as dst,
/// GetSortTmpSize bytes).
template <class T, bool isFullSort>
void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat,
          const LocalTensor<std::uint32_t>& index, const LocalTensor<T>& tmp,
          const std::int32_t repeatTime, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: Sort takes half or float scores");
    namespace adv = npusim::ascendc::adv;
    if (repeatTime <= 0) return;
    const std::uint64_t n = 32 * static_cast<std::uint64_t>(repeatTime);
    const std::uint64_t len = GetSortLen<T>(static_cast<std::uint32_t>(n));
    adv::require_sort_elements("Sort", dst, len, "dst", loc);
    adv::require_sort_elements("Sort", concat, n, "concat", loc);
    adv::require_sort_elements("Sort", index, n, "index", loc);
    Sort32(dst, concat, index, repeatTime, loc);
    if (!isFullSort || repeatTime == 1) return;
    if (tmp.GetSize() < len) {
        adv::fail(loc, "Sort",
                  "tmp holds " + std::to_string(tmp.GetSize()) + " elements, at least " +
                      std::to_string(len) + " are needed (GetSortTmpSize)");
    }
    const LocalTensor<T> sorted = adv::merge_runs(dst, tmp, n, 32, loc);
    if (sorted.native().address != dst.native().address) {
        DataCopy(dst, sorted, static_cast<std::uint32_t>(len), loc);
    }
}

/// Extract(dstValue, dstIndex, sorted, repeatTime): the scores and indices of 32 x repeatTime
/// sorted pairs.
template <class T>
void Extract(const LocalTensor<T>& dstValue, const LocalTensor<std::uint32_t>& dstIndex,
             const LocalTensor<T>& sorted, const std::int32_t repeatTime,
             Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: Extract takes half or float scores");
    if (repeatTime <= 0) return;
    const auto n = static_cast<std::uint32_t>(32 * repeatTime);
    npusim::ascendc::adv::require_sort_elements("Extract", sorted, GetSortLen<T>(n),
                                                "the sorted tensor", loc);
    npusim::ascendc::adv::extract_pairs(dstValue, dstIndex, sorted, n, loc);
}

}  // namespace AscendC

namespace npusim::ascendc::adv {

/// TopK of each row: the row's scores (negated for the smallest) into the temp buffer, the
/// tail past n set to -inf by the scalar unit, Sort32 and merge passes as Sort's, then the
/// first k scores (negated back) and indices; a finished row's indices become n.
template <class T, bool isInitIndex, bool isHasfinish, AscendC::TopKMode mode>
void topk(const LocalTensor<T>& dstValue, const LocalTensor<std::int32_t>& dstIndex,
          const LocalTensor<T>& src, const LocalTensor<std::int32_t>& srcIndex,
          const LocalTensor<bool>& finish, const Tmp* shared, std::int32_t k,
          const AscendC::TopKInfo& info, bool isLargest, const Loc& loc) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: TopK takes half or float scores");
    const auto outter = static_cast<std::uint32_t>(info.outter);
    const auto inner = static_cast<std::uint32_t>(info.inner);
    const auto n = static_cast<std::uint32_t>(info.n);
    if (info.outter < 1 || info.inner <= 0 || inner % 32 != 0 || info.n < 1 || n > inner ||
        (mode == AscendC::TopKMode::TOPK_NSMALL && inner != 32)) {
        fail(loc, "TopK",
             "TopKInfo {outter " + std::to_string(info.outter) + ", inner " +
                 std::to_string(info.inner) + ", n " + std::to_string(info.n) +
                 "}: inner must be a multiple of 32 (32 for TOPK_NSMALL), 1 <= n <= inner");
    }
    if (k < 1 || static_cast<std::uint32_t>(k) > n) {
        fail(loc, "TopK",
             "k " + std::to_string(k) + " is not in [1, n = " + std::to_string(n) + "]");
    }
    const auto kk = static_cast<std::uint32_t>(k);
    const std::uint32_t k_values = sf_align(kk, 32 / sizeof(T)), k_indices = sf_align(kk, 8);
    require_sort_elements("TopK", src, std::uint64_t{outter} * inner, "srcLocal", loc);
    require_sort_elements("TopK", dstValue, std::uint64_t{outter} * k_values, "dstValueLocal", loc);
    require_sort_elements("TopK", dstIndex, std::uint64_t{outter} * k_indices, "dstIndexLocal",
                          loc);
    const std::uint32_t need = topk_tmp_bytes(inner, sizeof(T));
    const Tmp tmp = shared != nullptr ? *shared : internal_tmp("TopK", need, need, loc);
    if (tmp.bytes < need) {
        fail(loc, "TopK",
             "tmpLocal holds " + std::to_string(tmp.bytes) + " bytes, at least " +
                 std::to_string(need) + " are needed (GetTopKMaxMinTmpSize)");
    }
    const std::uint64_t values_at = tmp.address;
    const std::uint64_t index_at = values_at + sf_align(inner * sizeof(T), 32);
    const std::uint64_t pairs_at = index_at + sf_align(inner * 4, 32);
    const LocalTensor<T> values = sort_view<T>(values_at, inner);
    const LocalTensor<T> pairs_a = sort_view<T>(pairs_at, inner * 8 / sizeof(T));
    const LocalTensor<T> pairs_b = sort_view<T>(pairs_at + inner * 8, inner * 8 / sizeof(T));
    LocalTensor<std::int32_t> own_index = sort_view<std::int32_t>(index_at, inner);
    if (!isInitIndex) AscendC::CreateVecIndex(own_index, std::int32_t{0}, inner, loc);
    const auto m = static_cast<std::int32_t>(inner);
    for (std::uint32_t r = 0; r < outter; ++r) {
        AscendC::Muls(values, src[std::uint64_t{r} * inner], T(isLargest ? 1.0F : -1.0F), m, loc);
        for (std::uint32_t i = n; i < inner; ++i) {
            values.SetValue(i, T(-std::numeric_limits<float>::infinity()), loc);
        }
        LocalTensor<std::int32_t> idx = own_index;
        if (isInitIndex) {
            idx = mode == AscendC::TopKMode::TOPK_NSMALL ? srcIndex[std::uint64_t{r} * inner]
                                                         : srcIndex;
        }
        AscendC::Sort32(pairs_a, values, idx.template ReinterpretCast<std::uint32_t>(), m / 32,
                        loc);
        const LocalTensor<T> sorted = merge_runs(pairs_a, pairs_b, inner, 32, loc);
        const LocalTensor<T> out = dstValue[std::uint64_t{r} * k_values];
        const LocalTensor<std::int32_t> out_index = dstIndex[std::uint64_t{r} * k_indices];
        extract_pairs(out, out_index.template ReinterpretCast<std::uint32_t>(), sorted, kk, loc);
        if (!isLargest) AscendC::Muls(out, out, T(-1.0F), k, loc);
        if (isHasfinish && finish.GetValue(r, loc)) {
            AscendC::Duplicate(out_index, static_cast<std::int32_t>(n), k, loc);
        }
    }
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// TopK(dstValue, dstIndex, src, srcIndex, finish, tmpLocal, k, tiling, TopKInfo, isLargest):
/// per row the k largest (isLargest) or smallest scores, in that order (equal scores: the
/// lower index first), into rows of k aligned to 32 bytes, and their int32 indices (generated
/// 0..inner-1 unless isInitIndex; then srcIndex, one row for TOPK_NORMAL, a row per row for
/// TOPK_NSMALL) into rows of k aligned to 8; with isHasfinish a row whose finish flag is true
/// gets index n. The tiling is not read (TopKInfo gives the shape).
template <class T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          TopKMode topkMode = TopKMode::TOPK_NORMAL>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<std::int32_t>& dstIndexLocal,
          const LocalTensor<T>& srcLocal, const LocalTensor<std::int32_t>& srcIndexLocal,
          const LocalTensor<bool>& finishLocal, const LocalTensor<std::uint8_t>& tmpLocal,
          const std::int32_t k, const TopkTiling& /*tiling*/, const TopKInfo& topKInfo,
          const bool isLargest = true, Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(tmpLocal);
    npusim::ascendc::adv::topk<T, isInitIndex, isHasfinish, topkMode>(
        dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal, &tmp, k, topKInfo,
        isLargest, loc);
}
/// TopK without tmpLocal: UB the API reserves (as the other advanced APIs').
template <class T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          TopKMode topkMode = TopKMode::TOPK_NORMAL>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<std::int32_t>& dstIndexLocal,
          const LocalTensor<T>& srcLocal, const LocalTensor<std::int32_t>& srcIndexLocal,
          const LocalTensor<bool>& finishLocal, const std::int32_t k, const TopkTiling& /*tiling*/,
          const TopKInfo& topKInfo, const bool isLargest = true, Loc loc = Loc::current()) {
    npusim::ascendc::adv::topk<T, isInitIndex, isHasfinish, topkMode>(
        dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal, nullptr, k, topKInfo,
        isLargest, loc);
}

}  // namespace AscendC
