// Compare / CompareScalar (one result bit per element into a uint8 tensor) and Select (a bit
// mask picks between two tensors or a tensor and a scalar), count and mask/repeat forms, and
// the compare register (CmpMask, 128 bits): Compare's register form writes it, GetCmpMask /
// SetCmpMask copy it to / from UB, Select with VSEL_CMPMASK_SPR reads it. PIPE_V throughout.
//
// npusim keeps the compare register in 32 bytes of UB that the block reserves at the
// register's first use (docs/ascendc.md, "Where behaviour differs"): its writes and reads are
// vector-pipe accesses the checker and the automatic synchronization see like any other.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "npusim_ascendc/vector.h"

namespace AscendC {

/// The vendor's CMPMODE, in npusim::CmpMode's order.
enum class CMPMODE : std::uint8_t { LT, GT, EQ, LE, GE, NE };
static_assert(static_cast<int>(CMPMODE::NE) == static_cast<int>(npusim::CmpMode::NE) &&
              static_cast<int>(CMPMODE::LE) == static_cast<int>(npusim::CmpMode::LE));
/// The vendor's SELMODE: VSEL_CMPMASK_SPR reads the compare register (not supported yet).
enum class SELMODE : std::uint8_t {
    VSEL_CMPMASK_SPR,
    VSEL_TENSOR_SCALAR_MODE,
    VSEL_TENSOR_TENSOR_MODE
};

/// Compare(dst, src0, src1, cmpMode, count): bit i of dst (uint8, LSB first) =
/// src0[i] <cmpMode> src1[i]; dst holds count / 8 bytes.
template <class U, class T>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, std::uint32_t count, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<U, std::uint8_t>,
                  "npusim Ascend C: Compare writes its bits to a LocalTensor<uint8_t>");
    const std::uint64_t n = count;
    npusim::ascendc::vector_instruction(
        dst.native(), (n + 7) / 8,
        {npusim::ascendc::read_of(src0.native(), n), npusim::ascendc::read_of(src1.native(), n)},
        loc, [&](npusim::Block& b) {
            b.compare(dst.native(), src0.native(), src1.native(),
                      static_cast<npusim::CmpMode>(cmpMode), n, loc);
        });
}

/// CompareScalar(dst, src0, scalar, cmpMode, count): bit i of dst = src0[i] <cmpMode> scalar.
template <class U, class T, class S>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, S scalar, CMPMODE cmpMode,
                   std::uint32_t count, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<U, std::uint8_t>,
                  "npusim Ascend C: CompareScalar writes its bits to a LocalTensor<uint8_t>");
    const std::uint64_t n = count;
    npusim::ascendc::vector_instruction(
        dst.native(), (n + 7) / 8, {npusim::ascendc::read_of(src0.native(), n)}, loc,
        [&](npusim::Block& b) {
            b.compare_scalar(dst.native(), src0.native(), static_cast<T>(scalar),
                             static_cast<npusim::CmpMode>(cmpMode), n, loc);
        });
}

}  // namespace AscendC

