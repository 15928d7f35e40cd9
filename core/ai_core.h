// One AI core as a SystemC module. Its scalar unit is an SC_THREAD that runs blocks of
// kernels: the kernel's C++ code executes on that thread and each API call issues an
// instruction into a pipe at the scalar unit's simulated time.
//
// Why pipes are not SystemC processes: pipe timing within a core is fully determined by
// the scalar unit's issue stream (in-order queues, flags, barriers), so each instruction is
// timed when it is issued (or when the WaitFlag it is stalled behind resolves), and only
// its data effects are deferred to their simulated times (memory/effect_queue.h). The
// scalar unit runs ahead of SystemC time by at most one quantum and synchronizes whenever
// it must observe the rest of the chip (scalar loads, block end, blocking waits). This is
// temporal decoupling in the TLM-2.0 loosely-timed sense, and it is what makes a simulated
// instruction cheaper than a SystemC context switch.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "base/pipe_table.h"
#include "core/block.h"
#include "core/chip_resources.h"
#include "core/kernel_launch.h"
#include "memory/local_memory.h"
#include "pipes/cost_model.h"
#include "pipes/flag_table.h"
#include "pipes/pipe_timeline.h"

namespace npusim {

/// Why a block cannot make progress (reported when the whole chip is stuck).
struct StuckInfo {
    std::uint32_t kernel_id = 0;
    std::string kernel;
    std::uint32_t block = 0;
    std::string where;  // kernel source location of the blocking call
    // Computed when the report is made (a barrier's missing blocks change while it waits).
    std::function<std::string()> reason;
};

struct PipeStatistics {
    Cycle busy_cycles = 0;
    std::uint64_t instructions = 0;
};

class AiCore final : public sc_core::sc_module {
public:
    AiCore(const sc_core::sc_module_name& name, ChipResources& chip, WorkSource& work,
           CoreType type, std::uint32_t index, std::size_t stack_bytes);
    ~AiCore() override;

    CoreType type() const { return m_type; }
    std::uint32_t index() const { return m_index; }

    // ---- statistics and state, read by the simulator between runs ----------------------
    PipeStatistics pipe_statistics(Pipe pipe) const;
    std::uint64_t blocks_run() const { return m_blocks_run; }
    const std::optional<StuckInfo>& stuck() const { return m_stuck; }
    void reset_statistics();
    /// Gives an idle core its next block (the scheduler's call) and wakes it.
    void assign(const BlockAssignment& work);
    /// Wakes an idle core (to see shutdown).
    void wake() { m_wake.notify(sc_core::SC_ZERO_TIME); }
    /// After an aborted run: drop stalled instructions and pipe state.
    void reset_after_abort();

    // ---- backend of the kernel API (core/block.h); called on this core's thread --------
    void issue(const Request& request, const Loc& loc);
    std::uint64_t allocate_local(MemSpace space, std::uint64_t bytes, const Loc& loc);
    void scalar_load(const Operand& where, void* value, const Loc& loc);
    void scalar_store(const Operand& where, const void* value, const Loc& loc);
    void hard_sync_all(SyncAllScope scope, const Loc& loc);
    void soft_sync_all(const Operand& gm_workspace, const Operand& ub_workspace,
                       std::uint32_t used_cores, const Loc& loc);
    void cross_core_set_flag(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id, const Loc& loc);
    void cross_core_wait_flag(std::uint32_t flag_id, const Loc& loc);
    Cycle local_time() const { return m_local_time; }
    std::uint32_t block_num() const {
        return blocks_on(m_current.kernel->type, m_type, m_current.kernel->blocks);
    }

private:
    struct InFlight;
    struct BlockAborted {};

    void scalar_thread();
    void run_block(const BlockAssignment& work);
    void finish_block();

    InFlight* acquire();
    void release(InFlight* item);
    InFlight* begin(Pipe pipe, Op op, const Loc& loc);
    InFlight* begin_scalar_access(Op op, const Operand& where, const Loc& loc);
    [[noreturn]] void rule_error(const Transaction& tx, const std::string& what) const;
    [[noreturn]] void block_stuck(const Loc& loc, std::string reason);
    /// Blocks until `ready()` holds, waking on the kernel's sync event; while blocked the core
    /// reports `reason` if the chip gets stuck.
    void block_until(const std::function<bool()>& ready, const Loc& loc,
                     std::function<std::string()> reason);
    void drain_pipes(InFlight* f, const Loc& loc, const char* what);
    void post_cross_core(const Transaction& tx, Cycle at);
    void publish_arrival(const Transaction& tx);

    /// align 0: the space's DataCopy alignment (32 bytes, 512 on L0).
    void validate_local(const Transaction& tx, const Operand& operand, std::uint64_t count,
                        const char* role, std::uint64_t align = 0) const;
    void validate_global(const Transaction& tx, const Operand& operand, std::uint64_t count,
                         const char* role) const;
    void prepare_copy(InFlight& f, const Request& request);
    void prepare_vector(InFlight& f, const Request& request);
    void prepare_mmad(InFlight& f, const Request& request);

    void issue_to_pipe(InFlight* f, const Loc& loc);
    bool try_schedule(InFlight* f);
    void complete_zero_length(InFlight* f, Cycle at);
    void resolve(Pipe pipe);
    void scalar_set_flag(InFlight* f);
    void scalar_wait_flag(InFlight* f, const Loc& loc);
    void barrier_all(InFlight* f, const Loc& loc);

    void apply_effect(InFlight& f, std::uint32_t phase);
    void read_bytes(const MemAccess& access, std::byte* out);
    void write_bytes(const MemAccess& access, const std::byte* in);

    Cycle now_cycles() const;
    void sync_to(Cycle t);
    void maybe_sync() {
        if (m_local_time >= m_sync_deadline) sync_to(m_local_time);
    }
    void check_abort() const {
        if (m_chip.abort) throw BlockAborted{};
    }
    PipeTimeline& timeline(Pipe pipe) { return m_pipes[static_cast<std::size_t>(pipe)]; }
    std::deque<InFlight*>& stalled(Pipe pipe) { return m_stalled[static_cast<std::size_t>(pipe)]; }

    ChipResources& m_chip;
    WorkSource& m_work;
    CoreType m_type;
    std::uint32_t m_index;
    LocalMemory m_local;
    FlagTable m_flags;
    std::vector<PipeTimeline> m_pipes;                        // indexed by pipe id
    std::array<std::deque<InFlight*>, kPipeSlots> m_stalled;  // behind an unresolved WaitFlag
    std::vector<std::unique_ptr<InFlight>> m_pool;
    std::vector<InFlight*> m_free;
    sc_core::sc_event m_wake;

    BlockAssignment m_current;
    std::optional<BlockAssignment> m_next;
    bool m_internal = false;  // issuing a library sync primitive's own instructions
    std::map<std::uint64_t, std::int32_t> m_soft_epoch;  // per GM workspace, this block
    std::uint64_t m_serial = 0;
    Cycle m_local_time = 0;
    Cycle m_sync_deadline = 0;
    Cycle m_scalar_drained = 0;  // last scalar store visible
    std::array<std::uint64_t, kMemSpaces> m_alloc_top{};
    std::uint64_t m_blocks_run = 0;
    std::uint64_t m_scalar_instructions = 0;
    std::optional<StuckInfo> m_stuck;
};

}  // namespace npusim
