// Vector instructions (PIPE_V) in the count form and the mask/repeat form.
//
// The mask/repeat ("level 0") form is supported where it describes contiguous elements: block
// strides 1 and repeat strides 8 (one 256-byte repeat after another) with a full mask, or a
// single repeat with block strides 1. It then is the count form with count = mask x repeat
// (one instruction, as on hardware). Other strides, bit masks (uint64_t mask[2]) and the
// mask registers (SetMaskCount, SetVectorMask, ...) are not supported yet.
#pragma once

#include <cstdint>
#include <vector>

#include "npusim_ascendc/tensors.h"

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

/// count = mask x repeat for contiguous level-0 forms; KernelError otherwise.
template <Element T>
std::uint64_t contiguous_count(std::uint64_t mask, std::uint64_t repeat, bool unit_blocks,
                               bool dense_repeats, const Loc& loc) {
    const std::uint64_t per_repeat = 256 / sizeof(T);
    if (unit_blocks && (repeat <= 1 || (dense_repeats && mask == per_repeat)) &&
        mask <= per_repeat) {
        return mask * repeat;
    }
    throw KernelError(EventIds::where(loc) +
                      "this mask/repeat form (strided repeats or a partial mask over several "
                      "repeats) is not supported yet; use the count form");
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
    template <class T, bool isSetMask = true>                                                    \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
              std::uint64_t mask, std::uint8_t repeatTimes, const BinaryRepeatParams& p,         \
              Loc loc = Loc::current()) {                                                        \
        const bool unit = p.dstBlkStride == 1 && p.src0BlkStride == 1 && p.src1BlkStride == 1;   \
        const bool dense = p.dstRepStride == 8 && p.src0RepStride == 8 && p.src1RepStride == 8;  \
        const std::uint64_t n =                                                                  \
            npusim::ascendc::contiguous_count<T>(mask, repeatTimes, unit, dense, loc);           \
        Name(dst, src0, src1, static_cast<std::int32_t>(n), loc);                                \
    }

NPUSIM_ASCENDC_BINARY(Add, add)
NPUSIM_ASCENDC_BINARY(Sub, sub)
NPUSIM_ASCENDC_BINARY(Mul, mul)
NPUSIM_ASCENDC_BINARY(Div, div)
NPUSIM_ASCENDC_BINARY(Max, max)
NPUSIM_ASCENDC_BINARY(Min, min)
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
    template <class T, class U, bool isSetMask = true>                                            \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, U scalar, std::uint64_t mask, \
              std::uint8_t repeatTimes, const UnaryRepeatParams& p, Loc loc = Loc::current()) {   \
        const std::uint64_t n = npusim::ascendc::contiguous_count<T>(                             \
            mask, repeatTimes, p.dstBlkStride == 1 && p.srcBlkStride == 1,                        \
            p.dstRepStride == 8 && p.srcRepStride == 8, loc);                                     \
        Name(dst, src, scalar, static_cast<std::int32_t>(n), loc);                                \
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
    template <class T, bool isSetMask = true>                                                   \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint64_t mask,         \
              std::uint8_t repeatTimes, const UnaryRepeatParams& p, Loc loc = Loc::current()) { \
        const std::uint64_t n = npusim::ascendc::contiguous_count<T>(                           \
            mask, repeatTimes, p.dstBlkStride == 1 && p.srcBlkStride == 1,                      \
            p.dstRepStride == 8 && p.srcRepStride == 8, loc);                                   \
        Name(dst, src, static_cast<std::int32_t>(n), loc);                                      \
    }

NPUSIM_ASCENDC_UNARY(Exp, exp)
NPUSIM_ASCENDC_UNARY(Ln, ln)
NPUSIM_ASCENDC_UNARY(Abs, abs)
NPUSIM_ASCENDC_UNARY(Sqrt, sqrt)
NPUSIM_ASCENDC_UNARY(Rsqrt, rsqrt)
NPUSIM_ASCENDC_UNARY(Reciprocal, reciprocal)
NPUSIM_ASCENDC_UNARY(Relu, relu)
#undef NPUSIM_ASCENDC_UNARY

template <class T, class U>
void Duplicate(const LocalTensor<T>& dst, U scalar, std::int32_t count, Loc loc = Loc::current()) {
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(dst.native(), n, {}, loc, [&](npusim::Block& b) {
        b.fill(dst.native(), static_cast<T>(scalar), n, loc);
    });
}

