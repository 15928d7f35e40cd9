// Vector instructions (PIPE_V) in the count form and the mask/repeat form (level0.h): the
// element-wise ops, Duplicate, Copy, Cast with every RoundMode, and the bitwise ops.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "npusim_ascendc/level0.h"

namespace AscendC {

struct BinaryRepeatParams {
    std::uint8_t dstBlkStride = 1;
    std::uint8_t src0BlkStride = 1;
    std::uint8_t src1BlkStride = 1;
    std::uint8_t dstRepStride = 8;
    std::uint8_t src0RepStride = 8;
    std::uint8_t src1RepStride = 8;
};
struct UnaryRepeatParams {
    std::uint16_t dstBlkStride = 1;
    std::uint16_t srcBlkStride = 1;
    std::uint8_t dstRepStride = 8;
    std::uint8_t srcRepStride = 8;
};

enum class RoundMode : std::uint8_t {
    CAST_NONE,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
};
// Cast passes the mode on as npusim::RoundMode: the same order.
static_assert(static_cast<int>(RoundMode::CAST_ODD) == static_cast<int>(npusim::RoundMode::Odd) &&
              static_cast<int>(RoundMode::CAST_FLOOR) ==
                  static_cast<int>(npusim::RoundMode::Floor));

}  // namespace AscendC

namespace npusim::ascendc {

/// Issues one vector instruction after the automatic synchronization. `dst_count` is the
/// number of elements written (1 for reductions).
template <Element D, class Issue>
void vector_instruction(const npusim::LocalTensor<D>& dst, std::uint64_t dst_count,
                        std::vector<Touch> sources, const Loc& loc, Issue issue) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    sources.push_back(Touch{dst.space, dst.address, dst_count * sizeof(D), true});
    ctx.before_pipe_work(Pipe::V, sources, loc);
    issue(ctx.block());
}

template <Element T>
Touch read_of(const npusim::LocalTensor<T>& t, std::uint64_t count) {
    return Touch{t.space, t.address, count * sizeof(T), false};
}

/// The runs of a level-0 binary op (dst, src0, src1) and unary op (dst, src).
template <Element T, class Mask>
std::vector<Run<3>> binary_runs(const Mask& mask, bool is_set_mask, std::uint64_t repeat,
                                const AscendC::BinaryRepeatParams& p, const Loc& loc) {
    return level0_runs<T, 3>(
        level0_mask<T>(mask, is_set_mask, loc), repeat,
        {Strides{p.dstBlkStride, p.dstRepStride}, Strides{p.src0BlkStride, p.src0RepStride},
         Strides{p.src1BlkStride, p.src1RepStride}});
}
template <Element T, class Mask>
std::vector<Run<2>> unary_runs(const Mask& mask, bool is_set_mask, std::uint64_t repeat,
                               const AscendC::UnaryRepeatParams& p, const Loc& loc) {
    return level0_runs<T, 2>(
        level0_mask<T>(mask, is_set_mask, loc), repeat,
        {Strides{p.dstBlkStride, p.dstRepStride}, Strides{p.srcBlkStride, p.srcRepStride}});
}

template <class D, class S>
void cast_int4(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<S>& src,
               AscendC::RoundMode round, std::uint64_t n, const Loc& loc);  // int4.h

[[noreturn]] inline void not_supported_yet_v(const Loc& loc, const std::string& what) {
    throw KernelError(EventIds::where(loc) + what + " is not supported yet (docs/ascendc.md)");
}

}  // namespace npusim::ascendc

namespace AscendC {

#define NPUSIM_ASCENDC_BINARY(Name, method)                                                      \
    template <class T>                                                                           \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
              std::int32_t count, Loc loc = Loc::current()) {                                    \
        const auto n = static_cast<std::uint64_t>(count);                                        \
        npusim::ascendc::vector_instruction(dst.native(), n,                                     \
                                            {npusim::ascendc::read_of(src0.native(), n),         \
                                             npusim::ascendc::read_of(src1.native(), n)},        \
                                            loc, [&](npusim::Block& b) {                         \
                                                b.method(dst.native(), src0.native(),            \
                                                         src1.native(), n, loc);                 \
                                            });                                                  \
    }                                                                                            \
    template <class T, bool isSetMask = true, class Mask>                                        \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
              const Mask& mask, std::uint8_t repeatTimes, const BinaryRepeatParams& p,           \
              Loc loc = Loc::current()) {                                                        \
        for (const auto& r :                                                                     \
             npusim::ascendc::binary_runs<T>(mask, isSetMask, repeatTimes, p, loc)) {            \
            Name(dst[r.offset[0]], src0[r.offset[1]], src1[r.offset[2]],                         \
                 static_cast<std::int32_t>(r.count), loc);                                       \
        }                                                                                        \
    }

