// The Ascend C layer's per-block state and how a kernel written as
//   extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)
// becomes a native npusim::KernelBody.
//
// Ascend C kernels call free functions (GetBlockIdx, DataCopy, SetFlag, ...) that need the
// running block. bind_kernel() wraps the kernel in a body that creates one KernelContext on
// the block's own stack and makes it "current" through a thread_local pointer. The cores'
// scalar threads are SystemC coroutines that may share one OS thread, so another block can
// run (and change the pointer) whenever a native Block call waits; every layer function
// therefore calls the Block through on_block(), which makes its own context current again
// before returning to kernel code. Kernel code that calls the native Block API directly
// must not be mixed with these free functions.
//
// Every layer function takes a defaulted std::source_location and passes it down, so
// findings, traces and errors name the kernel's line, never a line of these headers.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/errors.h"
#include "base/kernel_type.h"
#include "base/tensor.h"
#include "base/types.h"
#include "core/block.h"
#include "npusim_ascendc/gm_pointer.h"

// Compile-time default of the compiler's automatic synchronization (bisheng
// --cce-auto-sync=on|off). Build with -DNPUSIM_ASCENDC_AUTO_SYNC=0 to model code compiled
// with auto-sync off; LaunchOptions::auto_sync overrides it per launch.
#ifndef NPUSIM_ASCENDC_AUTO_SYNC
#define NPUSIM_ASCENDC_AUTO_SYNC 1
#endif

namespace npusim::ascendc {

using Loc = std::source_location;

template <class...>
inline constexpr bool kAlwaysFalse = false;

/// Per launch: how the layer models the vendor toolchain.
struct LaunchOptions {
    /// The compiler's automatic synchronization (PipeBarrier<PIPE_V> between dependent
    /// vector instructions, S <-> V/MTE2/MTE3 flags around scalar accesses).
    bool auto_sync = NPUSIM_ASCENDC_AUTO_SYNC != 0;
    /// The system workspace set before the kernel runs (GetSysWorkSpacePtr), as the launch
    /// of a kernel with a `__kfc_workspace__` parameter does.
    std::optional<std::uint64_t> sys_workspace;
};

/// LaunchOptions for programs started by the harnesses (ACL main, tikicpulib):
/// NPUSIM_AUTO_SYNC=0 in the environment turns the automatic synchronization off.
inline LaunchOptions launch_options_from_environment() {
    LaunchOptions options;
    const char* auto_sync = std::getenv("NPUSIM_AUTO_SYNC");
    if (auto_sync != nullptr && std::string(auto_sync) == "0") options.auto_sync = false;
    return options;
}

/// One memory range an instruction touches.
struct Touch {
    MemSpace space = MemSpace::UB;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    bool write = false;
};

inline bool conflicts(const Touch& a, const Touch& b) {
    return a.space == b.space && (a.write || b.write) && a.address < b.address + b.bytes &&
           b.address < a.address + a.bytes;
}
inline bool conflicts(const std::vector<Touch>& earlier, const std::vector<Touch>& later) {
    for (const Touch& e : earlier) {
        for (const Touch& l : later) {
            if (conflicts(e, l)) return true;
        }
    }
    return false;
}

class KernelContext;
inline thread_local KernelContext* t_current = nullptr;

/// Intra-core event ids (SetFlag/WaitFlag ids 0-7) per pipe pair: which are set and not yet
/// waited for, and which a kernel reserved with AllocEventID. The TQue framework and the
/// automatic synchronization take free ids from the top (7 down: 7 is the framework's id on
/// hardware), AllocEventID and FetchEventID hand out 0-5 (6 is reserved on hardware), so the
/// framework's flags do not collide with ids a kernel hard-codes (EVENT_ID0, ...).
class EventIds {
public:
    static constexpr std::uint32_t kIds = 8;
    static constexpr std::uint32_t kKernelIds = 6;  // AllocEventID / FetchEventID: 0-5

