// Kernel-side printing: AscendC::printf / PRINTF print on the host when the scalar unit
// reaches the call (in each block's program order; blocks interleave as the simulation runs
// them, deterministically). They take no simulated time (hardware: a few scalar
// instructions writing a dump buffer the runtime prints after the kernel).
#pragma once

#include <cstdio>
#include <utility>

#include "npusim_ascendc/context.h"

namespace AscendC {

template <class... Args>
void printf(const char* format, Args... args) {
    if constexpr (sizeof...(Args) == 0) {
        std::fputs(format, stdout);
    } else {
        std::printf(format, args...);
    }
}
template <class... Args>
void PRINTF(const char* format, Args... args) {
    AscendC::printf(format, args...);
}

}  // namespace AscendC

namespace AscendC {

/// DumpTensor / DumpAccChkPoint print tensor contents on hardware: not modelled yet.
template <class... Args>
void DumpTensor(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: DumpTensor is not supported yet (docs/ascendc.md)");
}
template <class... Args>
void DumpAccChkPoint(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: DumpAccChkPoint is not supported yet (docs/ascendc.md)");
}

}  // namespace AscendC
