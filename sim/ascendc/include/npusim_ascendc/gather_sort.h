// Gather, GatherMask (GatherMaskParams, the built-in patterns 1-7), Sort32 and MrgSort
// (MrgSortSrcList, MrgSort4Info) on PIPE_V, with the semantics of the vendor's API reference
// (docs/ascendc.md, "API status").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/transaction.h"
#include "npusim_ascendc/level0.h"
#include "npusim_ascendc/vector.h"

namespace AscendC {

/// GatherMask's reserved template parameter (only the default exists).
enum class GatherMaskMode : std::uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
inline constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

/// Strides of GatherMask: in 32-byte blocks.
struct GatherMaskParams {
    std::uint8_t src0BlockStride = 1;
    std::uint16_t repeatTimes = 0;
    std::uint16_t src0RepeatStride = 0;
    std::uint8_t src1RepeatStride = 0;
};

/// MrgSort's up to four sorted queues of (score, index) pairs.
template <class T>
struct MrgSortSrcList {
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& a, const LocalTensor<T>& b, const LocalTensor<T>& c,
                   const LocalTensor<T>& d)
        : src1(a), src2(b), src3(c), src4(d) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

/// MrgSort's parameters: queue lengths in 8-byte structures, validBit 3 / 7 / 15 (the first
/// 2 / 3 / 4 queues), repeats of four equal contiguous queues.
struct MrgSort4Info {
    MrgSort4Info() = default;
    MrgSort4Info(const std::uint16_t lengths[4], bool suspension, std::uint16_t valid,
                 std::uint16_t repeats)
        : elementLengths{lengths[0], lengths[1], lengths[2], lengths[3]},
          ifExhaustedSuspension(suspension),
          validBit(valid),
          repeatTimes(repeats) {}
    std::uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    std::uint16_t validBit = 15;
    std::uint16_t repeatTimes = 1;
};

}  // namespace AscendC

namespace npusim::ascendc {

[[noreturn]] inline void not_supported_yet(const Loc& loc, const std::string& what) {
    throw KernelError(EventIds::where(loc) + what + " is not supported yet (docs/ascendc.md)");
}

/// The elements of `t` from `offset` on (0 past its end).
template <class T>
std::uint64_t left_of(const npusim::LocalTensor<T>& t, std::uint64_t offset) {
    return t.count > offset ? t.count - offset : 0;
}

/// One GatherMask instruction over n contiguous elements; kept = the elements it keeps.
template <class T, class U>
void gather_mask_run(const npusim::LocalTensor<T>& dst, const npusim::LocalTensor<T>& src,
                     const npusim::LocalTensor<U>& bits, std::uint32_t pattern, std::uint64_t n,
                     std::uint64_t kept, const Loc& loc) {
    if (kept == 0) return;  // nothing written: no instruction
    std::vector<Touch> reads{read_of(src, n)};
    if (pattern == 0) reads.push_back(Touch{bits.space, bits.address, (n + 7) / 8, false});
    vector_instruction(dst, kept, std::move(reads), loc, [&](npusim::Block& b) {
        b.gather_mask(dst, src, bits, pattern, n, static_cast<std::uint32_t>(kept), loc);
    });
}

/// The elements a GatherMask run of n keeps: built-in patterns by arithmetic, a pattern tensor
/// by reading its words on the scalar unit (the count register waits for the vector unit on
/// hardware; here the scalar unit reads the pattern, with the automatic synchronization).
template <class U>
std::uint64_t gather_mask_kept(const npusim::LocalTensor<U>& bits, std::uint32_t pattern,
                               std::uint64_t n, const Loc& loc) {
    std::uint64_t kept = 0;
    if (pattern != 0) {
        for (std::uint64_t i = 0; i < n; ++i) kept += gather_mask_pattern_bit(pattern, i) ? 1 : 0;
        return kept;
    }
    constexpr std::uint64_t per_word = 8 * sizeof(U);
    for (std::uint64_t w = 0; w * per_word < n; ++w) {
        const std::uint64_t word = scalar_get<U>(bits, w, loc);
        const std::uint64_t used = std::min<std::uint64_t>(per_word, n - w * per_word);
        const std::uint64_t mask = used == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << used) - 1;
        kept += static_cast<std::uint64_t>(__builtin_popcountll(word & mask));
    }
    return kept;
}

