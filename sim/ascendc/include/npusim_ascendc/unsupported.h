// Ascend C APIs that npusim does not model yet: each fails to compile with a message that
// names it (never a silent no-op). The vector APIs (Compare, Select, Sort32, GatherMask, mask
// registers) in vector.h.
#pragma once

#include "npusim_ascendc/context.h"

namespace AscendC {

template <class T = void>
void InitSocState() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: InitSocState / LocalMemAllocator (static tensor style) is "
                  "not supported yet");
}
template <class... Args>
void dcci(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: dcci (cache maintenance) is not supported yet");
}

}  // namespace AscendC