    void on_set(Pipe src, Pipe dst, std::uint32_t id) {
        if (id < kIds) slot(src, dst).set |= bit(id);
    }
    void on_wait(Pipe src, Pipe dst, std::uint32_t id) {
        if (id < kIds) slot(src, dst).set &= static_cast<std::uint8_t>(~bit(id));
    }
    /// A free id for the framework (highest first); KernelError when all 8 are in use.
    std::uint32_t framework_id(Pipe src, Pipe dst, const Loc& loc) {
        const Slot& s = slot(src, dst);
        for (std::uint32_t id = kIds; id-- > 0;) {
            if (((s.set | s.reserved) & bit(id)) == 0) return id;
        }
        throw KernelError(where(loc) + "every event id of " + pair_name(src, dst) +
                          " is set or reserved: the TQue framework has none left");
    }
    /// AllocEventID: the lowest id of 0-5 neither set nor reserved, now reserved; -1 if none.
    std::int32_t reserve(Pipe src, Pipe dst) {
        Slot& s = slot(src, dst);
        for (std::uint32_t id = 0; id < kKernelIds; ++id) {
            if (((s.set | s.reserved) & bit(id)) == 0) {
                s.reserved |= bit(id);
                return static_cast<std::int32_t>(id);
            }
        }
        return -1;
    }
    /// FetchEventID: the lowest id of 0-5 neither reserved nor set, without reserving it.
    std::int32_t peek(Pipe src, Pipe dst) {
        const Slot& s = slot(src, dst);
        for (std::uint32_t id = 0; id < kKernelIds; ++id) {
            if (((s.set | s.reserved) & bit(id)) == 0) return static_cast<std::int32_t>(id);
        }
        return -1;
    }
    void release(Pipe src, Pipe dst, std::uint32_t id) {
        if (id < kIds) slot(src, dst).reserved &= static_cast<std::uint8_t>(~bit(id));
    }

    static std::string where(const Loc& loc) {
        std::string file = loc.file_name();
        const auto slash = file.find_last_of('/');
        if (slash != std::string::npos) file = file.substr(slash + 1);
        return file + ":" + std::to_string(loc.line()) + ": ";
    }
    static std::string pair_name(Pipe src, Pipe dst) {
        return std::string(to_string(src)) + "->" + std::string(to_string(dst));
    }

private:
    struct Slot {
        std::uint8_t set = 0;
        std::uint8_t reserved = 0;
    };
    static std::uint8_t bit(std::uint32_t id) { return static_cast<std::uint8_t>(1U << id); }
    Slot& slot(Pipe src, Pipe dst) {
        return m_slots[static_cast<std::size_t>(src)][static_cast<std::size_t>(dst)];
    }
    std::array<std::array<Slot, kPipeSlots>, kPipeSlots> m_slots{};
};

/// What each agent of the core (the scalar unit and every pipe) knows to have completed,
/// as a count of each pipe's instructions: a small happens-before model of the synchronization
/// the kernel issued, so the automatic synchronization inserts only where nothing orders two
/// dependent instructions yet (the compiler sees the same flags and barriers).
///   - issuing into pipe P passes the scalar unit's knowledge to P;
///   - SetFlag<X_Y> carries X's knowledge plus "all of X's earlier instructions"; WaitFlag
///     joins it into Y;
///   - PipeBarrier<P> makes P know its own earlier instructions; PIPE_ALL and SyncAll make the
///     scalar unit know everything issued.
/// The scalar unit does not know its own stores complete (the checker models a store buffer)
/// until a SetFlag<S_X> or PipeBarrier<PIPE_ALL>.
class SyncKnowledge {
public:
    using Vector = std::array<std::uint64_t, kPipeSlots>;