template <class T, class U>
void gather_mask(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                 const npusim::LocalTensor<U>& pattern_tensor, std::uint32_t pattern,
                 bool reduceMode, std::uint32_t mask, const AscendC::GatherMaskParams& p,
                 std::uint64_t& rsvdCnt, const Loc& loc) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: GatherMask takes 2- or 4-byte elements");
    if (p.src0BlockStride != 1) not_supported_yet(loc, "GatherMask with src0BlockStride != 1");
    if (dst.native().address % 32 != 0) {
        throw KernelError(EventIds::where(loc) + "GatherMask: the destination UB address " +
                          std::to_string(dst.native().address) + " is not 32-byte aligned");
    }
    if (pattern > 7) {
        throw KernelError(EventIds::where(loc) + "GatherMask: built-in pattern " +
                          std::to_string(pattern) + " is not one of 1-7");
    }
    // Normal mode: 256 bytes per repeat; counter mode (A2): `mask` elements per repeat.
    const std::uint64_t n = reduceMode ? mask : 256 / sizeof(T);
    const std::uint64_t repeats = p.repeatTimes;
    if (n == 0) {
        throw KernelError(EventIds::where(loc) + "GatherMask in counter mode with mask 0");
    }
    const std::uint64_t src_step = std::uint64_t{p.src0RepeatStride} * 32 / sizeof(T);
    const std::uint64_t bits_step = std::uint64_t{p.src1RepeatStride} * 32 / sizeof(U);
    // Contiguous repeats with a continuing pattern (or a built-in one, whose phase every
    // repeat keeps: n is a multiple of 4) are one instruction.
    const bool one_run = repeats > 1 && src_step == n &&
                         (pattern != 0 ? n % 4 == 0 : bits_step * 8 * sizeof(U) == n);
    const std::uint64_t runs = one_run ? 1 : repeats;
    const std::uint64_t run_n = one_run ? n * repeats : n;
    std::uint64_t total = 0;
    const npusim::LocalTensor<T> d = dst.native();
    const npusim::LocalTensor<T> s = src0.native();
    for (std::uint64_t r = 0; r < runs; ++r) {
        // Views up to the end of their tensors: the decoder checks that a run fits.
        const npusim::LocalTensor<T> src_run = s.sub(r * src_step, left_of(s, r * src_step));
        const npusim::LocalTensor<U> bits_run =
            pattern != 0
                ? pattern_tensor
                : pattern_tensor.sub(r * bits_step, left_of(pattern_tensor, r * bits_step));
        const std::uint64_t kept = gather_mask_kept(bits_run, pattern, run_n, loc);
        gather_mask_run(d.sub(total, left_of(d, total)), src_run, bits_run, pattern, run_n, kept,
                        loc);
        total += kept;
    }
    // The instruction leaves the vector unit in normal mask mode.
    context(loc).vector_mask().counter = false;
    rsvdCnt = total;
}

/// MrgSort with ifExhaustedSuspension (one repeat): the scalar unit first reads the scores it
/// needs to find where the merge stops (the first queue used up; a timed approximation, as
/// the hardware merges without them), then one MrgSort instruction merges what each queue
/// gives up to there, which is the suspended merge's output.
template <class T>
void mrg_sort_suspending(const AscendC::LocalTensor<T>& dst, const AscendC::MrgSortSrcList<T>& src,
                         const AscendC::MrgSort4Info& params, const Loc& loc) {
    const std::uint32_t queues = params.validBit == 3    ? 2
                                 : params.validBit == 7  ? 3
                                 : params.validBit == 15 ? 4
                                                         : 0;
    if (queues == 0 || params.repeatTimes != 1) {
        throw KernelError(EventIds::where(loc) + "MrgSort with ifExhaustedSuspension: validBit " +
                          std::to_string(params.validBit) + " (3, 7 or 15) and repeatTimes " +
                          std::to_string(params.repeatTimes) + " (1)");
    }
    constexpr std::uint64_t per_pair = 8 / sizeof(T);
    const AscendC::LocalTensor<T>* lists[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    std::array<std::uint16_t, 4> taken{};
    for (std::uint32_t q = 0; q < queues; ++q) {
        if (params.elementLengths[q] == 0) {  // used up before the start: nothing merged
            context(loc).mrg_sort_result() = taken;
            return;
        }
    }
    for (bool going = true; going;) {
        std::uint32_t best = queues;
        float best_score = 0.0F;
        for (std::uint32_t q = 0; q < queues; ++q) {
            const float score =
                static_cast<float>(scalar_get<T>(lists[q]->native(), taken[q] * per_pair, loc));
            if (best == queues || score > best_score) {  // equal scores: the lower queue
                best = q;
                best_score = score;
            }
        }
        ++taken[best];
        going = taken[best] != params.elementLengths[best];
    }
    context(loc).mrg_sort_result() = taken;
    std::vector<npusim::LocalTensor<T>> views;
    std::vector<Touch> reads;
    std::uint64_t total = 0;
    for (std::uint32_t q = 0; q < queues; ++q) {
        const npusim::LocalTensor<T> view = lists[q]->native().sub(0, taken[q] * per_pair);
        views.push_back(view);
        reads.push_back(read_of(view, view.count));
        total += view.count;
    }
    const npusim::LocalTensor<T> out = dst.native().sub(0, total);
    vector_instruction(out, total, std::move(reads), loc, [&](npusim::Block& b) {
        b.mrg_sort(out, std::span<const npusim::LocalTensor<T>>(views), loc);
    });
}

}  // namespace npusim::ascendc