NPUSIM_ASCENDC_BINARY(Add, add)
NPUSIM_ASCENDC_BINARY(Sub, sub)
NPUSIM_ASCENDC_BINARY(Mul, mul)
NPUSIM_ASCENDC_BINARY(Div, div)
NPUSIM_ASCENDC_BINARY(Max, max)
NPUSIM_ASCENDC_BINARY(Min, min)
NPUSIM_ASCENDC_BINARY(And, bitwise_and)
NPUSIM_ASCENDC_BINARY(Or, bitwise_or)
NPUSIM_ASCENDC_BINARY(AddRelu, add_relu)
NPUSIM_ASCENDC_BINARY(SubRelu, sub_relu)
#undef NPUSIM_ASCENDC_BINARY

#define NPUSIM_ASCENDC_WITH_SCALAR(Name, method)                                                  \
    template <class T, class U>                                                                   \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, U scalar, std::int32_t count, \
              Loc loc = Loc::current()) {                                                         \
        const auto n = static_cast<std::uint64_t>(count);                                         \
        npusim::ascendc::vector_instruction(                                                      \
            dst.native(), n, {npusim::ascendc::read_of(src.native(), n)}, loc,                    \
            [&](npusim::Block& b) {                                                               \
                b.method(dst.native(), src.native(), static_cast<T>(scalar), n, loc);             \
            });                                                                                   \
    }                                                                                             \
    template <class T, class U, bool isSetMask = true, class Mask>                                \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, U scalar, const Mask& mask,   \
              std::uint8_t repeatTimes, const UnaryRepeatParams& p, Loc loc = Loc::current()) {   \
        for (const auto& r :                                                                      \
             npusim::ascendc::unary_runs<T>(mask, isSetMask, repeatTimes, p, loc)) {              \
            Name(dst[r.offset[0]], src[r.offset[1]], scalar, static_cast<std::int32_t>(r.count),  \
                 loc);                                                                            \
        }                                                                                         \
    }

NPUSIM_ASCENDC_WITH_SCALAR(Adds, adds)
NPUSIM_ASCENDC_WITH_SCALAR(Muls, muls)
NPUSIM_ASCENDC_WITH_SCALAR(Maxs, maxs)
NPUSIM_ASCENDC_WITH_SCALAR(Mins, mins)
NPUSIM_ASCENDC_WITH_SCALAR(LeakyRelu, leaky_relu)
#undef NPUSIM_ASCENDC_WITH_SCALAR

#define NPUSIM_ASCENDC_UNARY(Name, method)                                                      \
    template <class T>                                                                          \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::int32_t count,         \
              Loc loc = Loc::current()) {                                                       \
        const auto n = static_cast<std::uint64_t>(count);                                       \
        npusim::ascendc::vector_instruction(                                                    \
            dst.native(), n, {npusim::ascendc::read_of(src.native(), n)}, loc,                  \
            [&](npusim::Block& b) { b.method(dst.native(), src.native(), n, loc); });           \
    }                                                                                           \
    template <class T, bool isSetMask = true, class Mask>                                       \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Mask& mask,           \
              std::uint8_t repeatTimes, const UnaryRepeatParams& p, Loc loc = Loc::current()) { \
        for (const auto& r :                                                                    \
             npusim::ascendc::unary_runs<T>(mask, isSetMask, repeatTimes, p, loc)) {            \
            Name(dst[r.offset[0]], src[r.offset[1]], static_cast<std::int32_t>(r.count), loc);  \
        }                                                                                       \
    }

NPUSIM_ASCENDC_UNARY(Exp, exp)
NPUSIM_ASCENDC_UNARY(Ln, ln)
NPUSIM_ASCENDC_UNARY(Abs, abs)
NPUSIM_ASCENDC_UNARY(Sqrt, sqrt)
NPUSIM_ASCENDC_UNARY(Rsqrt, rsqrt)
NPUSIM_ASCENDC_UNARY(Reciprocal, reciprocal)
NPUSIM_ASCENDC_UNARY(Relu, relu)
NPUSIM_ASCENDC_UNARY(Not, bitwise_not)
#undef NPUSIM_ASCENDC_UNARY