    /// Counts one instruction of `pipe` and returns its index (1-based).
    std::uint64_t issue(Pipe pipe) {
        join(know(pipe), know(Pipe::S));
        return ++m_count[index(pipe)];
    }
    void set_flag(Pipe src, Pipe dst, std::uint32_t id) {
        join(know(src), know(Pipe::S));
        Vector value = know(src);
        value[index(src)] = m_count[index(src)];
        m_pending[key(src, dst, id)] = value;
    }
    void wait_flag(Pipe src, Pipe dst, std::uint32_t id) {
        const auto it = m_pending.find(key(src, dst, id));
        if (it == m_pending.end()) return;
        join(know(dst), it->second);
        m_pending.erase(it);
    }
    void barrier(Pipe pipe) {
        if (pipe == Pipe::ALL) {
            know(Pipe::S) = m_count;
            return;
        }
        join(know(pipe), know(Pipe::S));
        know(pipe)[index(pipe)] = m_count[index(pipe)];
    }
    void drain_all() { know(Pipe::S) = m_count; }
    /// Does `agent` know that instruction `n` of `pipe` completed?
    bool knows(Pipe agent, Pipe pipe, std::uint64_t n) const {
        return m_know[index(agent)][index(pipe)] >= n;
    }
    /// The knowledge `pipe` will have when the scalar unit issues into it next.
    bool will_know(Pipe agent, Pipe pipe, std::uint64_t n) const {
        return knows(agent, pipe, n) || knows(Pipe::S, pipe, n);
    }

private:
    static std::size_t index(Pipe pipe) { return static_cast<std::size_t>(pipe); }
    static std::uint64_t key(Pipe src, Pipe dst, std::uint32_t id) {
        return (index(src) * kPipeSlots + index(dst)) * 64 + id;
    }
    static void join(Vector& into, const Vector& from) {
        for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
    }
    Vector& know(Pipe pipe) { return m_know[index(pipe)]; }

    std::array<Vector, kPipeSlots> m_know{};
    Vector m_count{};
    std::map<std::uint64_t, Vector> m_pending;
};

/// The compiler's automatic synchronization, modelled on what it inserts on arch 2201
/// (docs/ascendc.md, "Automatic synchronization"): a PipeBarrier<PIPE_V> before a vector
/// instruction that depends on (overlaps, one of them writing) an earlier vector instruction
/// nothing orders it after yet; SetFlag/WaitFlag<X_S> before a scalar access that depends on
/// unordered earlier work of X in {V, MTE2, MTE3}; SetFlag/WaitFlag<S_X> before X work that depends
/// on an unordered earlier scalar access; a PipeBarrier<PIPE_M> before an Mmad that depends on an
/// earlier unordered Mmad (back-to-back accumulation into one L0C tile). Nothing else on the cube
/// side, never V <-> MTE flags. Inserted
/// instructions are marked Transaction::inserted and carry the line of the instruction that needed
/// them.
class AutoSync {
public:
    struct Record {
        Touch touch;
        std::uint64_t index = 0;  // the instruction's index on its pipe
    };

    void enable(bool on) { m_enabled = on; }
    bool enabled() const { return m_enabled; }

    /// What to insert before an instruction of `pipe` with these accesses.
    bool needs_vector_barrier(const SyncKnowledge& k, const std::vector<Touch>& touches) {
        return m_enabled && unordered(k, Pipe::V, m_records[slot(Pipe::V)], Pipe::V, touches);
    }
    bool needs_cube_barrier(const SyncKnowledge& k, const std::vector<Touch>& touches) {
        return m_enabled && unordered(k, Pipe::M, m_records[slot(Pipe::M)], Pipe::M, touches);
    }
    bool needs_scalar_flag(const SyncKnowledge& k, Pipe pipe, const std::vector<Touch>& touches) {
        return m_enabled && (pipe == Pipe::V || pipe == Pipe::MTE2 || pipe == Pipe::MTE3) &&
               unordered(k, pipe, m_records[slot(Pipe::S)], Pipe::S, touches);
    }
    /// Before a scalar access: the pipes whose unordered work it depends on.
    std::vector<Pipe> pipes_before_scalar(const SyncKnowledge& k, const Touch& touch) {
        std::vector<Pipe> pipes;
        if (!m_enabled) return pipes;
        for (Pipe pipe : {Pipe::V, Pipe::MTE2, Pipe::MTE3}) {
            if (unordered(k, Pipe::S, m_records[slot(pipe)], pipe, {touch})) pipes.push_back(pipe);
        }
        return pipes;
    }
    void record(const SyncKnowledge& k, Pipe pipe, std::uint64_t index,
                const std::vector<Touch>& touches) {
        if (pipe != Pipe::V && pipe != Pipe::MTE2 && pipe != Pipe::MTE3 && pipe != Pipe::S &&
            pipe != Pipe::M)
            return;
        auto& list = m_records[slot(pipe)];
        for (const Touch& t : touches) list.push_back(Record{t, index});
        if (list.size() > kPruneAt) prune(k, pipe, list);
        // Bound the cost of very long unsynchronized stretches: forget the oldest half (an
        // approximation: a dependency that far back is then not seen).
        if (list.size() > 8 * kPruneAt) {
            list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(list.size() / 2));
        }
    }

private:
    static constexpr std::size_t kPruneAt = 512;

