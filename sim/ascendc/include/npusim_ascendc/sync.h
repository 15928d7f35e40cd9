// Explicit synchronization: SetFlag / WaitFlag<HardEvent>, PipeBarrier<pipe_t>, SyncAll,
// CrossCoreSetFlag / CrossCoreWaitFlag, SetScheduleMode, event ids of the TPipe, and the
// atomic copy-out controls.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/pipe.h"

namespace npusim::ascendc {
/// SetAtomicAdd / Max / Min / Type: the block's atomic mode for later copies to GM.
template <class T>
void set_atomic(AtomicOp op, Loc loc) {
    // The types the vendor documents for SetAtomicType on Atlas A2 / A3.
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half> ||
                      std::is_same_v<T, bfloat16> || std::is_same_v<T, std::int32_t> ||
                      std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int8_t>,
                  "npusim Ascend C: the atomic type must be float, half, bfloat16_t, int32_t, "
                  "int16_t or int8_t");
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    ctx.block().set_atomic<T>(op, loc);
}
}  // namespace npusim::ascendc

namespace AscendC {

template <HardEvent event>
void SetFlag(std::int32_t id, Loc loc = Loc::current()) {
    static_assert(event != HardEvent::MAX, "SetFlag<HardEvent::MAX> is not an event");
    constexpr EventPipes pipes = pipes_of(event);
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.set_flag(pipes.src, pipes.dst, static_cast<std::uint32_t>(id), loc);
}
template <HardEvent event>
void WaitFlag(std::int32_t id, Loc loc = Loc::current()) {
    static_assert(event != HardEvent::MAX, "WaitFlag<HardEvent::MAX> is not an event");
    constexpr EventPipes pipes = pipes_of(event);
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.wait_flag(pipes.src, pipes.dst, static_cast<std::uint32_t>(id), loc);
}

/// PipeBarrier<pipe>(); PIPE_S is rejected at compile time as the hardware has no such barrier.
template <pipe_t pipe>
void PipeBarrier(Loc loc = Loc::current()) {
    static_assert(pipe != PIPE_S,
                  "PipeBarrier<PIPE_S> is not allowed: the scalar unit is ordered "
                  "by hardware");
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.pipe_barrier(npusim::ascendc::to_pipe(pipe), loc);
}

/// Hard SyncAll. isAIVOnly = true: only the kernel's AIV blocks take part.
template <bool isAIVOnly = true>
void SyncAll(Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().sync_all(isAIVOnly ? npusim::SyncAllScope::Vector : npusim::SyncAllScope::All, loc);
    ctx.drained();  // the barrier drained every pipe of this core
}
/// Soft SyncAll through a zeroed GM workspace (GetBlockNum() x 32 bytes) and a UB workspace.
/// usedCores 0: every block.
template <bool isAIVOnly = true>
void SyncAll(const GlobalTensor<std::int32_t>& gmWorkspace,
             const LocalTensor<std::int32_t>& ubWorkspace, std::int32_t usedCores = 0,
             Loc loc = Loc::current()) {
    static_assert(isAIVOnly, "the soft SyncAll(gm, ub, n) is for vector cores only");
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    const std::uint32_t cores =
        usedCores > 0 ? static_cast<std::uint32_t>(usedCores) : ctx.block().block_num();
    npusim::GlobalTensor<std::int32_t> gm = gmWorkspace.native();
    if (gm.count == 0) gm.count = std::uint64_t{cores} * 8;
    ctx.block().sync_all(gm, ubWorkspace.native(), cores, loc);
}

/// CrossCoreSetFlag<mode, pipe>(flagId) / CrossCoreWaitFlag(flagId): modes 0-2, ids 0-15
/// (npusim::kCrossCoreFlagIds). A kernel that calls hard SyncAll must not use 11-14
/// (npusim::kHardSyncAllFlagIds): the native engine raises a KernelError naming both lines.
template <std::uint8_t modeId, pipe_t pipe>
void CrossCoreSetFlag(std::uint16_t flagId, Loc loc = Loc::current()) {
    static_assert(modeId <= 2, "CrossCoreSetFlag: modes 0, 1 and 2 are supported");
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().cross_core_set_flag(modeId, npusim::ascendc::to_pipe(pipe), flagId, loc);
}
inline void CrossCoreWaitFlag(std::uint16_t flagId, Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().cross_core_wait_flag(flagId, loc);
}

/// SetScheduleMode(1) asks for batch scheduling (every block starts at once), 0 for normal.
/// npusim takes the schedule mode from the launch (LaunchSpec::schedule_mode,
/// npusim::acl::set_schedule_mode), so inside a kernel the call checks that they agree: a
/// UsageError naming the line otherwise.
inline void SetScheduleMode(std::uint32_t mode, Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    const npusim::ScheduleMode wanted =
        mode == 1 ? npusim::ScheduleMode::Batch : npusim::ScheduleMode::Normal;
    if (mode > 1 || ctx.block().schedule_mode() != wanted) {
        throw npusim::UsageError(
            npusim::ascendc::EventIds::where(loc) + "SetScheduleMode(" + std::to_string(mode) +
            ") disagrees with the launch's schedule mode (" +
            (ctx.block().schedule_mode() == npusim::ScheduleMode::Batch ? "batch" : "normal") +
            "): npusim takes it from LaunchSpec::schedule_mode");
    }
}

// ---- TPipe event ids ------------------------------------------------------------------------
template <HardEvent event>
std::int32_t TPipe::AllocEventID(Loc loc) {
    constexpr EventPipes pipes = pipes_of(event);
    const std::int32_t id = npusim::ascendc::context(loc).event_ids().reserve(pipes.src, pipes.dst);
    if (id < 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "AllocEventID: every event id of this HardEvent is in use");
    }
    return id;
}
template <HardEvent event>
void TPipe::ReleaseEventID(std::int32_t id, Loc loc) {
    constexpr EventPipes pipes = pipes_of(event);
    npusim::ascendc::context(loc).event_ids().release(pipes.src, pipes.dst,
                                                      static_cast<std::uint32_t>(id));
}
inline std::int32_t TPipe::FetchEventID(HardEvent event, Loc loc) {
    const EventPipes pipes = pipes_of(event);
    const std::int32_t id = npusim::ascendc::context(loc).event_ids().peek(pipes.src, pipes.dst);
    if (id < 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "FetchEventID: every event id of this HardEvent is in use");
    }
    return id;
}

