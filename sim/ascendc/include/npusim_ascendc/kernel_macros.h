// Small names of the vendor's kernel headers that samples use: TEventID, an event id as the
// queue and flag APIs take it, and the branch hints likely / unlikely (the condition's value,
// as the compiler's __builtin_expect). (KERNEL_LOG and ASCENDC_ASSERT are in
// npusim_ascendc/debug.h.)
#pragma once

#include <cstdint>

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

namespace AscendC {
using TEventID = std::int8_t;
}  // namespace AscendC
