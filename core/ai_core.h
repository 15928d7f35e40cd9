// One AI core as a SystemC module. Its scalar unit is an SC_THREAD that runs blocks of
// kernels: the kernel's C++ code executes on that thread and each API call issues an
// instruction into a pipe at the scalar unit's simulated time.
//
// The module wires its components together:
//   core/instruction_decoder.h   hardware rules: request in, transaction out
//   pipes/core_pipes.h           the pipes, their queues and the flags between them
//   memory/local_allocator.h     Block::alloc()
//   memory/memory_router.h       where an access's bytes live (GM or a local memory)
//   sync/kernel_sync.h           SyncAll and cross-core flags, through core/sync_port.h
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

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "base/pipe_table.h"
#include "core/block.h"
#include "core/chip_resources.h"
#include "core/gm_poll_watch.h"
#include "core/instruction_decoder.h"
#include "core/kernel_launch.h"
#include "core/sync_port.h"
#include "memory/local_allocator.h"
#include "memory/local_memory.h"
#include "memory/memory_router.h"
#include "pipes/core_pipes.h"

namespace npusim {

/// Why a block cannot make progress (reported when the whole chip is stuck).
struct StuckInfo {
    std::uint32_t kernel_id = 0;
    std::string kernel;
    std::uint32_t block = 0;
    std::string where;  // kernel source location of the blocking call
    // Computed when the report is made (a barrier's missing blocks change while it waits).
    std::function<std::string()> reason;
    std::function<StuckWait()> wait;  // the same, structured (may be empty: Unknown)
};

struct PipeStatistics {
    Cycle busy_cycles = 0;
    std::uint64_t instructions = 0;
};

class AiCore final : public sc_core::sc_module, public CorePort, private PipeClient {
public:
    AiCore(const sc_core::sc_module_name& name, ChipResources& chip, WorkSource& work,
           CoreType type, std::uint32_t index, std::size_t stack_bytes);
    ~AiCore() override;

    CoreType type() const { return m_type; }
    std::uint32_t index() const { return m_index; }

    // ---- statistics and state, read by the simulator between runs ----------------------
    PipeStatistics pipe_statistics(Pipe pipe) const;
    /// GM bytes this core read since the last reset, and the part its L2 hits served.
    const L2Statistics& l2_statistics() const { return m_pipes.l2_statistics(); }
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
    void issue(const Request& request, const Loc& loc) override;
    std::uint64_t allocate_local(MemSpace space, std::uint64_t bytes, const Loc& loc);
    void scalar_load(const Operand& where, void* value, const Loc& loc) override;
    void scalar_store(const Operand& where, const void* value, const Loc& loc);
    void scalar_fence(Op op, std::uint64_t address, std::uint64_t bytes, const Loc& loc);
    void hard_sync_all(SyncAllScope scope, const Loc& loc);
    void soft_sync_all(const Operand& gm_workspace, const Operand& ub_workspace,
                       std::uint32_t used_cores, const Loc& loc);
    void cross_core_set_flag(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id, const Loc& loc);
    void cross_core_wait_flag(std::uint32_t flag_id, const Loc& loc);
    void gm_flag(const GmFlagCall& call, const Loc& loc);

