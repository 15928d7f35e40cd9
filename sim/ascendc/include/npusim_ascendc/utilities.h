// Kernel utilities: GetSystemCycle, ascendc_assert(expr[, fmt, args...]), DivCeil / AlignUp,
// Conditional, IsSameType, ToFloat / ToBfloat16, the integer Ceil, the Std subset (tuple, get,
// forward), AscendCUtils::SetOverflow, GetDataBlockSizeInBytes.
//
// GetSystemCycle returns the calling block's scalar-unit time in simulated cycles (hardware: the
// system counter), so kernels that time a section read deterministic numbers; the read costs
// one scalar cycle. ascendc_assert behaves as ASSERT: when the expression does not hold, the
// run stops with a KernelError naming the line, the expression, the block and the message
// formatted printf-style (hardware: the kernel traps and the runtime prints the message).
#pragma once

#include <cstdint>
#include <cstdio>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "npusim_ascendc/context.h"

namespace npusim::ascendc {

template <class... Args>
void kernel_assert_message(bool holds, const char* expression, const Loc& loc,
                           const char* format = nullptr, Args... args) {
    if (holds) return;
    const Block& block = context(loc).block();
    std::string message = EventIds::where(loc) + "ascendc_assert(" + expression + ") failed in " +
                          std::string(to_string(block.core_type())) + " block " +
                          std::to_string(block.block_idx());
    if (format != nullptr) {
        std::string text;
        if constexpr (sizeof...(Args) == 0) {
            text = format;
        } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
            const int size = std::snprintf(nullptr, 0, format, args...);
            std::vector<char> buffer(static_cast<std::size_t>(size > 0 ? size : 0) + 1);
            std::snprintf(buffer.data(), buffer.size(), format, args...);
#pragma GCC diagnostic pop
            text = buffer.data();
        }
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        message += ": " + text;
    }
    throw KernelError(message);
}

}  // namespace npusim::ascendc

#undef ascendc_assert
#define ascendc_assert(expr, ...)                                                             \
    ::npusim::ascendc::kernel_assert_message(static_cast<bool>(expr), #expr,                  \
                                             ::std::source_location::current() __VA_OPT__(, ) \
                                                 __VA_ARGS__)

namespace AscendC {

/// The calling block's scalar-unit time in simulated cycles (deterministic); one scalar cycle.
inline std::int64_t GetSystemCycle(Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    const auto now = static_cast<std::int64_t>(ctx.block().now());
    ctx.block().scalar_work(1, loc);
    return now;
}

/// Conditional<b, T, F>::type: T when b holds, else F (as std::conditional).
template <bool condition, class T, class F>
struct Conditional {
    using type = T;
};
template <class T, class F>
struct Conditional<false, T, F> {
    using type = F;
};

/// IsSameType<T, U>::value: whether T and U are one type (as std::is_same; the cube samples
/// pick their parameters by element type with it).
template <class T, class U>
struct IsSameType {
    static constexpr bool value = false;
};
template <class T>
struct IsSameType<T, T> {
    static constexpr bool value = true;
};

/// GetDataBlockSizeInBytes(): the bytes of one data block (the unit of vector operands), 32.
constexpr std::uint32_t GetDataBlockSizeInBytes() {
    return 32;
}

/// AscendCUtils::SetOverflow(mode): the vector unit's float overflow mode (1: inf / NaN,
/// 0: saturation). npusim's float arithmetic is IEEE (inf / NaN) in both modes: results
/// differ from hardware only where a value overflows in mode 0 (docs/ascendc.md).
struct AscendCUtils {
    static void SetOverflow(std::uint64_t /*ctrlValue*/) {}
};

constexpr std::uint32_t DivCeil(std::uint32_t a, std::uint32_t b) {
    return (a + b - 1) / b;
}
constexpr std::uint32_t AlignUp(std::uint32_t a, std::uint32_t b) {
    return DivCeil(a, b) * b;
}
/// ToFloat / ToBfloat16: a bfloat16_t scalar as float, and a float rounded to bfloat16_t
/// (nearest even), as the scalar unit converts them.
inline float ToFloat(const npusim::bfloat16& value) {
    return static_cast<float>(value);
}
inline npusim::bfloat16 ToBfloat16(const float& value) {
    return npusim::bfloat16(value);
}
/// Ceil(a, b): the integer quotient rounded up (the scalar form; the advanced API's Ceil of a
/// tensor is adv_math.h's).
template <class T, class U,
          std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>, int> = 0>
constexpr auto Ceil(T a, U b) {
    return (a + b - 1) / b;
}

}  // namespace AscendC

/// AscendC::Std: the standard-library subset kernels use on the device (tuple, get, forward,
/// move, make_tuple, tuple_size, ...), the host's own (asc-devkit matmul_l2cache's block
/// coordinates).
namespace AscendC::Std {
using std::forward;
using std::get;
using std::make_tuple;
using std::move;
using std::tie;
using std::tuple;
using std::tuple_element;
using std::tuple_size;
}  // namespace AscendC::Std