namespace npusim::ascendc {

/// The block's compare register: 16 bytes of UB, reserved (32) at the first use and cleared
/// then (the register reads 0 before its first write: one Duplicate and a vector barrier that
/// hardware does not issue, so GetCmpMask never reads undefined bytes).
inline npusim::LocalTensor<std::uint8_t> cmp_register(const Loc& loc) {
    KernelContext& ctx = context(loc);
    if (!ctx.cmp_register()) {
        Resume resume(ctx);
        const auto words = ctx.block().alloc<std::uint32_t>(MemSpace::UB, 8, loc);
        ctx.cmp_register() = words.address;
        vector_instruction(words, 8, {}, loc,
                           [&](Block& b) { b.fill(words, std::uint32_t{0}, 8, loc); });
        ctx.pipe_barrier(Pipe::V, loc);
    }
    return {MemSpace::UB, *ctx.cmp_register(), 16};
}

/// A 16-byte move on PIPE_V between UB and the compare register (GetCmpMask / SetCmpMask):
/// one vector instruction, issued as an Adds of 0 over 4 uint32 words (a UB -> UB DataCopy
/// moves 32-byte multiples only).
inline void cmp_register_copy(const npusim::LocalTensor<std::uint8_t>& dst,
                              const npusim::LocalTensor<std::uint8_t>& src, const Loc& loc) {
    const npusim::LocalTensor<std::uint32_t> to{dst.space, dst.address, 4};
    const npusim::LocalTensor<std::uint32_t> from{src.space, src.address, 4};
    vector_instruction(to, 4, {read_of(from, 4)}, loc,
                       [&](Block& b) { b.adds(to, from, std::uint32_t{0}, 4, loc); });
}

/// The bytes of `t` from byte `offset` on, as uint8.
template <Element T>
npusim::LocalTensor<std::uint8_t> bytes_of(const npusim::LocalTensor<T>& t, std::uint64_t offset,
                                           std::uint64_t count) {
    return {t.space, t.address + offset, count};
}

/// One run of a mask/repeat Select: `count` elements from the operands' element offsets,
/// selected by the bits from bit `bit` of the mask source.
struct SelectRun {
    std::array<std::uint64_t, 3> offset{};  // dst, src0, src1
    std::uint64_t bit = 0;
    std::uint64_t count = 0;
};

/// The runs of a mask/repeat Select: repeat r, element e uses mask bit e (`same_bits`: the
/// compare register's VSEL_CMPMASK_SPR, every repeat the same bits) or r x (256 / size) + e
/// (the other modes consume the mask tensor). A run must start at a 32-byte boundary of the
/// mask (the vector unit's alignment), so dense calls are one run.
template <Element T>
std::vector<SelectRun> select_runs(const Level0Mask& mask, std::uint64_t repeat_times,
                                   const AscendC::BinaryRepeatParams& p, bool same_bits,
                                   const Loc& loc) {
    constexpr std::uint64_t per_block = 32 / sizeof(T);
    constexpr std::uint64_t per_repeat = 256 / sizeof(T);
    const std::array<Strides, 3> strides{Strides{p.dstBlkStride, p.dstRepStride},
                                         Strides{p.src0BlkStride, p.src0RepStride},
                                         Strides{p.src1BlkStride, p.src1RepStride}};
    std::vector<SelectRun> runs;
    for (std::uint64_t r = 0; r < level0_repeats<T>(mask, repeat_times); ++r) {
        for (std::uint64_t e = 0; e < per_repeat; ++e) {
            if (!level0_enabled<T>(mask, r, e)) continue;
            std::array<std::uint64_t, 3> at{};
            for (std::size_t k = 0; k < 3; ++k) {
                at[k] = (r * strides[k].repeat + (e / per_block) * strides[k].block) * per_block +
                        e % per_block;
            }
            const std::uint64_t bit = same_bits ? e : r * per_repeat + e;
            bool extends = !runs.empty() && bit == runs.back().bit + runs.back().count;
            for (std::size_t k = 0; extends && k < 3; ++k) {
                extends = at[k] == runs.back().offset[k] + runs.back().count;
            }
            if (extends) {
                ++runs.back().count;
                continue;
            }
            if (bit % 256 != 0) {
                throw KernelError(EventIds::where(loc) +
                                  "Select: enabled elements whose select-mask bits do not start "
                                  "at a 32-byte boundary of the mask (a gapped mask, block "
                                  "strides, or repeats that are not contiguous) are not "
                                  "supported yet");
            }
            runs.push_back(SelectRun{at, bit, 1});
        }
    }
    return runs;
}

}  // namespace npusim::ascendc