    static std::size_t slot(Pipe pipe) {
        return pipe == Pipe::V      ? 0
               : pipe == Pipe::MTE2 ? 1
               : pipe == Pipe::MTE3 ? 2
               : pipe == Pipe::M    ? 4
                                    : 3;
    }
    /// Drops the records every agent that could depend on them knows complete.
    static void prune(const SyncKnowledge& k, Pipe pipe, std::vector<Record>& list) {
        std::erase_if(list, [&](const Record& r) {
            if (pipe == Pipe::M) return k.knows(Pipe::M, Pipe::M, r.index);  // only Mmads ask
            for (Pipe agent : {Pipe::S, Pipe::V, Pipe::MTE2, Pipe::MTE3}) {
                if (!k.knows(agent, pipe, r.index)) return false;
            }
            return true;
        });
    }
    static bool unordered(const SyncKnowledge& k, Pipe agent, const std::vector<Record>& earlier,
                          Pipe earlier_pipe, const std::vector<Touch>& touches) {
        for (const Record& r : earlier) {
            if (k.will_know(agent, earlier_pipe, r.index)) continue;
            for (const Touch& t : touches) {
                if (conflicts(r.touch, t)) return true;
            }
        }
        return false;
    }

    bool m_enabled = true;
    std::array<std::vector<Record>, 5> m_records;  // V, MTE2, MTE3, S, M
};

/// The vector mask registers (SetMaskCount / SetMaskNorm / SetVectorMask / ResetMask): in
/// normal mode `bits` enables elements of each repeat (bit i: element i; ResetMask: all), in
/// counter mode `count` is the number of elements an instruction processes in all.
struct VectorMask {
    bool counter = false;
    std::uint64_t low = ~std::uint64_t{0};
    std::uint64_t high = ~std::uint64_t{0};
    std::uint64_t count = 0;
};

/// Everything the layer keeps for one running block.
class KernelContext {
public:
    KernelContext(Block& block, const LaunchOptions& options) : m_block(block) {
        m_auto_sync.enable(options.auto_sync);
    }
    KernelContext(const KernelContext&) = delete;
    KernelContext& operator=(const KernelContext&) = delete;

