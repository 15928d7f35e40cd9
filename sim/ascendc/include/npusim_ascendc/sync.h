// Explicit synchronization: SetFlag / WaitFlag<HardEvent>, PipeBarrier<pipe_t>, SyncAll,
// CrossCoreSetFlag / CrossCoreWaitFlag, SetScheduleMode, event ids of the TPipe, and the
// atomic copy-out controls.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

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

// ---- flags in GM between blocks: IBSet / IBWait, WaitPreBlock / NotifyNextBlock -------------
// Each is a flag in a 32-byte GM slot, set and polled with real copies and scalar loads
// (npusim::Block::gm_flag): a set first drains every pipe of the block, so what the block did
// before is in GM when a waiter sees the flag; the checker orders the two (GmFlagSet /
// GmFlagWait) and a wait no block can satisfy any more is reported as a deadlock at its line.
namespace detail {
/// A timed no-op: one scalar cycle.
inline void cache_no_op(const Loc& loc) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_work(1, loc);
}
/// A scalar memory fence (npusim::Block::scalar_fence), after the automatic synchronization's
/// pending work of the scalar unit.
inline void scalar_fence(npusim::Op op, std::uint64_t address, std::uint64_t bytes,
                         const Loc& loc) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_fence(op, address, bytes, loc);
}
inline void gm_flag(bool set, const GlobalTensor<std::int32_t>& gm, std::uint64_t slot,
                    const LocalTensor<std::int32_t>& ub, std::int32_t value, std::string name,
                    const Loc& loc) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().gm_flag(set, npusim::GlobalTensor<std::int32_t>{gm.address() + slot * 32, 8},
                        ub.native().sub(0, 8), value, std::move(name), loc);
    ctx.drained();  // the primitive drained every pipe of the core
}
inline std::uint64_t ib_slot(std::int32_t blockIdx, std::int32_t eventID, const char* api,
                             const Loc& loc) {
    const std::uint32_t blocks = npusim::ascendc::context(loc).block().block_num();
    if (blockIdx < 0 || static_cast<std::uint32_t>(blockIdx) >= blocks || eventID < 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + api + ": blockIdx " +
                                  std::to_string(blockIdx) + " must be in [0, " +
                                  std::to_string(blocks) + ") and eventID " +
                                  std::to_string(eventID) + " >= 0");
    }
    return std::uint64_t{static_cast<std::uint32_t>(eventID)} * blocks +
           static_cast<std::uint32_t>(blockIdx);
}
inline std::string ib_name(const char* api, std::int32_t blockIdx, std::int32_t eventID) {
    return std::string(api) + "(block " + std::to_string(blockIdx) + ", event " +
           std::to_string(eventID) + ")";
}
}  // namespace detail

/// IBSet(gm, ub, blockIdx, eventID): sets the flag of (blockIdx, eventID) to 1 once everything
/// this block issued before is complete. The flag is the 32-byte slot eventID x blocks +
/// blockIdx of gmWorkspace (blocks = GetBlockNum() of the vector cores; the vendor's minimum
/// size: blocks x 32 x eventID_max + blockIdx_max x 32 + 32 bytes), zero before the launch.
template <bool isAIVOnly = true>
void IBSet(const GlobalTensor<std::int32_t>& gmWorkspace,
           const LocalTensor<std::int32_t>& ubWorkspace, std::int32_t blockIdx,
           std::int32_t eventID, Loc loc = Loc::current()) {
    detail::gm_flag(true, gmWorkspace, detail::ib_slot(blockIdx, eventID, "IBSet", loc),
                    ubWorkspace, 1, detail::ib_name("IBSet", blockIdx, eventID), loc);
}
/// IBWait(gm, ub, blockIdx, eventID): waits until the flag of (blockIdx, eventID) is set.
template <bool isAIVOnly = true>
void IBWait(const GlobalTensor<std::int32_t>& gmWorkspace,
            const LocalTensor<std::int32_t>& ubWorkspace, std::int32_t blockIdx,
            std::int32_t eventID, Loc loc = Loc::current()) {
    detail::gm_flag(false, gmWorkspace, detail::ib_slot(blockIdx, eventID, "IBWait", loc),
                    ubWorkspace, 1, detail::ib_name("IBWait", blockIdx, eventID), loc);
}