namespace AscendC {

namespace detail {
inline void require_select_mode(SELMODE mode, bool scalar, const Loc& loc) {
    if (scalar ? mode == SELMODE::VSEL_TENSOR_SCALAR_MODE
               : mode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        return;
    throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                              "Select: this SELMODE does not match the operands (a tensor src1 "
                              "needs VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE, a scalar "
                              "VSEL_TENSOR_SCALAR_MODE)");
}
template <class U>
npusim::ascendc::Touch mask_read(const LocalTensor<U>& mask, std::uint64_t n) {
    return npusim::ascendc::Touch{mask.native().space, mask.native().address, (n + 7) / 8, false};
}
/// SetCmpMask(selMask) and the barrier the vendor's Select issues after it.
template <class U>
npusim::LocalTensor<std::uint8_t> load_cmp_register(const LocalTensor<U>& selMask, const Loc& loc) {
    const auto reg = npusim::ascendc::cmp_register(loc);
    npusim::ascendc::cmp_register_copy(reg, npusim::ascendc::bytes_of(selMask.native(), 0, 16),
                                       loc);
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.pipe_barrier(npusim::Pipe::V, loc);
    return reg;
}
/// The Select instructions of `runs`: the mask bits from `bits`, src1 a tensor or a scalar.
template <class T, class Src1>
void issue_select_runs(const LocalTensor<T>& dst, const npusim::LocalTensor<std::uint8_t>& bits,
                       const LocalTensor<T>& src0, const Src1& src1,
                       const std::vector<npusim::ascendc::SelectRun>& runs, const Loc& loc) {
    for (const auto& r : runs) {
        const auto out = dst[r.offset[0]].native();
        const auto a = src0[r.offset[1]].native();
        const auto m = npusim::ascendc::bytes_of(bits, r.bit / 8, (r.count + 7) / 8);
        std::vector<npusim::ascendc::Touch> reads{{m.space, m.address, m.count, false},
                                                  npusim::ascendc::read_of(a, r.count)};
        if constexpr (std::is_same_v<Src1, LocalTensor<T>>) {
            const auto b = src1[r.offset[2]].native();
            reads.push_back(npusim::ascendc::read_of(b, r.count));
            npusim::ascendc::vector_instruction(out, r.count, reads, loc, [&](npusim::Block& blk) {
                blk.select(out, m, a, b, r.count, loc);
            });
        } else {
            npusim::ascendc::vector_instruction(out, r.count, reads, loc, [&](npusim::Block& blk) {
                blk.select(out, m, a, static_cast<T>(src1), r.count, loc);
            });
        }
    }
}
/// The count form over the compare register (VSEL_CMPMASK_SPR): every repeat of 256 bytes
/// uses the register's first 256 / sizeof(T) bits.
template <class T>
std::vector<npusim::ascendc::SelectRun> register_select_runs(std::uint64_t n) {
    constexpr std::uint64_t per_repeat = 256 / sizeof(T);
    std::vector<npusim::ascendc::SelectRun> runs;
    for (std::uint64_t at = 0; at < n; at += per_repeat) {
        runs.push_back({{at, at, at}, 0, std::min(per_repeat, n - at)});
    }
    return runs;
}
}  // namespace detail

/// Select(dst, selMask, src0, src1, selMode, count): VSEL_TENSOR_TENSOR_MODE, dst[i] = bit i
/// of selMask ? src0[i] : src1[i]; VSEL_CMPMASK_SPR loads selMask's first 128 bits into the
/// compare register (SetCmpMask) and every 256 bytes use its first 256 / sizeof(T) bits.
template <class T, class U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, std::uint32_t count,
            Loc loc = Loc::current()) {
    detail::require_select_mode(selMode, false, loc);
    const std::uint64_t n = count;
    if (selMode == SELMODE::VSEL_CMPMASK_SPR) {
        const auto reg = detail::load_cmp_register(selMask, loc);
        detail::issue_select_runs(dst, reg, src0, src1, detail::register_select_runs<T>(n), loc);
        return;
    }
    npusim::ascendc::vector_instruction(
        dst.native(), n,
        {detail::mask_read(selMask, n), npusim::ascendc::read_of(src0.native(), n),
         npusim::ascendc::read_of(src1.native(), n)},
        loc, [&](npusim::Block& b) {
            b.select(dst.native(), selMask.native(), src0.native(), src1.native(), n, loc);
        });
}

/// Select(dst, selMask, src0, scalar, VSEL_TENSOR_SCALAR_MODE, count): dst[i] = bit i of
/// selMask ? src0[i] : scalar.
template <class T, class U, class S>
requires(!std::is_same_v<S, LocalTensor<T>>) void Select(const LocalTensor<T>& dst,
                                                         const LocalTensor<U>& selMask,
                                                         const LocalTensor<T>& src0, S scalar,
                                                         SELMODE selMode, std::uint32_t count,
                                                         Loc loc = Loc::current()) {
    detail::require_select_mode(selMode, true, loc);
    const std::uint64_t n = count;
    npusim::ascendc::vector_instruction(
        dst.native(), n,
        {detail::mask_read(selMask, n), npusim::ascendc::read_of(src0.native(), n)}, loc,
        [&](npusim::Block& b) {
            b.select(dst.native(), selMask.native(), src0.native(), static_cast<T>(scalar), n, loc);
        });
}

/// The mask/repeat forms: Select(dst, selMask, src0, src1 | scalar, selMode, mask,
/// repeatTime, BinaryRepeatParams). VSEL_CMPMASK_SPR loads selMask into the compare register
/// and every repeat uses its first 256 / sizeof(T) bits; the other modes consume selMask,
/// 256 / sizeof(T) bits per repeat. Elements the mask disables keep dst's value.
template <class T, class U, bool isSetMask = true, class Src1, class Mask>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const Src1& src1, SELMODE selMode, const Mask& mask, std::uint8_t repeatTime,
            const BinaryRepeatParams& p, Loc loc = Loc::current()) {
    constexpr bool scalar = !std::is_same_v<Src1, LocalTensor<T>>;
    detail::require_select_mode(selMode, scalar, loc);
    const auto m = npusim::ascendc::level0_mask<T>(mask, isSetMask, loc);
    const bool spr = selMode == SELMODE::VSEL_CMPMASK_SPR;
    const auto runs = npusim::ascendc::select_runs<T>(m, repeatTime, p, spr, loc);
    const auto bits =
        spr ? detail::load_cmp_register(selMask, loc)
            : npusim::ascendc::bytes_of(selMask.native(), 0, selMask.native().bytes());
    detail::issue_select_runs(dst, bits, src0, src1, runs, loc);
}

