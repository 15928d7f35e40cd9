// Places the blocks of launched kernels on cores. A block of a mixed kernel is a group (one
// AIC with its one or two AIVs) and runs on a physical cluster: AIC c with AIV 2c (and 2c+1).
// A kernel's blocks are placed in index order on the lowest free cores as cores become free;
// blocks beyond the physical cores run in later rounds, as on hardware.
//
// Which ready kernel goes first is the placement policy (SchedulerOptions::placement):
//   LaunchOrder  kernels in the order they became ready, each placing every block that fits;
//   RoundRobin   one placement unit per ready kernel in turn, kernels ordered by (stream id,
//                readiness); the turn continues after the kernel served last;
//   Random       a seeded pseudo-random ready kernel places one unit at a time (splitmix64
//                on SchedulerOptions::seed: the same seed, the same order);
//   HoldLast     round robin, but a kernel places the unit that completes its start only
//                when no ready kernel can place one that keeps a unit back: the cores fill
//                with partly started kernels, the worst case for barriers (it deadlocks
//                exactly where the exact verdict says "reachable", docs/deadlocks.md).
//                Kernels become ready one cycle after launch at the earliest, so those
//                launched in one cycle are placed together.
// A placement unit is one block (group) of a Normal kernel, or all blocks of a Batch kernel.
//
// Batch kernels (ScheduleMode::Batch) start all their blocks at once or wait. While a Batch
// kernel waits, no kernel that became ready after it may take a core of a type it needs
// (vector, cube, or both for a mixed kernel): the batch kernel cannot be starved by a stream
// of later small kernels. Kernels that became ready earlier keep placing their blocks. A
// Batch kernel with more blocks than the chip can ever hold at once is refused at launch
// (UsageError, see check_launch). Details: docs/multicore.md, "Scheduling".
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ai_core.h"
#include "core/chip_resources.h"
#include "core/kernel_launch.h"
#include "sim/engine/run_result.h"
#include "sync/deadlock/wait_state.h"

namespace npusim {

struct SchedulerOptions {
    PlacementPolicy placement = PlacementPolicy::LaunchOrder;
    std::uint64_t seed = 1;
    /// Launch-queue ticks (0: a launched kernel is ready at once). With a period, a kernel
    /// launched at t becomes ready at the first tick phase + k * period >= t, so kernels of
    /// several streams launched within one period are placed together, interleaved by the
    /// policy. Schedule exploration (sim/study/schedule_exploration.h) draws period and phase.
    /// Ignored by the SystemC-free constructor.
    Cycle dispatch_period = 0;
    Cycle dispatch_phase = 0;
    /// Launches of a run with a full result row (SimOptions::launch_rows); later ones are
    /// summed per kernel name.
    std::uint64_t launch_rows = kDefaultLaunchRows;
};

class Scheduler final : public WorkSource {
public:
    Scheduler(ChipResources& chip, std::vector<AiCore*> vector_cores,
              std::vector<AiCore*> cube_cores, SchedulerOptions options = {});
    /// Without SystemC cores (unit tests, what-if planning): `assign` is called where a core
    /// would be given its block; report finished blocks with block_finished(type, index, ...).
    using AssignFn = std::function<void(CoreType, std::uint32_t core, const BlockAssignment&)>;
    Scheduler(ChipResources& chip, std::uint32_t vector_cores, std::uint32_t cube_cores,
              AssignFn assign, SchedulerOptions options = {});

    /// Called (on the simulation thread) when a kernel's last block has finished.
    void on_kernel_finished(std::function<void(const KernelResult&)> callback) {
        m_kernel_finished = std::move(callback);
    }

    /// Throws UsageError for a launch this chip can never run: a Batch kernel with more
    /// blocks than cores (clusters) of the shape it needs. Call it where the user enqueues
    /// the kernel; launch() calls it too.
    void check_launch(const KernelLaunch& kernel) const;
    /// Blocks (groups) of `type` the chip can hold at once: its cores or whole clusters.
    std::uint32_t capacity(KernelType type) const;

    /// Queues a kernel that became ready at `now`. Returns its id.
    std::uint32_t launch(KernelLaunch kernel, Cycle now);
    /// Places every block that fits on the free cores now, in the policy's order.
    void dispatch();
    void block_finished(AiCore& core, const BlockAssignment& work, Cycle end) override;
    void block_finished(CoreType type, std::uint32_t core, const BlockAssignment& work, Cycle end);

