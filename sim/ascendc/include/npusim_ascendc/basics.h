// Qualifiers, macros, pipe / event / position names and block identity of Ascend C.
#pragma once

#include <cstdint>
#include <string>

#include "npusim_ascendc/context.h"

// ---- qualifiers: meaningless on the host, kept so kernel sources compile unchanged --------
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
// The local memories' address spaces, as pointers into them are declared in the C-style
// APIs (__ubuf__ UB, __cbuf__ L1, __ca__/__cb__/__cc__ L0A/L0B/L0C, __fbuf__ fixpipe buffer).
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif
#ifndef __fbuf__
#define __fbuf__
#endif
#ifndef __vector__
#define __vector__
#endif
#ifndef __cube__
#define __cube__
#endif
#ifndef __mix__
#define __mix__(cube, vector)
#endif
#ifndef __schedmode__
#define __schedmode__(mode)
#endif
// A kernel parameter that is the library APIs' system workspace: the launch sets it
// (npusim_add_ascendc_kernel registers the parameter; GetSysWorkSpacePtr returns it).
#ifndef __kfc_workspace__
#define __kfc_workspace__
#endif
#ifndef __inline__
#define __inline__ inline
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

/// fp16 and bf16 as kernels spell them.
using half = npusim::half;
using bfloat16_t = npusim::bfloat16;

/// `bool` tensors (an operator's DT_BOOL input or output): one byte an element, 0 or 1, kept
/// as uint8 (the element type DataCopy, the checker and traces see); GetValue reads a non-zero
/// byte as true.
template <>
struct npusim::DTypeOf<bool> {
    static constexpr DType value = DType::U8;
};

/// The vendor's pipe_t, numbered as npusim::Pipe.
enum pipe_t : std::uint8_t {
    PIPE_S = 0,
    PIPE_V = 1,
    PIPE_M = 2,
    PIPE_MTE1 = 3,
    PIPE_MTE2 = 4,
    PIPE_MTE3 = 5,
    PIPE_ALL = 6,
    PIPE_FIX = 10,
};

/// Event ids as kernels name them.
enum event_t : std::uint8_t {
    EVENT_ID0 = 0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
};

/// Kernel types for KERNEL_TASK_TYPE_DEFAULT.
enum KernelMetaType : std::uint8_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
};

namespace npusim::ascendc {

constexpr Pipe to_pipe(pipe_t pipe) {
    return static_cast<Pipe>(pipe);
}

inline KernelType to_kernel_type(KernelMetaType type) {
    switch (type) {
        case KERNEL_TYPE_AIV_ONLY:
            return KernelType::AIV_ONLY;
        case KERNEL_TYPE_AIC_ONLY:
            return KernelType::AIC_ONLY;
        case KERNEL_TYPE_MIX_AIV_1_0:
            return KernelType::MIX_AIV_1_0;
        case KERNEL_TYPE_MIX_AIC_1_0:
            return KernelType::MIX_AIC_1_0;
        case KERNEL_TYPE_MIX_AIC_1_1:
            return KernelType::MIX_AIC_1_1;
        case KERNEL_TYPE_MIX_AIC_1_2:
            return KernelType::MIX_AIC_1_2;
    }
    return KernelType::AIV_ONLY;
}

/// KERNEL_TASK_TYPE_DEFAULT: npusim takes the kernel type from the launch (LaunchSpec::type);
/// a kernel that declares another type is a UsageError naming the line.
inline void declare_kernel_type(KernelMetaType type, const Loc& loc = Loc::current()) {
    KernelContext& ctx = context(loc);
    const KernelType declared = to_kernel_type(type);
    if (ctx.block().kernel_type() != declared) {
        throw UsageError(EventIds::where(loc) + "KERNEL_TASK_TYPE_DEFAULT declares " +
                         std::string(to_string(declared)) + " but the kernel was launched as " +
                         std::string(to_string(ctx.block().kernel_type())));
    }
}

/// ASSERT(expr) in a kernel: when it does not hold, the run stops with a KernelError naming
/// the line and the expression (on hardware the kernel traps and the runtime reports the
/// failed assertion).
inline void kernel_assert(bool holds, const char* expression, const Loc& loc = Loc::current()) {
    if (holds) return;
    const Block& block = context(loc).block();
    throw KernelError(EventIds::where(loc) + "ASSERT(" + expression + ") failed in " +
                      std::string(to_string(block.core_type())) + " block " +
                      std::to_string(block.block_idx()));
}

}  // namespace npusim::ascendc