    Block& block() { return m_block; }
    AutoSync& auto_sync() { return m_auto_sync; }
    EventIds& event_ids() { return m_event_ids; }
    VectorMask& vector_mask() { return m_vector_mask; }
    /// The block's AscendC::TPipe (GetTPipePtr), null before one is constructed.
    void* pipe() const { return m_pipe; }
    void set_pipe(void* pipe) { m_pipe = pipe; }
    /// SetSysWorkspace's GM address, for GetSysWorkSpacePtr (has_sys_workspace: it was set).
    std::uint64_t sys_workspace() const { return m_sys_workspace; }
    bool has_sys_workspace() const { return m_has_sys_workspace; }
    void set_sys_workspace(std::uint64_t address) {
        m_sys_workspace = address;
        m_has_sys_workspace = true;
    }
    /// SetPadValue's register: the padding DataCopyPad writes when isPad is false (bytes 0:
    /// never set, the padding is not written).
    struct PadRegister {
        std::uint64_t bits = 0;
        std::size_t bytes = 0;
    };
    const PadRegister& pad_register() const { return m_pad_register; }
    void set_pad_register(PadRegister value) { m_pad_register = value; }
    /// LoadData 3D's registers (SetFmatrix, SetLoadDataPaddingValue, SetLoadDataBoundary):
    /// what a LoadData with IsResetLoad3dConfig {false, ...} reads (cube_load3d.h).
    struct Load3dRegisters {
        std::uint16_t l1_h = 0, l1_w = 0;
        std::array<std::uint8_t, 4> pads{};
        std::uint64_t pad_bits = 0;
        std::uint32_t boundary = 0;    // bytes of L1 (0: all of it)
        std::uint8_t repeat_time = 1;  // SetLoadDataRepeat
    };
    Load3dRegisters& load3d_registers() { return m_load3d_registers; }
    /// The UB byte address standing for the compare register (CmpMask), reserved at its first
    /// use (compare_select.h); empty before.
    std::optional<std::uint64_t>& cmp_register() { return m_cmp_register; }
    /// Where the last ReduceSum / ReduceMax / ReduceMin wrote its result, for the
    /// GetReduceRepeat*Spr registers (reduce.h).
    struct ReduceResult {
        Op op = Op::ReduceSum;
        npusim::LocalTensor<std::uint8_t> at{};  // the result's bytes (value[, index])
        DType dtype = DType::F32;
        bool index = false;  // calIndex: the position follows the value
    };
    std::optional<ReduceResult>& last_reduce() { return m_last_reduce; }
    /// The queue elements the last MrgSort with ifExhaustedSuspension took (GetMrgSortResult).
    std::optional<std::array<std::uint16_t, 4>>& mrg_sort_result() { return m_mrg_sort_result; }
    /// WaitPreBlock / NotifyNextBlock: this block's NotifyNextBlock calls so far, per GM
    /// workspace (reset by InitDetermineComputeWorkspace).
    std::map<std::uint64_t, std::int32_t>& determine_rounds() { return m_determine_rounds; }
    /// The UB {address, bytes} the advanced APIs reserved for their internal temp buffer
    /// (adv_support.h); {0, 0} until one is called without a sharedTmpBuffer.
    std::pair<std::uint64_t, std::uint64_t>& adv_tmp() { return m_adv_tmp; }

    // Synchronization as every layer path issues it: the native call, the event-id
    // bookkeeping and the happens-before model in one place.
    void set_flag(Pipe src, Pipe dst, std::uint32_t id, const Loc& loc, bool inserted = false) {
        if (inserted) {
            m_block.inserted_set_flag(src, dst, id, loc);
        } else {
            m_block.set_flag(src, dst, id, loc);
        }
        m_event_ids.on_set(src, dst, id);
        m_knowledge.set_flag(src, dst, id);
    }
    void wait_flag(Pipe src, Pipe dst, std::uint32_t id, const Loc& loc, bool inserted = false) {
        if (inserted) {
            m_block.inserted_wait_flag(src, dst, id, loc);
        } else {
            m_block.wait_flag(src, dst, id, loc);
        }
        m_event_ids.on_wait(src, dst, id);
        m_knowledge.wait_flag(src, dst, id);
    }
    void pipe_barrier(Pipe pipe, const Loc& loc, bool inserted = false) {
        if (inserted) {
            m_block.inserted_pipe_barrier(pipe, loc);
        } else {
            m_block.pipe_barrier(pipe, loc);
        }
        m_knowledge.barrier(pipe);
    }
    /// A hard SyncAll drained every pipe of the core.
    void drained() { m_knowledge.drain_all(); }

