// Places the blocks of launched kernels on cores. Blocks are handed out in index order to
// cores of the kernel's type as they become free; blocks beyond the physical core count run
// in later rounds, as on hardware.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "core/kernel_launch.h"
#include "core/transaction.h"
#include "sim/run_result.h"

namespace npusim {

class Scheduler final : public WorkSource {
public:
    explicit Scheduler(const std::vector<TransactionObserver*>& observers)
        : m_observers(observers) {}

    /// Queues a kernel to start at `now`. Returns its id.
    std::uint32_t launch(KernelLaunch kernel, Cycle now);
    bool next_block(CoreType type, std::uint32_t core, BlockAssignment& out) override;
    void block_finished(const BlockAssignment& work, Cycle end) override;

    /// Kernels launched since the last take_results(), with their progress.
    std::vector<KernelResult> take_results();
    bool all_finished() const;
    /// Blocks of unfinished kernels that never got a core.
    std::vector<StuckBlock> unstarted_blocks() const;

private:
    struct Entry {
        std::unique_ptr<KernelLaunch> kernel;
        KernelResult result;
        std::uint32_t next_block = 0;
    };
    const std::vector<TransactionObserver*>& m_observers;
    std::vector<Entry> m_entries;
    std::uint32_t m_next_id = 0;
};

}  // namespace npusim
