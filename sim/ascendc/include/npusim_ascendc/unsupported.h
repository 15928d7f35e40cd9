// Ascend C APIs that npusim does not model yet: each fails to compile with a message that
// names it (never a silent no-op). The vector ones (Sort32, GatherMask) are in vector.h.
#pragma once

#include "npusim_ascendc/context.h"

namespace AscendC {

template <class T = void>
void InitSocState() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: InitSocState / LocalMemAllocator (static tensor style) is "
                  "not supported yet");
}

}  // namespace AscendC
