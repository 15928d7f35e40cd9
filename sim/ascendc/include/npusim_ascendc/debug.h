// Kernel-side printing: AscendC::printf / PRINTF print on the host when the scalar unit
// reaches the call (in each block's program order; blocks interleave as the simulation runs
// them, deterministically). They take no simulated time (hardware: a few scalar
// instructions writing a dump buffer the runtime prints after the kernel).
#pragma once

#include <cstdio>
#include <type_traits>
#include <utility>

#include "npusim_ascendc/context.h"

namespace npusim::ascendc {
/// A printf argument as C varargs take it: half and bfloat16 values as double.
template <class A>
auto printf_arg(A value) {
    if constexpr (std::is_same_v<A, npusim::half> || std::is_same_v<A, npusim::bfloat16>) {
        return static_cast<double>(static_cast<float>(value));
    } else {
        return value;
    }
}
}  // namespace npusim::ascendc

namespace AscendC {

template <class... Args>
void printf(const char* format, Args... args) {
    if constexpr (sizeof...(Args) == 0) {
        std::fputs(format, stdout);
    } else {
        std::printf(format, npusim::ascendc::printf_arg(args)...);
    }
}
template <class... Args>
void PRINTF(const char* format, Args... args) {
    AscendC::printf(format, args...);
}

}  // namespace AscendC

/// The vendor's kernel log and checked-assert macros (library code in the samples uses them):
/// KERNEL_LOG(level, format, args...) prints "[level] message" like AscendC::printf;
/// ASCENDC_ASSERT(cond, { behavior; }) runs the behavior, then fails as ASSERT(cond) does.
#ifndef KERNEL_LOG
#define KERNEL_DEBUG "DEBUG"
#define KERNEL_INFO "INFO"
#define KERNEL_WARN "WARN"
#define KERNEL_ERROR "ERROR"
#define KERNEL_LOG(level, format, ...) AscendC::printf("[" level "] " format "\n", ##__VA_ARGS__)
#endif
#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, ...) \
    do {                          \
        if (!(cond)) {            \
            __VA_ARGS__;          \
            ASSERT(cond);         \
        }                         \
    } while (0)
#endif