/// Select<T, VSEL_CMPMASK_SPR>(dst, src0, src1, repeatTime, BinaryRepeatParams): the compare
/// register (set by Compare's register form or SetCmpMask) selects, the mask register
/// (SetVectorMask) enables. The register holding a mask tensor's address (the other modes)
/// is not supported yet.
template <class T, SELMODE selMode>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            std::uint8_t repeatTime, const BinaryRepeatParams& p, Loc loc = Loc::current()) {
    static_assert(selMode == SELMODE::VSEL_CMPMASK_SPR,
                  "npusim Ascend C: Select without a mask tensor reads the compare register: "
                  "only SELMODE::VSEL_CMPMASK_SPR is supported (docs/ascendc.md, API status)");
    const auto m = npusim::ascendc::level0_mask<T>(MASK_PLACEHOLDER, false, loc);
    detail::issue_select_runs(dst, npusim::ascendc::cmp_register(loc), src0, src1,
                              npusim::ascendc::select_runs<T>(m, repeatTime, p, true, loc), loc);
}

/// Compare(src0, src1, cmpMode, mask, BinaryRepeatParams): one repeat compared into the
/// compare register (bit i = src0[i] <cmpMode> src1[i], LSB first; half or float). The
/// enabled elements must be the first n of the repeat (with block strides of 1, or n within
/// a block): other masks are not supported yet. The register's bits past n keep their value
/// (bits up to the next multiple of 8 become 0).
template <class T, bool isSetMask = true, class Mask>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const Mask& mask, const BinaryRepeatParams& p, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: Compare into the compare register takes half or float");
    const auto m = npusim::ascendc::level0_mask<T>(mask, isSetMask, loc);
    const auto runs = npusim::ascendc::level0_runs<T, 2>(
        m, 1,
        {npusim::ascendc::Strides{p.src0BlkStride, p.src0RepStride},
         npusim::ascendc::Strides{p.src1BlkStride, p.src1RepStride}});
    if (runs.empty()) return;
    if (runs.size() != 1 || runs[0].offset[0] != 0 || runs[0].offset[1] != 0 ||
        runs[0].count > 256 / sizeof(T)) {
        throw npusim::KernelError(
            npusim::ascendc::EventIds::where(loc) +
            "Compare into the compare register: a mask that does not enable the first elements "
            "of the repeat contiguously (or block strides across them) is not supported yet");
    }
    const std::uint64_t n = runs[0].count;
    const auto reg = npusim::ascendc::cmp_register(loc);
    npusim::ascendc::vector_instruction(
        reg, (n + 7) / 8,
        {npusim::ascendc::read_of(src0.native(), n), npusim::ascendc::read_of(src1.native(), n)},
        loc, [&](npusim::Block& b) {
            b.compare(reg, src0.native(), src1.native(), static_cast<npusim::CmpMode>(cmpMode), n,
                      loc);
        });
}

/// GetCmpMask(dst): the compare register's 128 bits into dst (16 bytes; b8, b16 or b32).
template <class T>
void GetCmpMask(const LocalTensor<T>& dst, Loc loc = Loc::current()) {
    npusim::ascendc::cmp_register_copy(npusim::ascendc::bytes_of(dst.native(), 0, 16),
                                       npusim::ascendc::cmp_register(loc), loc);
}
/// SetCmpMask(src): src's first 128 bits into the compare register.
template <class T>
void SetCmpMask(const LocalTensor<T>& src, Loc loc = Loc::current()) {
    npusim::ascendc::cmp_register_copy(npusim::ascendc::cmp_register(loc),
                                       npusim::ascendc::bytes_of(src.native(), 0, 16), loc);
}

/// Compares: the newer spelling of CompareScalar.
template <class U, class T, class S>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, S scalar, CMPMODE cmpMode,
              std::uint32_t count, Loc loc = Loc::current()) {
    CompareScalar(dst, src0, scalar, cmpMode, count, loc);
}
}  // namespace AscendC