    /// Before an instruction of `pipe` (V, MTE2, MTE3, or a cube pipe) that makes `touches`:
    /// inserts what the automatic synchronization needs, then counts the instruction.
    void before_pipe_work(Pipe pipe, const std::vector<Touch>& touches, const Loc& loc) {
        if (pipe == Pipe::V && m_auto_sync.needs_vector_barrier(m_knowledge, touches)) {
            pipe_barrier(Pipe::V, loc, true);
        }
        if (pipe == Pipe::M && m_auto_sync.needs_cube_barrier(m_knowledge, touches)) {
            pipe_barrier(Pipe::M, loc, true);
        }
        if (m_auto_sync.needs_scalar_flag(m_knowledge, pipe, touches)) {
            insert_flag_pair(Pipe::S, pipe, loc);
        }
        const std::uint64_t index = m_knowledge.issue(pipe);
        m_auto_sync.record(m_knowledge, pipe, index, touches);
    }
    /// Before a scalar access (GetValue / SetValue).
    void before_scalar(const Touch& touch, const Loc& loc) {
        for (Pipe pipe : m_auto_sync.pipes_before_scalar(m_knowledge, touch)) {
            insert_flag_pair(pipe, Pipe::S, loc);
        }
        // A load has its value when the scalar unit goes on; only stores stay in flight.
        const std::uint64_t index = m_knowledge.issue(Pipe::S);
        if (touch.write) m_auto_sync.record(m_knowledge, Pipe::S, index, {touch});
    }

private:
    void insert_flag_pair(Pipe src, Pipe dst, const Loc& loc) {
        const std::uint32_t id = m_event_ids.framework_id(src, dst, loc);
        set_flag(src, dst, id, loc, true);
        wait_flag(src, dst, id, loc, true);
    }

    VectorMask m_vector_mask;
    Block& m_block;
    AutoSync m_auto_sync;
    EventIds m_event_ids;
    SyncKnowledge m_knowledge;
    std::uint64_t m_sys_workspace = 0;
    bool m_has_sys_workspace = false;
    PadRegister m_pad_register;
    Load3dRegisters m_load3d_registers;
    std::optional<std::uint64_t> m_cmp_register;
    std::optional<ReduceResult> m_last_reduce;
    std::optional<std::array<std::uint16_t, 4>> m_mrg_sort_result;
    std::map<std::uint64_t, std::int32_t> m_determine_rounds;
    std::pair<std::uint64_t, std::uint64_t> m_adv_tmp{0, 0};
    void* m_pipe = nullptr;
};

/// The running block's context; UsageError outside a kernel bound with bind_kernel().
inline KernelContext& context(const Loc& loc = Loc::current()) {
    if (t_current == nullptr) {
        throw UsageError(EventIds::where(loc) +
                         "an Ascend C API was called outside a kernel launched through "
                         "npusim::ascendc::bind_kernel");
    }
    return *t_current;
}

/// Makes `ctx` current again when it goes out of scope: a native Block call may have let
/// another block's coroutine run.
class Resume {
public:
    explicit Resume(KernelContext& ctx) : m_ctx(ctx) {}
    ~Resume() { t_current = &m_ctx; }
    Resume(const Resume&) = delete;
    Resume& operator=(const Resume&) = delete;

private:
    KernelContext& m_ctx;
};

/// GM_ADDR for a host-side GM buffer of the simulator whose GM is `gm`
/// (`sim.global_memory()`; npusim_ascendc/gm_pointer.h).
template <Element T>
std::uint8_t* gm_addr(const GlobalMemory& gm, GlobalTensor<T> tensor) {
    return gm_pointer(gm, tensor.address);
}
/// GM_ADDR for a host-side GM buffer of the implied simulator: the one running on this
/// thread, else the one created last of those alive. A pointer of another simulator's GM is
/// a KernelError where the kernel uses it.
template <Element T>
std::uint8_t* gm_addr(GlobalTensor<T> tensor, Loc loc = Loc::current()) {
    return gm_pointer(tensor.address, loc);
}

/// A native kernel body that runs an Ascend C kernel function with these arguments.
template <class Kernel, class... Args>
KernelBody bind_kernel(Kernel kernel, LaunchOptions options, Args... args) {
    return [kernel, options, args...](Block& block) {
        KernelContext ctx(block, options);
        t_current = &ctx;
        if (options.sys_workspace) ctx.set_sys_workspace(*options.sys_workspace);
        struct Clear {
            ~Clear() { t_current = nullptr; }  // no dangling context after the block
        } clear;
        kernel(args...);
    };
}
template <class Kernel, class... Args>
KernelBody bind_kernel(Kernel kernel, Args... args) {
    return bind_kernel(kernel, LaunchOptions{}, args...);
}

}  // namespace npusim::ascendc
