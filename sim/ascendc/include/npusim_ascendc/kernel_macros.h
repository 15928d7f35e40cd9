// Debug macros and small names of the vendor's kernel headers that samples use:
// ASCENDC_ASSERT(cond, { statements }): when cond does not hold, runs the statements (usually
// a KERNEL_LOG) and stops the run with a KernelError naming the line and the condition (the
// vendor checks it in CPU-debug builds). KERNEL_LOG(level, fmt, args...): prints
// "[level] message" to stderr on the host (no simulated time). TEventID: an event id.
#pragma once

#include <cstdint>
#include <cstdio>

#include "npusim_ascendc/basics.h"

namespace npusim::ascendc {
template <class... Args>
void kernel_log(const char* level, const char* format, Args... args) {
    std::fprintf(stderr, "[%s] ", level);
    if constexpr (sizeof...(Args) == 0) {
        std::fputs(format, stderr);
    } else {
        std::fprintf(stderr, format, args...);
    }
    std::fputc('\n', stderr);
}
}  // namespace npusim::ascendc

#define KERNEL_LOG(level, ...) ::npusim::ascendc::kernel_log(#level, __VA_ARGS__)
#define ASCENDC_ASSERT(cond, ...)                           \
    do {                                                    \
        if (!static_cast<bool>(cond)) {                     \
            __VA_ARGS__;                                    \
            ::npusim::ascendc::kernel_assert(false, #cond); \
        }                                                   \
    } while (0)

namespace AscendC {
using TEventID = std::int8_t;
}  // namespace AscendC
