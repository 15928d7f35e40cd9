// Small names of the vendor's kernel headers that samples use: TEventID, an event id as the
// queue and flag APIs take it. (KERNEL_LOG and ASCENDC_ASSERT are in npusim_ascendc/debug.h.)
#pragma once

#include <cstdint>

namespace AscendC {
using TEventID = std::int8_t;
}  // namespace AscendC