    bool all_finished() const;
    /// Blocks of unfinished kernels that never got a core.
    std::vector<StuckBlock> unstarted_blocks() const;
    /// Who holds which core, and what waits for one and why.
    SchedulerState state() const;
    /// Results of the kernels launched since the last take_results(), without forgetting:
    /// the rows (first launch_rows launches), then the live kernels past them.
    std::vector<KernelResult> peek_results() const;
    /// The latest end of the kernels launched since the last take_results() (0: none), without
    /// copying their results.
    Cycle latest_kernel_end() const;
    /// Results of the kernels launched since the last call; forgets them, and restarts the
    /// RoundRobin turn and the Random sequence (each run places as on a new simulator).
    /// Rows of the first SchedulerOptions::launch_rows launches; the later ones summed
    /// into `summaries` (with the first summed kernel id and the launch count, if asked).
    std::vector<KernelResult> take_results(std::vector<KernelSummary>* summaries = nullptr,
                                           std::uint32_t* first_summarized_id = nullptr,
                                           std::uint64_t* launches = nullptr);
    /// After an aborted run: every core is free again.
    void reset_after_abort();

private:
    // A kernel that has not finished yet. Finished kernels leave the active list (their
    // result stays in m_results), so a placement looks at live kernels only, whatever the
    // program's length.
    struct Entry {
        std::unique_ptr<KernelLaunch> kernel;
        std::unique_ptr<KernelRuntime> runtime;
        std::size_t result = 0;  // index in m_results, or kSummed: its row is `row`
        // Past SchedulerOptions::launch_rows: its row, summed when it ends (held apart so
        // that moving an entry moves a pointer).
        std::unique_ptr<KernelResult> row;
        std::uint32_t next_group = 0;
        std::uint32_t finished_cores = 0;  // sub-blocks finished
        Cycle ready_at = 0;                // SchedulerOptions::dispatch_period
        Cycle blocks_not_before = 0;       // launch + ChipConfig::kernel_start_cycles
        bool unplaced() const { return next_group < kernel->blocks; }
    };
    using Active = std::list<Entry>;
    struct Held {
        const KernelLaunch* kernel = nullptr;
        std::uint32_t block = 0;
        std::uint32_t group = 0;
        Cycle since = 0;
    };
    std::vector<std::optional<Held>>& holders(CoreType type) {
        return type == CoreType::Vector ? m_vector_held : m_cube_held;
    }
    /// Places one unit of `entry` (a block, or every block of a Batch kernel) if it fits.
    bool place_unit(Entry& entry);
    bool place(Entry& entry);
    void start_on(CoreType type, std::uint32_t core, Entry& entry, std::uint32_t block,
                  std::uint32_t sub, std::uint32_t group);
    /// Free places for one block of `type` now: free cores, or free whole clusters.
    std::uint32_t free_slots(KernelType type) const;
    /// The unplaced Batch kernel ready before `entry` that needs a core type it needs.
    const Entry* blocking_batch(const Entry& entry) const;
    WaitingBlocks waiting_of(const Entry& entry) const;
    /// Active kernels that may place now (blocks left, ready, no earlier unplaced batch kernel
    /// needing a core type they need), in readiness order.
    std::vector<Entry*> candidates();
    std::uint64_t next_random();
    /// The launch-queue tick at or after `now` (SchedulerOptions::dispatch_period).
    Cycle next_tick(Cycle now) const;
    Cycle dispatch_period() const;  // SchedulerOptions::dispatch_period, at least 1 for HoldLast
    bool ready(const Entry& entry) const { return entry.ready_at <= m_now; }

    ChipResources& m_chip;
    std::vector<AiCore*> m_vector;
    std::vector<AiCore*> m_cube;
    std::vector<std::optional<Held>> m_vector_held;
    std::vector<std::optional<Held>> m_cube_held;
    std::uint32_t m_free_vector = 0;  // cores not held, per type
    std::uint32_t m_free_cube = 0;
    AssignFn m_assign;
    Active m_active;  // unfinished kernels in readiness (launch) order
    std::unordered_map<const KernelLaunch*, Active::iterator> m_by_launch;
    std::vector<Entry> m_retired;         // finished, freed at the next launch (cores just let go)
    std::vector<KernelResult> m_results;  // the first launch_rows kernels of this run
    static constexpr std::size_t kSummed = ~std::size_t{0};
    KernelResult& row_of(Entry& entry) {
        return entry.result == kSummed ? *entry.row : m_results[entry.result];
    }
    /// Adds a launch past launch_rows to its kernel name's summary.
    void sum_up(const KernelResult& r);
    std::vector<KernelSummary> m_summaries;  // of this run, by name in order of first launch
    std::unordered_map<std::string, std::size_t> m_summary_of;
    std::uint32_t m_first_summarized_id = 0;
    std::uint64_t m_launches = 0;  // of this run
    Cycle m_summed_end = 0;        // the latest end of a summed kernel
    std::uint32_t m_next_id = 0;
    SchedulerOptions m_options;
    std::uint64_t m_random_state;
    Cycle m_now = 0;  // the latest launch or block end seen
    // RoundRobin: the (stream, id) of the kernel served last.
    std::optional<std::pair<std::uint32_t, std::uint32_t>> m_last_served;
    std::function<void(const KernelResult&)> m_kernel_finished;
};

}  // namespace npusim
