// Compare / CompareScalar (one result bit per element into a uint8 tensor) and Select (a bit
// mask picks between two tensors or a tensor and a scalar), count form, PIPE_V.
#pragma once

#include <cstdint>

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

namespace detail {
inline void require_tensor_select(SELMODE mode, SELMODE wanted, const Loc& loc) {
    if (mode == wanted) return;
    throw npusim::KernelError(
        npusim::ascendc::EventIds::where(loc) +
        (mode == SELMODE::VSEL_CMPMASK_SPR
             ? std::string("Select with SELMODE::VSEL_CMPMASK_SPR (the compare register) is not "
                           "supported yet")
             : std::string("Select: this SELMODE does not match the operands (a tensor src1 "
                           "needs VSEL_TENSOR_TENSOR_MODE, a scalar VSEL_TENSOR_SCALAR_MODE)")));
}
template <class U>
npusim::ascendc::Touch mask_read(const LocalTensor<U>& mask, std::uint64_t n) {
    return npusim::ascendc::Touch{mask.native().space, mask.native().address, (n + 7) / 8, false};
}
}  // namespace detail

/// Select(dst, selMask, src0, src1, VSEL_TENSOR_TENSOR_MODE, count): dst[i] = bit i of
/// selMask ? src0[i] : src1[i].
template <class T, class U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, std::uint32_t count,
            Loc loc = Loc::current()) {
    detail::require_tensor_select(selMode, SELMODE::VSEL_TENSOR_TENSOR_MODE, loc);
    const std::uint64_t n = count;
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
    detail::require_tensor_select(selMode, SELMODE::VSEL_TENSOR_SCALAR_MODE, loc);
    const std::uint64_t n = count;
    npusim::ascendc::vector_instruction(
        dst.native(), n,
        {detail::mask_read(selMask, n), npusim::ascendc::read_of(src0.native(), n)}, loc,
        [&](npusim::Block& b) {
            b.select(dst.native(), selMask.native(), src0.native(), static_cast<T>(scalar), n, loc);
        });
}

/// Compares: the newer spelling of CompareScalar.
template <class U, class T, class S>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, S scalar, CMPMODE cmpMode,
              std::uint32_t count, Loc loc = Loc::current()) {
    CompareScalar(dst, src0, scalar, cmpMode, count, loc);
}
/// The compare register (Compare's mask/repeat form, Select with VSEL_CMPMASK_SPR) is not
/// modelled: declared so that a sample using it in another scenario compiles.
template <class T = void, class... Args>
void GetCmpMask(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<T, Args...>,
                  "npusim Ascend C: GetCmpMask (the compare register) is not supported yet "
                  "(docs/ascendc.md, API status)");
}
template <class T = void, class... Args>
void SetCmpMask(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<T, Args...>,
                  "npusim Ascend C: SetCmpMask (the compare register) is not supported yet "
                  "(docs/ascendc.md, API status)");
}

}  // namespace AscendC
