// The mask/repeat ("level 0") form of the vector API and the mask registers.
//
// A level-0 call processes `repeatTimes` repeats of 256 bytes; each repeat is 8 blocks of 32
// bytes, block b of operand k at (r x repStride_k + b x blkStride_k) x 32 bytes. The mask
// enables elements of a repeat: a number (the first `mask` elements) or two 64-bit words
// (bit i: element i), or, with isSetMask = false, the mask register (SetVectorMask). In
// counter mode (SetMaskCount) the mask is the number of elements in all and the repeat count
// follows from it. npusim issues the call as the count-form instructions of its contiguous
// runs: dense calls are one instruction as on hardware; strided or partially masked calls are
// one instruction per run (a timed approximation: more instructions, the same bytes).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "npusim_ascendc/tensors.h"

namespace AscendC {

enum class MaskMode : std::uint8_t { NORMAL = 0, COUNTER = 1 };

/// The mask argument of a level-0 call that uses the mask register (isSetMask = false).
inline constexpr std::uint64_t MASK_PLACEHOLDER = 0;

}  // namespace AscendC

namespace npusim::ascendc {

/// Block and repeat strides of one operand, in 32-byte blocks.
struct Strides {
    std::uint64_t block = 1;
    std::uint64_t repeat = 8;
};

/// The elements a level-0 call enables, resolved against the mask registers.
struct Level0Mask {
    bool counter = false;
    std::uint64_t count = 0;                  // counter mode: elements in all
    std::array<std::uint64_t, 2> bits{0, 0};  // normal mode: elements of each repeat
};

/// `mask` as a number of elements (isSetMask) or the register.
template <Element T>
Level0Mask level0_mask(std::uint64_t mask, bool is_set_mask, const Loc& loc) {
    const VectorMask& reg = context(loc).vector_mask();
    Level0Mask m;
    m.counter = reg.counter;
    if (reg.counter) {
        m.count = is_set_mask ? mask : reg.count;
        return m;
    }
    if (!is_set_mask) {
        m.bits = {reg.low, reg.high};
        return m;
    }
    const std::uint64_t per_repeat = 256 / sizeof(T);
    if (mask == 0 || mask > per_repeat) {
        throw KernelError(EventIds::where(loc) + "mask " + std::to_string(mask) +
                          " is outside 1.." + std::to_string(per_repeat) + " for " +
                          std::string(to_string(dtype_of<T>)) + " elements");
    }
    m.bits[0] = mask >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << mask) - 1;
    m.bits[1] = mask <= 64    ? 0
                : mask >= 128 ? ~std::uint64_t{0}
                              : (std::uint64_t{1} << (mask - 64)) - 1;
    return m;
}

/// The bit form `mask[2]` (mask[0]: elements 0-63, mask[1]: 64-127).
template <Element T>
Level0Mask level0_mask(const std::uint64_t* mask, bool is_set_mask, const Loc& loc) {
    Level0Mask m = level0_mask<T>(std::uint64_t{1}, false, loc);
    if (is_set_mask && !m.counter) m.bits = {mask[0], mask[1]};
    return m;
}

/// Whether element e of repeat r takes part.
template <Element T>
bool level0_enabled(const Level0Mask& mask, std::uint64_t r, std::uint64_t e) {
    constexpr std::uint64_t per_repeat = 256 / sizeof(T);
    return mask.counter ? r * per_repeat + e < mask.count
                        : ((mask.bits[e / 64] >> (e % 64)) & 1U) != 0;
}

/// The repeats a call runs: repeatTimes, or in counter mode as many as the count needs.
template <Element T>
std::uint64_t level0_repeats(const Level0Mask& mask, std::uint64_t repeat_times) {
    constexpr std::uint64_t per_repeat = 256 / sizeof(T);
    return mask.counter ? (mask.count + per_repeat - 1) / per_repeat : repeat_times;
}

/// One contiguous run: the element offset of each operand and the run's length.
template <std::size_t N>
struct Run {
    std::array<std::uint64_t, N> offset{};
    std::uint64_t count = 0;
};

/// The contiguous runs of a level-0 call over N operands, in processing order.
template <Element T, std::size_t N>
std::vector<Run<N>> level0_runs(const Level0Mask& mask, std::uint64_t repeat_times,
                                const std::array<Strides, N>& strides) {
    constexpr std::uint64_t per_block = 32 / sizeof(T);
    constexpr std::uint64_t per_repeat = 256 / sizeof(T);
    const std::uint64_t repeats = level0_repeats<T>(mask, repeat_times);
    std::vector<Run<N>> runs;
    for (std::uint64_t r = 0; r < repeats; ++r) {
        for (std::uint64_t e = 0; e < per_repeat; ++e) {
            if (!level0_enabled<T>(mask, r, e)) continue;
            std::array<std::uint64_t, N> at{};
            for (std::size_t k = 0; k < N; ++k) {
                at[k] = (r * strides[k].repeat + (e / per_block) * strides[k].block) * per_block +
                        e % per_block;
            }
            bool extends = !runs.empty();
            for (std::size_t k = 0; extends && k < N; ++k) {
                extends = at[k] == runs.back().offset[k] + runs.back().count;
            }
            if (extends) {
                ++runs.back().count;
            } else {
                runs.push_back(Run<N>{at, 1});
            }
        }
    }
    return runs;
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Counter mode: later level-0 calls process SetVectorMask's count of elements in all.
inline void SetMaskCount(Loc loc = Loc::current()) {
    npusim::ascendc::context(loc).vector_mask().counter = true;
}
/// Normal mode (the default): the mask enables elements of each repeat.
inline void SetMaskNorm(Loc loc = Loc::current()) {
    npusim::ascendc::context(loc).vector_mask().counter = false;
}
/// SetVectorMask<T, mode>(high, low): normal mode, bit i enables element i of a repeat
/// (low: 0-63, high: 64-127); counter mode, `low` is the element count.
template <class T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(std::uint64_t maskHigh, std::uint64_t maskLow, Loc loc = Loc::current()) {
    npusim::ascendc::VectorMask& reg = npusim::ascendc::context(loc).vector_mask();
    if (mode == MaskMode::COUNTER || reg.counter) {
        reg.count = maskLow;
    } else {
        reg.low = maskLow;
        reg.high = maskHigh;
    }
}
/// SetVectorMask<T, mode>(len): the first `len` elements of a repeat (normal mode) or `len`
/// elements in all (counter mode).
template <class T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(std::int32_t len, Loc loc = Loc::current()) {
    npusim::ascendc::VectorMask& reg = npusim::ascendc::context(loc).vector_mask();
    const auto n = static_cast<std::uint64_t>(len);
    if (mode == MaskMode::COUNTER || reg.counter) {
        reg.count = n;
        return;
    }
    reg.low = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    reg.high = n <= 64 ? 0 : n >= 128 ? ~std::uint64_t{0} : (std::uint64_t{1} << (n - 64)) - 1;
}
/// Every element of a repeat enabled (normal mode).
inline void ResetMask(Loc loc = Loc::current()) {
    npusim::ascendc::VectorMask& reg = npusim::ascendc::context(loc).vector_mask();
    reg.low = reg.high = ~std::uint64_t{0};
}

}  // namespace AscendC
