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

/// Ascend 950 APIs (not on Atlas A2 / A3, the generation npusim models): declared only so that a
/// use fails to compile with a message that says so.
namespace AscendC {
#define NPUSIM_ASCEND950_ONLY(api)                                     \
    "npusim Ascend C: " api                                            \
    " is an Ascend 950 API (not on Atlas A2/A3, which npusim models; " \
    "docs/ascendc.md)"
using MutexID = std::uint8_t;
template <class T = void>
MutexID AllocMutexID() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("AllocMutexID"));
    return 0;
}
template <class T = void>
void ReleaseMutexID(MutexID) {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("ReleaseMutexID"));
}
struct Mutex {
    template <auto pipe, class T = void>
    static void Lock(MutexID) {
        static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("Mutex::Lock"));
    }
    template <auto pipe, class T = void>
    static void Unlock(MutexID) {
        static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("Mutex::Unlock"));
    }
};
template <class... T, class... Args>
void AtomicAdd(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  NPUSIM_ASCEND950_ONLY("the scalar AtomicAdd on GM"));
}
template <class... T, class... Args>
void AtomicCas(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  NPUSIM_ASCEND950_ONLY("the scalar AtomicCas on GM"));
}
template <auto... bits, class... Args>
void SetCtrlSpr(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>, NPUSIM_ASCEND950_ONLY("SetCtrlSpr"));
}
template <auto... bits, class T = void>
std::int64_t GetCtrlSpr() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("GetCtrlSpr"));
    return 0;
}
template <auto... bits, class T = void>
void ResetCtrlSpr() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("ResetCtrlSpr"));
}
template <class T = void>
std::uint32_t GetUBSizeInBytes() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("GetUBSizeInBytes"));
    return 0;
}
template <class T = void>
std::uint32_t GetRuntimeUBSize() {
    static_assert(npusim::ascendc::kAlwaysFalse<T>, NPUSIM_ASCEND950_ONLY("GetRuntimeUBSize"));
    return 0;
}
#undef NPUSIM_ASCEND950_ONLY
}  // namespace AscendC