/// Deterministic computation in block order: InitDetermineComputeWorkspace(gm, ub) writes 0
/// into this block's 32-byte slot of gm (blocks x 32 bytes); then in each round, WaitPreBlock
/// waits until the previous block (block 0: the last block, from round 1 on) has called
/// NotifyNextBlock that many times, and NotifyNextBlock writes this block's count into its
/// slot. So the blocks take turns 0, 1, ..., n - 1, 0, 1, ... between the two calls.
inline void InitDetermineComputeWorkspace(GlobalTensor<std::int32_t>& gmWorkspace,
                                          LocalTensor<std::int32_t>& ubWorkspace,
                                          Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    const std::uint32_t me = ctx.block().block_idx();
    ctx.determine_rounds()[gmWorkspace.address()] = 0;
    detail::gm_flag(true, gmWorkspace, me, ubWorkspace, 0,
                    "InitDetermineComputeWorkspace (block " + std::to_string(me) + ")", loc);
}
inline void WaitPreBlock(GlobalTensor<std::int32_t>& gmWorkspace,
                         LocalTensor<std::int32_t>& ubWorkspace, Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    const std::uint32_t me = ctx.block().block_idx();
    const std::uint32_t blocks = ctx.block().block_num();
    const auto round = ctx.determine_rounds().find(gmWorkspace.address());
    if (round == ctx.determine_rounds().end()) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "WaitPreBlock before InitDetermineComputeWorkspace on this "
                                  "workspace");
    }
    const std::int32_t want = me == 0 ? round->second : round->second + 1;
    if (want == 0 || blocks == 1) {  // block 0 goes first: its pipes drain all the same
        npusim::ascendc::Resume resume(ctx);
        ctx.pipe_barrier(npusim::Pipe::ALL, loc);
        return;
    }
    detail::gm_flag(false, gmWorkspace, me == 0 ? blocks - 1 : me - 1, ubWorkspace, want,
                    "WaitPreBlock (block " + std::to_string(me) + ", round " +
                        std::to_string(round->second) + ")",
                    loc);
}
inline void NotifyNextBlock(GlobalTensor<std::int32_t>& gmWorkspace,
                            LocalTensor<std::int32_t>& ubWorkspace, Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    const std::uint32_t me = ctx.block().block_idx();
    const auto round = ctx.determine_rounds().find(gmWorkspace.address());
    if (round == ctx.determine_rounds().end()) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "NotifyNextBlock before InitDetermineComputeWorkspace on this "
                                  "workspace");
    }
    ++round->second;
    detail::gm_flag(true, gmWorkspace, me, ubWorkspace, round->second,
                    "NotifyNextBlock (block " + std::to_string(me) + ")", loc);
}

/// GroupBarrier's execution unit for its messages (A2: MTE3_MODE only).
enum class PipeMode : std::uint8_t { SCALAR_MODE = 0, MTE3_MODE = 1, MAX };

/// GroupBarrier<MTE3_MODE>(workspace, arriveSize, waitSize): waiters (Wait(j)) continue once
/// every one of the arriveSize arrivers (Arrive(i)) has arrived, as often as it is used. The
/// workspace is waitSize x 512 bytes of zeroed GM (512-byte aligned); npusim keeps arriver i's
/// count in its 32-byte slot i (so arriveSize <= 16 x waitSize), each block's object counts its
/// own uses, and its flags go through 32 bytes of UB the object allocates (the vendor reserves
/// the last 1600 bytes of UB). Each Arrive / Wait is a flag in GM (npusim::Block::gm_flag).
template <PipeMode pipeMode>
class GroupBarrier {
public:
    GroupBarrier(GM_ADDR groupWorkspace, std::uint32_t arriveSizeIn, std::uint32_t waitSizeIn,
                 Loc loc = Loc::current())
        : m_arrive(arriveSizeIn), m_wait(waitSizeIn) {
        static_assert(pipeMode == PipeMode::MTE3_MODE,
                      "npusim Ascend C: GroupBarrier supports PipeMode::MTE3_MODE only (as on A2)");
        const std::uint64_t address = npusim::ascendc::gm_address(groupWorkspace, loc);
        if (address % 512 != 0 || arriveSizeIn == 0 || waitSizeIn == 0 ||
            arriveSizeIn > 16 * std::uint64_t{waitSizeIn}) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "GroupBarrier: the workspace must be 512-byte aligned and "
                                      "1 <= arriveSize <= 16 x waitSize (npusim's slots)");
        }
        m_workspace.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(groupWorkspace),
                                    std::uint64_t{waitSizeIn} * 128);
        npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
        npusim::ascendc::Resume resume(ctx);
        m_ub = LocalTensor<std::int32_t>(
            ctx.block().alloc<std::int32_t>(npusim::MemSpace::UB, 8, loc), TPosition::VECCALC);
    }
    void Arrive(std::uint32_t arriveIndex, Loc loc = Loc::current()) {
        check(arriveIndex, m_arrive, "Arrive", loc);
        ++m_uses;
        detail::gm_flag(true, m_workspace, arriveIndex, m_ub, m_uses,
                        "GroupBarrier::Arrive(" + std::to_string(arriveIndex) + ")", loc);
    }
    void Wait(std::uint32_t waitIndex, Loc loc = Loc::current()) {
        check(waitIndex, m_wait, "Wait", loc);
        ++m_uses;
        for (std::uint32_t i = 0; i < m_arrive; ++i) {
            detail::gm_flag(false, m_workspace, i, m_ub, m_uses,
                            "GroupBarrier::Wait(" + std::to_string(waitIndex) + ") for arriver " +
                                std::to_string(i),
                            loc);
        }
    }
    std::uint64_t GetWorkspaceLen() const { return std::uint64_t{m_wait} * 512; }