/// ReduceSum / ReduceMax / ReduceMin(dst, src, work, count): dst[0] = the reduction of
/// src[0..count). npusim does not use `work` (its contents are not modelled).
#define NPUSIM_ASCENDC_REDUCE(Name, method)                                                     \
    template <class T>                                                                          \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, \
              std::int32_t count, Loc loc = Loc::current()) {                                   \
        (void)work;                                                                             \
        const auto n = static_cast<std::uint64_t>(count);                                       \
        npusim::ascendc::vector_instruction(                                                    \
            dst.native(), 1, {npusim::ascendc::read_of(src.native(), n)}, loc,                  \
            [&](npusim::Block& b) { b.method(dst.native(), src.native(), n, loc); });           \
    }

NPUSIM_ASCENDC_REDUCE(ReduceSum, reduce_sum)
#undef NPUSIM_ASCENDC_REDUCE

template <class T>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               std::int32_t count, bool calIndex = false, Loc loc = Loc::current()) {
    (void)work;
    if (calIndex) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "ReduceMax with calIndex = true is not supported yet");
    }
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(
        dst.native(), 1, {npusim::ascendc::read_of(src.native(), n)}, loc,
        [&](npusim::Block& b) { b.reduce_max(dst.native(), src.native(), n, loc); });
}
template <class T>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               std::int32_t count, bool calIndex = false, Loc loc = Loc::current()) {
    (void)work;
    if (calIndex) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "ReduceMin with calIndex = true is not supported yet");
    }
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(
        dst.native(), 1, {npusim::ascendc::read_of(src.native(), n)}, loc,
        [&](npusim::Block& b) { b.reduce_min(dst.native(), src.native(), n, loc); });
}

/// WholeReduceSum(dst, src, mask, repeatTimes, dstRepStride, srcBlkStride, srcRepStride):
/// dst[r x dstRepStride] = sum of the first `mask` elements of repeat r. Supported with
/// srcBlkStride 1; npusim issues one ReduceSum per repeat (hardware: one instruction).
template <class T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::int32_t mask,
                    std::int32_t repeatTimes, std::int32_t dstRepStride, std::int32_t srcBlkStride,
                    std::int32_t srcRepStride, Loc loc = Loc::current()) {
    if (srcBlkStride != 1 || mask <= 0 || static_cast<std::uint64_t>(mask) > 256 / sizeof(T)) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "WholeReduceSum: only srcBlkStride 1 and a mask of at most one "
                                  "repeat is supported yet");
    }
    const std::uint64_t src_step = static_cast<std::uint64_t>(srcRepStride) * 32 / sizeof(T);
    for (std::int32_t r = 0; r < repeatTimes; ++r) {
        const LocalTensor<T> out = dst[static_cast<std::uint64_t>(r * dstRepStride)];
        const LocalTensor<T> in = src[r * src_step];
        const auto n = static_cast<std::uint64_t>(mask);
        npusim::ascendc::vector_instruction(
            out.native(), 1, {npusim::ascendc::read_of(in.native(), n)}, loc,
            [&](npusim::Block& b) { b.reduce_sum(out.native(), in.native(), n, loc); });
    }
}

/// Cast(dst, src, round, count): npusim rounds float -> integer to nearest even (CAST_RINT)
/// and keeps float -> float exact where representable; CAST_NONE and CAST_RINT are accepted.
template <class D, class S>
void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode round, std::int32_t count,
          Loc loc = Loc::current()) {
    if (round != RoundMode::CAST_NONE && round != RoundMode::CAST_RINT) {
        throw npusim::KernelError(
            npusim::ascendc::EventIds::where(loc) +
            "Cast: only RoundMode::CAST_NONE and CAST_RINT are supported yet");
    }
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(
        dst.native(), n, {npusim::ascendc::read_of(src.native(), n)}, loc,
        [&](npusim::Block& b) { b.cast(dst.native(), src.native(), n, loc); });
}

// ---- not supported yet: compile errors naming the API -------------------------------------
template <class... Args>
void Compare(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: Compare is not supported yet (no uint8 mask tensors)");
}
template <class... Args>
void Select(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: Select is not supported yet (no uint8 mask tensors)");
}
template <class... Args>
void Sort32(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: Sort32 is not supported yet");
}
template <class... Args>
void GatherMask(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: GatherMask is not supported yet");
}
template <class... Args>
void BlockReduceSum(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: BlockReduceSum is not supported yet");
}
template <class T = void, class... Args>
void SetVectorMask(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: SetVectorMask (mask registers) is not supported yet");
}
template <class T = void>
void SetMaskCount() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: SetMaskCount (mask registers) is not supported yet");
}
template <class T = void>
void SetMaskNorm() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: SetMaskNorm (mask registers) is not supported yet");
}
template <class T = void>
void ResetMask() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: ResetMask (mask registers) is not supported yet");
}

}  // namespace AscendC