namespace AscendC {

/// GatherMask with a pattern tensor (uint16_t for 2-byte T, uint32_t for 4-byte T): bit i
/// (LSB first, consumed continuously within a repeat) keeps element i; kept elements are
/// packed from dst[0]; rsvdCnt = how many. reduceMode false: repeatTimes x 256 bytes (mask
/// ignored); true (counter mode, A2): repeatTimes x mask elements.
template <class T, class U, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                const LocalTensor<U>& src1Pattern, bool reduceMode, std::uint32_t mask,
                const GatherMaskParams& gatherMaskParams, std::uint64_t& rsvdCnt,
                Loc loc = Loc::current()) {
    static_assert(
        std::is_same_v<U, std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>> ||
            std::is_same_v<U, T>,
        "npusim Ascend C: GatherMask's pattern is uint16_t for 2-byte elements, "
        "uint32_t for 4-byte ones");
    using Word = std::conditional_t<sizeof(U) == 2, std::uint16_t, std::uint32_t>;
    const npusim::LocalTensor<U> native = src1Pattern.native();
    const npusim::LocalTensor<Word> words{native.space, native.address, native.count};
    npusim::ascendc::gather_mask(dst, src0, words, 0, reduceMode, mask, gatherMaskParams, rsvdCnt,
                                 loc);
}

/// GatherMask with built-in pattern 1-7: 1 even, 2 odd elements, 3-6 the first to fourth of
/// every four, 7 all.
template <class T, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, std::uint8_t src1Pattern,
                bool reduceMode, std::uint32_t mask, const GatherMaskParams& gatherMaskParams,
                std::uint64_t& rsvdCnt, Loc loc = Loc::current()) {
    if (src1Pattern == 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "GatherMask: built-in pattern 0 is not one of 1-7");
    }
    const npusim::LocalTensor<std::uint32_t> none{};
    npusim::ascendc::gather_mask(dst, src0, none, src1Pattern, reduceMode, mask, gatherMaskParams,
                                 rsvdCnt, loc);
}

/// Gather(dst, src, srcOffset, srcBaseAddr, count): dst[i] = the element at byte offset
/// srcBaseAddr + srcOffset[i] of src. The scalar unit reads the offsets first (a timed
/// approximation: hardware does not) to check that each addresses a whole element inside src
/// and to tell the checker which part of src the instruction reads (from the lowest to the
/// highest element addressed).
template <class T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<std::uint32_t>& srcOffset, std::uint32_t srcBaseAddr,
            std::uint32_t count, Loc loc = Loc::current()) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: Gather takes 2- or 4-byte elements");
    if (count == 0) return;
    const npusim::LocalTensor<std::uint32_t> offsets = srcOffset.native();
    const std::uint64_t src_bytes = src.GetSize() * sizeof(T);
    std::uint64_t lo = src_bytes, hi = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint64_t at = std::uint64_t{srcBaseAddr} +
                                 npusim::ascendc::scalar_get<std::uint32_t>(offsets, i, loc);
        if (at % sizeof(T) != 0 || at + sizeof(T) > src_bytes) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + "Gather: offset " +
                                      std::to_string(at) + " of element " + std::to_string(i) +
                                      " is not a whole element inside the source tensor (" +
                                      std::to_string(src_bytes) + " bytes)");
        }
        lo = std::min(lo, at);
        hi = std::max(hi, at + sizeof(T));
    }
    const std::uint64_t n = count;
    const npusim::LocalTensor<T> part = src.native().sub(lo / sizeof(T), (hi - lo) / sizeof(T));
    const std::int64_t base =
        static_cast<std::int64_t>(srcBaseAddr) - static_cast<std::int64_t>(lo);
    npusim::ascendc::vector_instruction(
        dst.native(), n,
        {npusim::ascendc::read_of(part, part.count), npusim::ascendc::read_of(offsets, n)}, loc,
        [&](npusim::Block& b) { b.gather(dst.native(), part, offsets, base, n, loc); });
}