/// Axpy(dst, src, scalar, count): dst = src x scalar + dst (same element type; it reads dst).
template <class T, class U>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<T>& src, U scalar, std::int32_t count,
          Loc loc = Loc::current()) {
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(
        dst.native(), n,
        {npusim::ascendc::read_of(src.native(), n), npusim::ascendc::read_of(dst.native(), n)}, loc,
        [&](npusim::Block& b) {
            b.axpy(dst.native(), src.native(), static_cast<T>(scalar), n, loc);
        });
}
template <class T, class U, bool isSetMask = true, class Mask>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<T>& src, U scalar, const Mask& mask,
          std::uint8_t repeatTimes, const UnaryRepeatParams& p, Loc loc = Loc::current()) {
    for (const auto& r : npusim::ascendc::unary_runs<T>(mask, isSetMask, repeatTimes, p, loc)) {
        Axpy(dst[r.offset[0]], src[r.offset[1]], scalar, static_cast<std::int32_t>(r.count), loc);
    }
}

template <class T, class U>
void Duplicate(const LocalTensor<T>& dst, U scalar, std::int32_t count, Loc loc = Loc::current()) {
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(dst.native(), n, {}, loc, [&](npusim::Block& b) {
        b.fill(dst.native(), static_cast<T>(scalar), n, loc);
    });
}
/// Duplicate(dst, scalar, mask, repeatTimes, dstBlockStride, dstRepeatStride).
template <class T, class U, bool isSetMask = true, class Mask>
void Duplicate(const LocalTensor<T>& dst, U scalar, const Mask& mask, std::uint8_t repeatTimes,
               std::uint16_t dstBlockStride, std::uint8_t dstRepeatStride,
               Loc loc = Loc::current()) {
    const auto m = npusim::ascendc::level0_mask<T>(mask, isSetMask, loc);
    for (const auto& r : npusim::ascendc::level0_runs<T, 1>(
             m, repeatTimes, {npusim::ascendc::Strides{dstBlockStride, dstRepeatStride}})) {
        Duplicate(dst[r.offset[0]], scalar, static_cast<std::int32_t>(r.count), loc);
    }
}

struct CopyRepeatParams {
    std::uint16_t dstStride = 1;
    std::uint16_t srcStride = 1;
    std::uint16_t dstRepeatSize = 8;
    std::uint16_t srcRepeatSize = 8;
};

/// Copy(dst, src, mask, repeatTimes, CopyRepeatParams): a UB -> UB copy on PIPE_V (the
/// count-form runs are DataCopy UB -> UB instructions).
template <class T, bool isSetMask = true, class Mask>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Mask& mask,
          std::uint8_t repeatTimes, const CopyRepeatParams& p, Loc loc = Loc::current()) {
    const auto m = npusim::ascendc::level0_mask<T>(mask, isSetMask, loc);
    for (const auto& r : npusim::ascendc::level0_runs<T, 2>(
             m, repeatTimes,
             {npusim::ascendc::Strides{p.dstStride, p.dstRepeatSize},
              npusim::ascendc::Strides{p.srcStride, p.srcRepeatSize}})) {
        const LocalTensor<T> out = dst[r.offset[0]];
        const LocalTensor<T> in = src[r.offset[1]];
        npusim::ascendc::vector_instruction(
            out.native(), r.count, {npusim::ascendc::read_of(in.native(), r.count)}, loc,
            [&](npusim::Block& b) { b.copy(out.native(), in.native(), r.count, loc); });
    }
}

/// The count form of Cast between two element types of npusim's DType table.
template <class D, class S>
void cast_count(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode round,
                std::int32_t count, Loc loc) {
    if (round == RoundMode::CAST_ODD && !npusim::FloatElement<D>) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "Cast: RoundMode::CAST_ODD converts to a float type only");
    }
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(
        dst.native(), n, {npusim::ascendc::read_of(src.native(), n)}, loc, [&](npusim::Block& b) {
            b.cast(dst.native(), src.native(), n, static_cast<npusim::RoundMode>(round), loc);
        });
}

