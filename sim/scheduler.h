// Places the blocks of launched kernels on cores. A block of a mixed kernel is a group (one
// AIC with its one or two AIVs) and runs on a physical cluster: AIC c with AIV 2c (and 2c+1).
// Blocks are placed in index order as cores become free; blocks beyond the physical cores
// run in later rounds, as on hardware.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/ai_core.h"
#include "core/chip_resources.h"
#include "core/kernel_launch.h"
#include "sim/run_result.h"

namespace npusim {

struct SchedulerOptions {
    PlacementPolicy placement = PlacementPolicy::LaunchOrder;
    std::uint64_t seed = 1;
};

class Scheduler final : public WorkSource {
public:
    Scheduler(ChipResources& chip, std::vector<AiCore*> vector_cores,
              std::vector<AiCore*> cube_cores, SchedulerOptions options = {});

    /// Called (on the simulation thread) when a kernel's last block has finished.
    void on_kernel_finished(std::function<void(const KernelResult&)> callback) {
        m_kernel_finished = std::move(callback);
    }

    /// Queues a kernel that starts at `now`. Returns its id.
    std::uint32_t launch(KernelLaunch kernel, Cycle now);
    /// Places every block that fits on the free cores now.
    void dispatch();
    void block_finished(AiCore& core, const BlockAssignment& work, Cycle end) override;

    bool all_finished() const;
    /// Blocks of unfinished kernels that never got a core.
    std::vector<StuckBlock> unstarted_blocks() const;
    /// Results of the kernels launched since the last take_results(), without forgetting.
    std::vector<KernelResult> peek_results() const;
    /// Results of the kernels launched since the last call; forgets them.
    std::vector<KernelResult> take_results();
    /// After an aborted run: every core is free again.
    void reset_after_abort();

private:
    struct Entry {
        std::unique_ptr<KernelLaunch> kernel;
        std::unique_ptr<KernelRuntime> runtime;
        KernelResult result;
        std::uint32_t next_group = 0;
        std::uint32_t finished_cores = 0;  // sub-blocks finished
    };
    bool place(Entry& entry);
    void start_on(AiCore& core, Entry& entry, std::uint32_t block, std::uint32_t sub,
                  std::uint32_t group);

    ChipResources& m_chip;
    std::vector<AiCore*> m_vector;
    std::vector<AiCore*> m_cube;
    std::vector<bool> m_vector_busy;
    std::vector<bool> m_cube_busy;
    std::vector<Entry> m_entries;
    std::uint32_t m_next_id = 0;
    SchedulerOptions m_options;
    std::function<void(const KernelResult&)> m_kernel_finished;
};

}  // namespace npusim
