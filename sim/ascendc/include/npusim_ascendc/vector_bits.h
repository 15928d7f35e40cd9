// Bit shifts and index vectors (PIPE_V): ShiftLeft / ShiftRight by a scalar (count form and
// mask/repeat form) and CreateVecIndex (count form). Semantics from the vendor's Ascend C API
// reference (logic operations, data filling) for Atlas A2/A3: shifts take int16_t, uint16_t,
// int32_t and uint32_t elements and a shift of 0 to the element width; unsigned types shift
// logically, signed types arithmetically (a left shift keeps the sign bit). CreateVecIndex
// writes firstValue + i for half, float, int16_t and int32_t.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/level0.h"
#include "npusim_ascendc/vector.h"

namespace npusim::ascendc {

template <class T>
constexpr bool kShiftElement =
    std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>;

/// The shift count of a ShiftLeft / ShiftRight: 0 to T's width (a KernelError naming the line
/// otherwise, where hardware's result is undefined).
template <class T, class U>
std::int64_t shift_bits(U scalar, const char* api, const Loc& loc) {
    const auto bits = static_cast<std::int64_t>(scalar);
    constexpr auto width = static_cast<std::int64_t>(sizeof(T) * 8);
    if (bits < 0 || bits > width) {
        throw KernelError(EventIds::where(loc) + api + ": the shift " + std::to_string(bits) +
                          " is outside [0, " + std::to_string(width) + "] for this element type");
    }
    return bits;
}

}  // namespace npusim::ascendc

namespace AscendC {

#define NPUSIM_ASCENDC_SHIFT(Name, method)                                                  \
    template <class T, bool isSetMask = true, class U>                                      \
    requires std::is_arithmetic_v<U>                                                        \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,   \
              std::int32_t count, Loc loc = Loc::current()) {                               \
        static_assert(npusim::ascendc::kShiftElement<T>,                                    \
                      "npusim Ascend C: " #Name                                             \
                      " takes int16_t, uint16_t, int32_t or uint32_t "                      \
                      "elements (Atlas A2/A3)");                                            \
        const std::int64_t bits = npusim::ascendc::shift_bits<T>(scalarValue, #Name, loc);  \
        const auto n = static_cast<std::uint64_t>(count);                                   \
        npusim::ascendc::vector_instruction(                                                \
            dst.native(), n, {npusim::ascendc::read_of(src.native(), n)}, loc,              \
            [&](npusim::Block& b) { b.method(dst.native(), src.native(), bits, n, loc); }); \
    }                                                                                       \
    template <class T, bool isSetMask = true, class U, class Mask>                          \
    requires std::is_arithmetic_v<U>                                                        \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,   \
              const Mask& mask, std::uint8_t repeatTime, const UnaryRepeatParams& p,        \
              NPUSIM_SHIFT_ROUND_PARAMETER Loc loc = Loc::current()) {                      \
        NPUSIM_SHIFT_ROUND_CHECK(Name);                                                     \
        for (const auto& r :                                                                \
             npusim::ascendc::unary_runs<T>(mask, isSetMask, repeatTime, p, loc)) {         \
            Name<T, isSetMask>(dst[r.offset[0]], src[r.offset[1]], scalarValue,             \
                               static_cast<std::int32_t>(r.count), loc);                    \
        }                                                                                   \
    }

#define NPUSIM_SHIFT_ROUND_PARAMETER
#define NPUSIM_SHIFT_ROUND_CHECK(Name) (void)0
NPUSIM_ASCENDC_SHIFT(ShiftLeft, shift_left)
#undef NPUSIM_SHIFT_ROUND_PARAMETER
#undef NPUSIM_SHIFT_ROUND_CHECK
// ShiftRight's mask/repeat form takes roundEn (round the last bit shifted out): not modelled.
#define NPUSIM_SHIFT_ROUND_PARAMETER bool roundEn = false,
#define NPUSIM_SHIFT_ROUND_CHECK(Name)                                               \
    if (roundEn) {                                                                   \
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + #Name      \
                                  ": roundEn = true is not supported yet (npusim)"); \
    }
NPUSIM_ASCENDC_SHIFT(ShiftRight, shift_right)
#undef NPUSIM_SHIFT_ROUND_PARAMETER
#undef NPUSIM_SHIFT_ROUND_CHECK
#undef NPUSIM_ASCENDC_SHIFT

/// ShiftLeft / ShiftRight with a tensor of shift counts (Ascend 950 only, as the vendor
/// documents): declared so that a sample using them in a 950 scenario compiles; a use does not.
template <class T, class S, bool isSetMask = true, class... Args>
void ShiftLeft(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<S>&, Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<T, S>,
                  "npusim Ascend C: ShiftLeft with a tensor of shift counts is an Ascend 950 API "
                  "(npusim models Atlas A2/A3; docs/ascendc.md)");
}
template <class T, class S, bool isSetMask = true, class... Args>
void ShiftRight(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<S>&, Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<T, S>,
                  "npusim Ascend C: ShiftRight with a tensor of shift counts is an Ascend 950 API "
                  "(npusim models Atlas A2/A3; docs/ascendc.md)");
}

/// CreateVecIndex(dst, firstValue, count): dst[i] = firstValue + i.
template <class T, class U>
void CreateVecIndex(const LocalTensor<T>& dst, const U& firstValue, std::uint32_t count,
                    Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> ||
                      std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int32_t>,
                  "npusim Ascend C: CreateVecIndex takes half, float, int16_t or int32_t elements "
                  "(Atlas A2/A3)");
    const auto n = static_cast<std::uint64_t>(count);
    npusim::ascendc::vector_instruction(dst.native(), n, {}, loc, [&](npusim::Block& b) {
        b.create_vec_index(dst.native(), static_cast<T>(firstValue), n, loc);
    });
}
/// The mask/repeat form of CreateVecIndex: not supported yet.
template <class T, class U, class Mask>
void CreateVecIndex(const LocalTensor<T>&, const U&, const Mask&, std::uint8_t, std::uint16_t,
                    std::uint8_t) {
    static_assert(npusim::ascendc::kAlwaysFalse<T, U, Mask>,
                  "npusim Ascend C: the mask/repeat form of CreateVecIndex is not supported yet "
                  "(docs/ascendc.md); the count form is");
}

}  // namespace AscendC