/// Sort32(dst, src0, src1, repeatTime): each repeat sorts 32 scores of src0 with their uint32
/// indices (src1) into 32 (score, index) pairs of 8 bytes, descending; equal scores keep
/// their order. repeatTime 0 does nothing.
template <class T>
void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
            const LocalTensor<std::uint32_t>& src1, std::int32_t repeatTime,
            Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: Sort32 sorts half or float scores");
    if (repeatTime <= 0) return;
    const std::uint64_t n = 32 * static_cast<std::uint64_t>(repeatTime);
    npusim::ascendc::vector_instruction(
        dst.native(), n * 8 / sizeof(T),
        {npusim::ascendc::read_of(src0.native(), n), npusim::ascendc::read_of(src1.native(), n)},
        loc,
        [&](npusim::Block& b) { b.sort32(dst.native(), src0.native(), src1.native(), n, loc); });
}

/// MrgSort(dst, src, params): merges the first 2 / 3 / 4 sorted queues (validBit 3 / 7 / 15)
/// by score, descending (equal scores: the lower queue first); repeatTimes > 1 merges
/// consecutive groups of four equal contiguous queues, one instruction per group (a timed
/// approximation). ifExhaustedSuspension (one repeat): the merge stops once a queue is used
/// up; GetMrgSortResult then gives each queue's count taken.
template <class T>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
             Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: MrgSort merges half or float (score, index) queues");
    if (params.ifExhaustedSuspension) {
        npusim::ascendc::mrg_sort_suspending(dst, src, params, loc);
        return;
    }
    const std::uint32_t queues = params.validBit == 3    ? 2
                                 : params.validBit == 7  ? 3
                                 : params.validBit == 15 ? 4
                                                         : 0;
    if (queues == 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + "MrgSort: validBit " +
                                  std::to_string(params.validBit) + " is not 3, 7 or 15");
    }
    constexpr std::uint64_t per_pair = 8 / sizeof(T);
    const LocalTensor<T>* lists[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    const std::uint64_t repeats = params.repeatTimes;
    std::uint64_t group = 0;  // elements of one repeat's four queues
    if (repeats > 1) {
        for (std::uint32_t q = 0; q < 4; ++q) {
            const bool contiguous = lists[q]->native().address ==
                                    lists[0]->native().address + q * params.elementLengths[0] * 8;
            if (queues != 4 || params.elementLengths[q] != params.elementLengths[0] ||
                !contiguous) {
                throw npusim::KernelError(
                    npusim::ascendc::EventIds::where(loc) +
                    "MrgSort with repeatTimes > 1 needs four queues of one length stored one "
                    "after another (validBit 15)");
            }
        }
        group = 4 * std::uint64_t{params.elementLengths[0]} * per_pair;
    }
    for (std::uint64_t r = 0; r < repeats; ++r) {
        std::vector<npusim::LocalTensor<T>> views;
        std::vector<npusim::ascendc::Touch> reads;
        std::uint64_t total = 0;
        for (std::uint32_t q = 0; q < queues; ++q) {
            const std::uint64_t len = std::uint64_t{params.elementLengths[q]} * per_pair;
            const npusim::LocalTensor<T> base = lists[q]->native();
            if (r * group + len > base.count) {
                throw npusim::KernelError(
                    npusim::ascendc::EventIds::where(loc) + "MrgSort: queue " +
                    std::to_string(q + 1) + " needs " + std::to_string(r * group + len) +
                    " elements but its tensor holds " + std::to_string(base.count));
            }
            npusim::LocalTensor<T> view{base.space, base.address + r * group * sizeof(T), len};
            views.push_back(view);
            reads.push_back(npusim::ascendc::read_of(view, len));
            total += len;
        }
        const npusim::LocalTensor<T> out = dst.native().sub(r * group, total);
        npusim::ascendc::vector_instruction(
            out, total, std::move(reads), loc, [&](npusim::Block& b) {
                b.mrg_sort(out, std::span<const npusim::LocalTensor<T>>(views), loc);
            });
    }
}

