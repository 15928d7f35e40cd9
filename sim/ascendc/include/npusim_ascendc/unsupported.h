// Ascend C APIs that npusim does not model yet: each fails to compile with a message that
// names it (never a silent no-op).
#pragma once

#include "npusim_ascendc/context.h"

/// The pre-release `tik2` dialect (namespace tik2, QuePosition queues, ParamOffset, ...): its
/// common names exist only to fail to compile with a message that says so; a kernel written
/// in it must be ported to namespace AscendC.
namespace tik2 {
#define NPUSIM_TIK2_UNSUPPORTED                                                                  \
    "npusim Ascend C: the pre-release tik2 dialect (namespace tik2) is not supported; port the " \
    "kernel to namespace AscendC (docs/ascendc.md)"
enum class QuePosition : unsigned char { GM, A1, A2, B1, B2, CO1, CO2, VECIN, VECOUT, VECCALC };
using TPosition = QuePosition;
template <class T = void>
struct TPipeUnsupported {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_TIK2_UNSUPPORTED);
};
using TPipe = TPipeUnsupported<>;
template <auto...>
struct TQue {
    static_assert(npusim::ascendc::kAlwaysFalse<TQue>, NPUSIM_TIK2_UNSUPPORTED);
};
template <class T>
struct GlobalTensor {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_TIK2_UNSUPPORTED);
};
template <class T>
struct LocalTensor {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_TIK2_UNSUPPORTED);
};
template <class T = void>
struct ParamOffsetUnsupported {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_TIK2_UNSUPPORTED);
};
using ParamOffset = ParamOffsetUnsupported<>;
template <class... Args>
void DataCopy(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>, NPUSIM_TIK2_UNSUPPORTED);
}
template <class... Args>
void GetBlockIdx(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>, NPUSIM_TIK2_UNSUPPORTED);
}
#undef NPUSIM_TIK2_UNSUPPORTED
}  // namespace tik2