#ifndef ASSERT
#define ASSERT(...) ::npusim::ascendc::kernel_assert(static_cast<bool>(__VA_ARGS__), #__VA_ARGS__)
#endif

#define KERNEL_TASK_TYPE_DEFAULT(type) ::npusim::ascendc::declare_kernel_type(type)
/// KERNEL_TASK_TYPE(key, type): the type of the launches with tiling key `key` (checked only
/// in those; TILING_KEY_IS is npusim_ascendc/tiling.h's).
#define KERNEL_TASK_TYPE(key, type) \
    (TILING_KEY_IS(key) ? ::npusim::ascendc::declare_kernel_type(type) : void())

namespace AscendC {

using npusim::ascendc::Loc;

/// Where a local tensor lives (TPosition; QuePosition is the older name).
enum class TPosition : std::uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM,
    TSCM,
    C2PIPE2GM,
    MAX,
};
using QuePosition = TPosition;

/// The memory a position maps to on A2 (static: positions without memory fail to compile).
template <TPosition pos>
constexpr npusim::MemSpace space_of() {
    if constexpr (pos == TPosition::VECIN || pos == TPosition::VECOUT ||
                  pos == TPosition::VECCALC) {
        return npusim::MemSpace::UB;
    } else if constexpr (pos == TPosition::A1 || pos == TPosition::B1 || pos == TPosition::C1) {
        return npusim::MemSpace::L1;
    } else if constexpr (pos == TPosition::C2) {
        return npusim::MemSpace::BT;  // the bias table (BiasTable Buffer on A2)
    } else if constexpr (pos == TPosition::A2) {
        return npusim::MemSpace::L0A;
    } else if constexpr (pos == TPosition::B2) {
        return npusim::MemSpace::L0B;
    } else if constexpr (pos == TPosition::CO1) {
        return npusim::MemSpace::L0C;
    } else {
        static_assert(npusim::ascendc::kAlwaysFalse<decltype(pos)>,
                      "npusim Ascend C: this TPosition (CO2, SPM, SHM, TSCM, C2PIPE2GM) is "
                      "not supported yet");
        return npusim::MemSpace::UB;
    }
}

/// space_of<pos>() for a position known at run time (the static-tensor constructor): a
/// KernelError naming the line for positions without a memory of their own in npusim.
inline npusim::MemSpace space_at(TPosition pos, const Loc& loc) {
    switch (pos) {
        case TPosition::VECIN:
        case TPosition::VECOUT:
        case TPosition::VECCALC:
            return npusim::MemSpace::UB;
        case TPosition::A1:
        case TPosition::B1:
        case TPosition::C1:
            return npusim::MemSpace::L1;
        case TPosition::C2:
            return npusim::MemSpace::BT;
        case TPosition::A2:
            return npusim::MemSpace::L0A;
        case TPosition::B2:
            return npusim::MemSpace::L0B;
        case TPosition::CO1:
            return npusim::MemSpace::L0C;
        default:
            break;
    }
    throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                              "a LocalTensor at this TPosition (GM, CO2, SPM, SHM, TSCM, "
                              "C2PIPE2GM) is not supported yet (docs/ascendc.md)");
}

inline TPosition position_of(npusim::MemSpace space) {
    switch (space) {
        case npusim::MemSpace::UB:
            return TPosition::VECCALC;
        case npusim::MemSpace::L1:
            return TPosition::A1;
        case npusim::MemSpace::L0A:
            return TPosition::A2;
        case npusim::MemSpace::L0B:
            return TPosition::B2;
        case npusim::MemSpace::L0C:
            return TPosition::CO1;
        case npusim::MemSpace::BT:
            return TPosition::C2;
        case npusim::MemSpace::GM:
            return TPosition::GM;
    }
    return TPosition::GM;
}