// ---- atomic copy-out --------------------------------------------------------------------
// Later DataCopy / DataCopyPad / Fixpipe transfers to GM (from UB or L0C) combine with what GM
// holds (Block::set_atomic). GM is not cleared first: zero it yourself when you accumulate.
template <class T>
void SetAtomicAdd(Loc loc = Loc::current()) {
    npusim::ascendc::set_atomic<T>(npusim::AtomicOp::Add, loc);
}
template <class T>
void SetAtomicMax(Loc loc = Loc::current()) {
    npusim::ascendc::set_atomic<T>(npusim::AtomicOp::Max, loc);
}
template <class T>
void SetAtomicMin(Loc loc = Loc::current()) {
    npusim::ascendc::set_atomic<T>(npusim::AtomicOp::Min, loc);
}
/// Changes the element type of the atomic mode, keeping its operation.
template <class T>
void SetAtomicType(Loc loc = Loc::current()) {
    npusim::ascendc::set_atomic<T>(npusim::ascendc::context(loc).block().atomic_mode(), loc);
}
inline void DisableDmaAtomic(Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().clear_atomic(loc);
}
/// The older spelling of DisableDmaAtomic.
inline void SetAtomicNone(Loc loc = Loc::current()) {
    DisableDmaAtomic(loc);
}

// ---- data cache maintenance: timed no-ops ---------------------------------------------------
// npusim's scalar unit has no data cache: its GM loads and stores go to GM and are visible when
// they complete, so what dcci / DataCacheCleanAndInvalid guarantee on hardware (a scalar GM
// store reaches GM before a later DMA reads it; a later scalar load sees what a DMA wrote)
// always holds, and DataCachePreload has nothing to warm. Each costs one scalar cycle and
// orders nothing else: the automatic synchronization (or the kernel's flags) still orders the
// scalar accesses against the DMA pipes.
namespace detail {
inline void cache_no_op(const Loc& loc) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_work(1, loc);
}
}  // namespace detail

/// The raw intrinsic dcci(gmAddress, entire[, type]).
template <class T>
void dcci(T* address, std::uint64_t entire, Loc loc = Loc::current()) {
    (void)address;
    (void)entire;
    detail::cache_no_op(loc);
}
template <class T>
void dcci(T* address, std::uint64_t entire, std::uint64_t type, Loc loc = Loc::current()) {
    (void)type;
    dcci(address, entire, loc);
}
enum class CacheLine : std::uint8_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class DcciDst : std::uint8_t { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <class T, CacheLine entire = CacheLine::SINGLE_CACHE_LINE,
          DcciDst dst = DcciDst::CACHELINE_OUT>
void DataCacheCleanAndInvalid(const GlobalTensor<T>& tensor, Loc loc = Loc::current()) {
    (void)tensor;
    detail::cache_no_op(loc);
}
template <class T>
void DataCachePreload(const GlobalTensor<T>& tensor, std::int32_t offset,
                      Loc loc = Loc::current()) {
    (void)tensor;
    (void)offset;
    detail::cache_no_op(loc);
}

}  // namespace AscendC
