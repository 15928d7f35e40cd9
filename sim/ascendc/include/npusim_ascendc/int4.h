// int4b_t (4-bit integers, two a byte) beyond the tensors (tensors.h): DataCopy of them, and
// Cast between them and half on PIPE_V as one native CastInt4 instruction per run (vendor API
// reference, "Cast": half -> int4b_t with CAST_NONE/RINT/FLOOR/CEIL/ROUND/TRUNC, int4b_t ->
// half with CAST_NONE on Atlas A2/A3; docs/ascendc.md, "API status").
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/data_copy.h"
#include "npusim_ascendc/vector.h"

namespace npusim::ascendc {

[[noreturn]] inline void int4_error(const Loc& loc, const std::string& what) {
    throw KernelError(EventIds::where(loc) + what);
}

template <class D, class S>
void cast_int4(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<S>& src,
               AscendC::RoundMode round, std::uint64_t n, const Loc& loc) {
    constexpr bool to_int4 = std::is_same_v<D, AscendC::int4b_t>;
    using Other = std::conditional_t<to_int4, S, D>;
    static_assert(std::is_same_v<Other, half>,
                  "npusim Ascend C: Cast to or from int4b_t converts half only (int16_t and "
                  "bfloat16_t pairs are Ascend 950 conversions)");
    if (n == 0) return;
    if (n % 2 != 0) {
        int4_error(loc, "Cast of " + std::to_string(n) +
                            " int4b_t elements: npusim needs a whole number of bytes");
    }
    if (to_int4 && round == AscendC::RoundMode::CAST_ODD) {
        int4_error(loc, "Cast: RoundMode::CAST_ODD converts to a float type only");
    }
    auto issue = [&](const auto& out, const auto& in, std::uint64_t in_count,
                     std::uint64_t out_count) {
        vector_instruction(out, out_count, {read_of(in, in_count)}, loc, [&](npusim::Block& b) {
            b.vector_call(
                {.op = Op::CastInt4, .count = n, .mode = static_cast<std::uint32_t>(round)}, out,
                in, loc);
        });
    };
    if constexpr (to_int4) {
        issue(dst.bytes(), src.native(), n, n / 2);
    } else {
        issue(dst.native(), src.bytes(), n / 2, n);
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// DataCopy of 4-bit elements: the count / 2 packed bytes (count even).
inline void DataCopy(const LocalTensor<int4b_t>& dst, const GlobalTensor<int4b_t>& src,
                     std::uint32_t count, Loc loc = Loc::current()) {
    if (count % 2 != 0) npusim::ascendc::int4_error(loc, "DataCopy of an odd int4b_t count");
    DataCopy(dst.ReinterpretCast<std::int8_t>(), src.bytes(), count / 2, loc);
}
inline void DataCopy(const GlobalTensor<int4b_t>& dst, const LocalTensor<int4b_t>& src,
                     std::uint32_t count, Loc loc = Loc::current()) {
    if (count % 2 != 0) npusim::ascendc::int4_error(loc, "DataCopy of an odd int4b_t count");
    DataCopy(dst.bytes(), src.ReinterpretCast<std::int8_t>(), count / 2, loc);
}
inline void DataCopy(const LocalTensor<int4b_t>& dst, const LocalTensor<int4b_t>& src,
                     std::uint32_t count, Loc loc = Loc::current()) {
    if (count % 2 != 0) npusim::ascendc::int4_error(loc, "DataCopy of an odd int4b_t count");
    DataCopy(dst.ReinterpretCast<std::int8_t>(), src.ReinterpretCast<std::int8_t>(), count / 2,
             loc);
}

}  // namespace AscendC