/// SetFlag / WaitFlag event names: HardEvent::SRC_DST.
enum class HardEvent : std::uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    S_M,
    S_MTE1,
    MTE1_S,
    S_FIX,
    MAX,
};

struct EventPipes {
    npusim::Pipe src = npusim::Pipe::S;
    npusim::Pipe dst = npusim::Pipe::S;
};
constexpr EventPipes pipes_of(HardEvent event) {
    switch (event) {
        case HardEvent::MTE2_MTE1:
            return {npusim::Pipe::MTE2, npusim::Pipe::MTE1};
        case HardEvent::MTE1_MTE2:
            return {npusim::Pipe::MTE1, npusim::Pipe::MTE2};
        case HardEvent::MTE1_M:
            return {npusim::Pipe::MTE1, npusim::Pipe::M};
        case HardEvent::M_MTE1:
            return {npusim::Pipe::M, npusim::Pipe::MTE1};
        case HardEvent::MTE2_V:
            return {npusim::Pipe::MTE2, npusim::Pipe::V};
        case HardEvent::V_MTE2:
            return {npusim::Pipe::V, npusim::Pipe::MTE2};
        case HardEvent::MTE3_V:
            return {npusim::Pipe::MTE3, npusim::Pipe::V};
        case HardEvent::V_MTE3:
            return {npusim::Pipe::V, npusim::Pipe::MTE3};
        case HardEvent::M_V:
            return {npusim::Pipe::M, npusim::Pipe::V};
        case HardEvent::V_M:
            return {npusim::Pipe::V, npusim::Pipe::M};
        case HardEvent::V_V:
            return {npusim::Pipe::V, npusim::Pipe::V};
        case HardEvent::MTE3_MTE1:
            return {npusim::Pipe::MTE3, npusim::Pipe::MTE1};
        case HardEvent::MTE1_MTE3:
            return {npusim::Pipe::MTE1, npusim::Pipe::MTE3};
        case HardEvent::MTE1_V:
            return {npusim::Pipe::MTE1, npusim::Pipe::V};
        case HardEvent::MTE2_M:
            return {npusim::Pipe::MTE2, npusim::Pipe::M};
        case HardEvent::M_MTE2:
            return {npusim::Pipe::M, npusim::Pipe::MTE2};
        case HardEvent::V_MTE1:
            return {npusim::Pipe::V, npusim::Pipe::MTE1};
        case HardEvent::M_FIX:
            return {npusim::Pipe::M, npusim::Pipe::FIX};
        case HardEvent::FIX_M:
            return {npusim::Pipe::FIX, npusim::Pipe::M};
        case HardEvent::MTE3_MTE2:
            return {npusim::Pipe::MTE3, npusim::Pipe::MTE2};
        case HardEvent::MTE2_MTE3:
            return {npusim::Pipe::MTE2, npusim::Pipe::MTE3};
        case HardEvent::S_V:
            return {npusim::Pipe::S, npusim::Pipe::V};
        case HardEvent::V_S:
            return {npusim::Pipe::V, npusim::Pipe::S};
        case HardEvent::S_MTE2:
            return {npusim::Pipe::S, npusim::Pipe::MTE2};
        case HardEvent::MTE2_S:
            return {npusim::Pipe::MTE2, npusim::Pipe::S};
        case HardEvent::S_MTE3:
            return {npusim::Pipe::S, npusim::Pipe::MTE3};
        case HardEvent::MTE3_S:
            return {npusim::Pipe::MTE3, npusim::Pipe::S};
        case HardEvent::MTE2_FIX:
            return {npusim::Pipe::MTE2, npusim::Pipe::FIX};
        case HardEvent::FIX_MTE2:
            return {npusim::Pipe::FIX, npusim::Pipe::MTE2};
        case HardEvent::FIX_S:
            return {npusim::Pipe::FIX, npusim::Pipe::S};
        case HardEvent::M_S:
            return {npusim::Pipe::M, npusim::Pipe::S};
        case HardEvent::FIX_MTE3:
            return {npusim::Pipe::FIX, npusim::Pipe::MTE3};
        case HardEvent::MTE1_FIX:
            return {npusim::Pipe::MTE1, npusim::Pipe::FIX};
        case HardEvent::FIX_MTE1:
            return {npusim::Pipe::FIX, npusim::Pipe::MTE1};
        case HardEvent::FIX_FIX:
            return {npusim::Pipe::FIX, npusim::Pipe::FIX};
        case HardEvent::S_M:
            return {npusim::Pipe::S, npusim::Pipe::M};
        case HardEvent::S_MTE1:
            return {npusim::Pipe::S, npusim::Pipe::MTE1};
        case HardEvent::MTE1_S:
            return {npusim::Pipe::MTE1, npusim::Pipe::S};
        case HardEvent::S_FIX:
            return {npusim::Pipe::S, npusim::Pipe::FIX};
        case HardEvent::MAX:
            break;
    }
    return {};
}