// ---- not supported yet: declared so that a sample using them in another scenario compiles; a
// use is a compile error naming the API -------------------------------------------------------
/// Gatherb's destination strides in 32-byte blocks.
struct GatherRepeatParams {
    std::uint8_t dstBlkStride = 1;
    std::uint8_t dstRepStride = 8;
};
/// Gatherb(dst, src, offset, repeatTime, GatherRepeatParams): repeat r's block j of dst (at
/// r x dstRepStride + j x dstBlkStride blocks; dstBlkStride 0 counts as 1) = the 32-byte block
/// at byte offset offset[r x 8 + j] from src (uint16_t / uint32_t on A2/A3). The offsets must
/// be 32-byte multiples (a KernelError naming the line otherwise); the block may lie anywhere
/// in UB, which the core checks. A timed approximation: the scalar unit reads the offsets
/// first, and each run of blocks contiguous on both sides is one PIPE_V copy (hardware: one
/// instruction), so the checker sees each block's exact bytes.
template <class T>
void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<std::uint32_t>& offset, std::uint8_t repeatTime,
             const GatherRepeatParams& repeatParams, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t>,
                  "npusim Ascend C: Gatherb takes uint16_t or uint32_t elements (Atlas A2/A3)");
    constexpr std::uint64_t per_block = 32 / sizeof(T);
    const std::uint64_t blk_stride = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
    std::uint64_t run_src = 0, run_dst = 0, run_blocks = 0;  // in blocks / bytes
    auto issue = [&] {
        if (run_blocks == 0) return;
        const std::uint64_t n = run_blocks * per_block;
        const npusim::LocalTensor<T> in = src.native().sub(run_src / sizeof(T), n);
        const npusim::LocalTensor<T> out = dst.native().sub(run_dst * per_block, n);
        npusim::ascendc::vector_instruction(out, n, {npusim::ascendc::read_of(in, n)}, loc,
                                            [&](npusim::Block& b) { b.copy(out, in, n, loc); });
    };
    for (std::uint64_t r = 0; r < repeatTime; ++r) {
        for (std::uint64_t j = 0; j < 8; ++j) {
            const std::uint64_t at =
                npusim::ascendc::scalar_get<std::uint32_t>(offset.native(), r * 8 + j, loc);
            if (at % 32 != 0) {
                throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                          "Gatherb: offset " + std::to_string(at) + " of block " +
                                          std::to_string(r * 8 + j) +
                                          " is not a multiple of 32 bytes");
            }
            const std::uint64_t block = r * repeatParams.dstRepStride + j * blk_stride;
            if (run_blocks != 0 && block == run_dst + run_blocks &&
                at == run_src + run_blocks * 32) {
                ++run_blocks;
                continue;
            }
            issue();
            run_src = at;
            run_dst = block;
            run_blocks = 1;
        }
    }
    issue();
}
/// GetMrgSortResult: how many (score, index) pairs of each queue the last MrgSort with
/// ifExhaustedSuspension took (a KernelError naming the line before any).
inline void GetMrgSortResult(std::uint16_t& mrgSortList1, std::uint16_t& mrgSortList2,
                             std::uint16_t& mrgSortList3, std::uint16_t& mrgSortList4,
                             Loc loc = Loc::current()) {
    const auto& result = npusim::ascendc::context(loc).mrg_sort_result();
    if (!result) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "GetMrgSortResult before any MrgSort with "
                                  "ifExhaustedSuspension = true");
    }
    mrgSortList1 = (*result)[0];
    mrgSortList2 = (*result)[1];
    mrgSortList3 = (*result)[2];
    mrgSortList4 = (*result)[3];
}

}  // namespace AscendC