    // ---- CorePort: what the synchronization library may do on this core ---------------
    const BlockAssignment& assignment() const override { return m_current; }
    CoreType core_type() const override { return m_type; }
    std::uint32_t block_num() const override {
        return blocks_on(m_current.kernel->type, m_type, m_current.kernel->blocks);
    }
    const InstructionDecoder& decoder() const override { return m_decoder; }
    ChipResources& chip() override { return m_chip; }
    Transaction begin_record(Pipe pipe, Op op, const Loc& loc) override;
    void scalar_issue(Transaction& tx) override;
    void publish(const Transaction& tx) override { m_chip.publish(tx); }
    void publish_arrival(const Transaction& tx) override;
    void set_internal(bool internal) override { m_internal = internal; }
    void drain_pipes(const Loc& loc, const char* what) override;
    Cycle local_time() const override { return m_local_time; }
    void advance_to(Cycle t) override { m_local_time = std::max(m_local_time, t); }
    void sync_to_local() override { sync_to(m_local_time); }
    void maybe_sync() override {
        if (m_local_time >= m_sync_deadline) sync_to(m_local_time);
    }
    void block_until(const std::function<bool()>& ready, const Loc& loc,
                     std::function<std::string()> reason, std::function<StuckWait()> wait) override;
    [[noreturn]] void block_stuck(const Loc& loc, std::string reason, StuckWait wait) override;
    [[noreturn]] void block_stuck(const Loc& loc, std::string reason) {
        block_stuck(loc, std::move(reason), StuckWait{});
    }
    /// A WaitFlag (intra-core) that can never be satisfied, as a StuckWait.
    static StuckWait flag_wait(const Transaction& wait_flag);
    void notify_kernel() override { m_current.runtime->sync_event.notify(sc_core::SC_ZERO_TIME); }

private:
    struct InFlight;
    struct BlockAborted {};

    void scalar_thread();
    void clear_stale_stack_poison() const;
    [[noreturn]] void abort_block();  // unwinds the blocked block (BlockAborted)
    void run_block(const BlockAssignment& work);
    void finish_block();

    InFlight* acquire();
    void release(InFlight* item);
    /// A pooled record for an instruction that goes through a pipe or has a deferred effect.
    InFlight* begin(Pipe pipe, Op op, const Loc& loc);
    /// Resets `tx` and stamps its identity (kernel, block, core, next serial, location).
    void fill_record(Transaction& tx, Pipe pipe, Op op, const Loc& loc);

    void issue_to_pipe(InFlight* f, const Loc& loc);
    void scalar_set_flag(InFlight* f);
    void scalar_wait_flag(InFlight* f, const Loc& loc);
    void barrier_all(InFlight* f, const Loc& loc);
    /// The first pipe that waits for a SetFlag that is never issued, if any.
    const PipeInstruction* first_stalled_pipe_head() const;

    // PipeClient
    void on_data_started(PipeInstruction& instruction) override;
    void on_zero_length_done(PipeInstruction& instruction) override;
    void on_cross_core_set(const Transaction& tx, Cycle at) override;

    void apply_effect(InFlight& f, std::uint32_t phase);

    Cycle now_cycles() const;
    void sync_to(Cycle t);
    void check_abort() const {
        if (m_chip.abort) throw BlockAborted{};
    }

    ChipResources& m_chip;
    WorkSource& m_work;
    CoreType m_type;
    std::uint32_t m_index;
    LocalMemory m_local;
    LocalAllocator m_allocator;
    MemoryRouter m_memory;
    InstructionDecoder m_decoder;
    CorePipes m_pipes;
    std::vector<std::unique_ptr<InFlight>> m_pool;
    std::vector<InFlight*> m_free;
    std::vector<std::byte> m_atomic_gm;  // GM's bytes under an atomic copy, at its commit
    sc_core::sc_event m_wake;

    BlockAssignment m_current;
    std::optional<BlockAssignment> m_next;
    bool m_internal = false;  // issuing a library sync primitive's own instructions
    std::uint64_t m_serial = 0;
    Cycle m_local_time = 0;
    Cycle m_sync_deadline = 0;
    Cycle m_scalar_drained = 0;  // last scalar store visible
    std::uint64_t m_blocks_run = 0;
    std::uint64_t m_scalar_instructions = 0;
    std::optional<StuckInfo> m_stuck;
    GmPollWatch m_poll;  // the block polls GM with its scalar loads (core/gm_poll_watch.h)
    std::size_t m_stack_bytes = 0;        // the scalar thread's stack (ASan bookkeeping)
    const char* m_block_frame = nullptr;  // run_block's frame (ASan bookkeeping)
};

}  // namespace npusim