// ---- block identity -----------------------------------------------------------------------
inline std::int64_t GetBlockIdx(Loc loc = Loc::current()) {
    return npusim::ascendc::context(loc).block().block_idx();
}
inline std::int64_t GetBlockNum(Loc loc = Loc::current()) {
    // The vendor's GetBlockNum is the launch's blockDim; on AIV of a 1:2 kernel block_num()
    // counts both AIVs of each group.
    npusim::Block& b = npusim::ascendc::context(loc).block();
    const std::uint32_t ratio = b.kernel_type() == npusim::KernelType::MIX_AIC_1_2 &&
                                        b.core_type() == npusim::CoreType::Vector
                                    ? 2
                                    : 1;
    return b.block_num() / ratio;
}
inline std::int64_t GetSubBlockIdx(Loc loc = Loc::current()) {
    return npusim::ascendc::context(loc).block().sub_block_idx();
}
/// 2 on the AIVs of a MIX_AIC_1_2 kernel, 1 elsewhere.
inline std::int64_t GetTaskRatio(Loc loc = Loc::current()) {
    npusim::Block& b = npusim::ascendc::context(loc).block();
    return b.kernel_type() == npusim::KernelType::MIX_AIC_1_2 &&
                   b.core_type() == npusim::CoreType::Vector
               ? 2
               : 1;
}
/// GetTaskRatio under the vendor's other spelling.
inline std::int64_t GetTaskRation(Loc loc = Loc::current()) {
    return GetTaskRatio(loc);
}

enum CoreTypeId : std::uint8_t { AIC = 1, AIV = 2 };
inline CoreTypeId GetCoreType(Loc loc = Loc::current()) {
    return npusim::ascendc::context(loc).block().core_type() == npusim::CoreType::Cube ? AIC : AIV;
}

}  // namespace AscendC

#define ASCEND_IS_AIC (::AscendC::GetCoreType() == ::AscendC::AIC)
#define ASCEND_IS_AIV (::AscendC::GetCoreType() == ::AscendC::AIV)
#define ASCEND_IS_NOT_AIC (!ASCEND_IS_AIC)
#define ASCEND_IS_NOT_AIV (!ASCEND_IS_AIV)

// ---- block_idx / block_num: the globals single-source kernels read ------------------------
namespace npusim::ascendc {
/// A global that reads the running block's identity where it is used (the cores' scalar
/// threads share globals, so a plain variable cannot hold it).
template <bool index>
struct BlockIdentity {
    operator std::int64_t() const {  // NOLINT(google-explicit-constructor): reads as an integer
        return index ? AscendC::GetBlockIdx() : AscendC::GetBlockNum();
    }
};
}  // namespace npusim::ascendc
inline constexpr npusim::ascendc::BlockIdentity<true> block_idx{};
inline constexpr npusim::ascendc::BlockIdentity<false> block_num{};
inline std::int64_t get_block_idx(npusim::ascendc::Loc loc = npusim::ascendc::Loc::current()) {
    return AscendC::GetBlockIdx(loc);
}
inline std::int64_t get_block_num(npusim::ascendc::Loc loc = npusim::ascendc::Loc::current()) {
    return AscendC::GetBlockNum(loc);
}