/// Cast(dst, src, round, count): every RoundMode (CAST_NONE rounds like CAST_RINT where the
/// value is not representable; CAST_ODD only to float types); integer targets saturate;
/// int4b_t to and from half (int4.h).
template <class D, class S>
void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode round, std::int32_t count,
          Loc loc = Loc::current()) {
    if constexpr (std::is_same_v<D, int4b_t> || std::is_same_v<S, int4b_t>) {
        npusim::ascendc::cast_int4(dst, src, round, static_cast<std::uint64_t>(count), loc);
        return;
    } else {
        cast_count(dst, src, round, count, loc);
    }
}
/// Cast(dst, src, round, mask, repeatTime, UnaryRepeatParams): per repeat the elements the mask
/// enables among 256 bytes of the wider type (the vendor's rule: the mask follows the larger
/// sizeof), each operand's repeats dstRepStride / srcRepStride of its own 32-byte blocks
/// apart; one count-form Cast per run contiguous in both. Types of different sizes with block
/// strides other than 1 are not supported yet (KernelError).
template <class D, class S, bool isSetMask = true, class Mask>
void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode round, const Mask& mask,
          std::uint8_t repeatTime, const UnaryRepeatParams& p, Loc loc = Loc::current()) {
    constexpr bool d4 = std::is_same_v<D, int4b_t>, s4 = std::is_same_v<S, int4b_t>;
    using Wide = std::conditional_t<d4, S, std::conditional_t<s4 || sizeof(D) >= sizeof(S), D, S>>;
    if constexpr (!d4 && !s4 && sizeof(D) == sizeof(S)) {
        for (const auto& r : npusim::ascendc::unary_runs<D>(mask, isSetMask, repeatTime, p, loc)) {
            Cast(dst[r.offset[0]], src[r.offset[1]], round, static_cast<std::int32_t>(r.count),
                 loc);
        }
    } else {
        if (p.dstBlkStride != 1 || p.srcBlkStride != 1) {
            npusim::ascendc::not_supported_yet_v(
                loc, "Cast of types of different sizes with block strides other than 1");
        }
        constexpr std::uint64_t dst_block = d4 ? 64 : 32 / (d4 ? 1 : sizeof(D));
        constexpr std::uint64_t src_block = s4 ? 64 : 32 / (s4 ? 1 : sizeof(S));
        const auto m = npusim::ascendc::level0_mask<Wide>(mask, isSetMask, loc);
        const std::uint64_t repeats = npusim::ascendc::level0_repeats<Wide>(m, repeatTime);
        std::uint64_t at_d = 0, at_s = 0, length = 0;
        auto flush = [&] {
            if (length != 0)
                Cast(dst[at_d], src[at_s], round, static_cast<std::int32_t>(length), loc);
            length = 0;
        };
        for (std::uint64_t r = 0; r < repeats; ++r) {
            for (std::uint64_t e = 0; e < 256 / sizeof(Wide); ++e) {
                if (!npusim::ascendc::level0_enabled<Wide>(m, r, e)) continue;
                const std::uint64_t d = r * p.dstRepStride * dst_block + e;
                const std::uint64_t s = r * p.srcRepStride * src_block + e;
                if (length != 0 && d == at_d + length && s == at_s + length) {
                    ++length;
                    continue;
                }
                flush();
                at_d = d;
                at_s = s;
                length = 1;
            }
        }
        flush();
    }
}

struct BrcbRepeatParams {
    std::uint16_t dstBlkStride = 1;
    std::uint16_t dstRepStride = 8;
};

/// Brcb(dst, src, repeatTimes, BrcbRepeatParams): each repeat takes 8 elements of src and
/// fills one 32-byte block of dst with each (block j of repeat r at (r x dstRepStride + j x
/// dstBlkStride) blocks). Dense destinations are one instruction; strided ones one per run.
template <class T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint8_t repeatTimes,
          const BrcbRepeatParams& p, Loc loc = Loc::current()) {
    constexpr std::uint64_t per_block = 32 / sizeof(T);
    std::uint64_t first = 0;  // the first source element of the current run
    std::uint64_t length = 0;
    std::uint64_t at = 0;  // its destination block
    auto issue = [&] {
        if (length == 0) return;
        const LocalTensor<T> out = dst[at * per_block];
        const LocalTensor<T> in = src[first];
        npusim::ascendc::vector_instruction(
            out.native(), length * per_block, {npusim::ascendc::read_of(in.native(), length)}, loc,
            [&](npusim::Block& b) { b.brcb(out.native(), in.native(), length, loc); });
    };
    for (std::uint64_t r = 0; r < repeatTimes; ++r) {
        for (std::uint64_t j = 0; j < 8; ++j) {
            const std::uint64_t block = r * p.dstRepStride + j * p.dstBlkStride;
            const std::uint64_t element = r * 8 + j;
            if (length != 0 && block == at + length) {
                ++length;
                continue;
            }
            issue();
            first = element;
            at = block;
            length = 1;
        }
    }
    issue();
}

}  // namespace AscendC