private:
    static void check(std::uint32_t index, std::uint32_t size, const char* what, const Loc& loc) {
        if (index >= size) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "GroupBarrier::" + what + "(" + std::to_string(index) +
                                      ") of a group of " + std::to_string(size));
        }
    }
    GlobalTensor<std::int32_t> m_workspace;
    LocalTensor<std::int32_t> m_ub;
    std::uint32_t m_arrive;
    std::uint32_t m_wait;
    std::int32_t m_uses = 0;
};

// ---- kernels of one stream (task sync) -------------------------------------------------------
// SetNextTaskStart lets the next kernel of the stream start before this one ends, and
// WaitPreTaskEnd waits until the previous kernel has ended. npusim starts a stream's next
// kernel only after the previous one ended, so both already hold: timed no-ops (one scalar
// cycle each).
inline void SetNextTaskStart(Loc loc = Loc::current()) {
    detail::cache_no_op(loc);
}
inline void WaitPreTaskEnd(Loc loc = Loc::current()) {
    detail::cache_no_op(loc);
}

// ---- scalar GM access without the data cache ------------------------------------------------
/// ReadGmByPassDCache / WriteGmByPassDCache: one scalar load / store of GM (as GetValue /
/// SetValue of a GlobalTensor at the address, with the automatic synchronization in front);
/// the store writes through, which the checker sees as the store and a clean of its bytes.
template <class T>
T ReadGmByPassDCache(__gm__ T* address, Loc loc = Loc::current()) {
    GlobalTensor<T> tensor;
    tensor.SetGlobalBuffer(address, 1);
    return tensor.GetValue(0, loc);
}
template <class T>
void WriteGmByPassDCache(__gm__ T* address, T value, Loc loc = Loc::current()) {
    GlobalTensor<T> tensor;
    tensor.SetGlobalBuffer(address, 1);
    tensor.SetValue(0, value, loc);
    detail::scalar_fence(npusim::Op::CacheClean, tensor.address(), sizeof(T), loc);
}
/// DataSyncBarrier<MemDsbT>: the scalar unit waits until its earlier stores are done. A
/// scalar GM store issued after it publishes them to a block that polls it (docs/checker.md,
/// "Flags polled in GM").
enum class MemDsbT : std::uint8_t { ALL = 0, DDR = 1, UB = 2, SEQ = 3 };
template <MemDsbT type = MemDsbT::ALL>
void DataSyncBarrier(Loc loc = Loc::current()) {
    detail::scalar_fence(npusim::Op::DataSyncBarrier, 0, 0, loc);
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

// ---- data cache maintenance ----------------------------------------------------------------
// npusim's scalar unit has no data cache: its GM loads and stores go to GM when they complete.
// A clean costs one scalar cycle and orders nothing by itself (the automatic synchronization
// or the kernel's flags order scalar accesses against the DMA pipes); the checker takes it as
// the point where the block's cached scalar GM stores in its line(s) become visible to other
// blocks (a store made visible can publish work to a block that polls it).
inline constexpr std::uint64_t kDataCacheLine = 64;

/// The raw intrinsic dcci(gmAddress, entire[, type]): entire 0 cleans the address's line.
template <class T>
void dcci(T* address, std::uint64_t entire, Loc loc = Loc::current()) {
    const std::uint64_t at = npusim::ascendc::gm_address(address, loc);
    detail::scalar_fence(npusim::Op::CacheClean, entire != 0 ? 0 : at & ~(kDataCacheLine - 1),
                         entire != 0 ? 0 : kDataCacheLine, loc);
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
    const bool whole = entire == CacheLine::ENTIRE_DATA_CACHE;
    detail::scalar_fence(npusim::Op::CacheClean,
                         whole ? 0 : tensor.address() & ~(kDataCacheLine - 1),
                         whole ? 0 : kDataCacheLine, loc);
}
template <class T>
void DataCachePreload(const GlobalTensor<T>& tensor, std::int32_t offset,
                      Loc loc = Loc::current()) {
    (void)tensor;
    (void)offset;
    detail::cache_no_op(loc);
}

}  // namespace AscendC
