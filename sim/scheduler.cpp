#include "sim/scheduler.h"

#include <algorithm>

namespace npusim {

namespace {
KernelInfo info_of(const KernelLaunch& k) { return {k.id, k.name, k.blocks, k.core_type}; }
}  // namespace

std::uint32_t Scheduler::launch(KernelLaunch kernel, Cycle now) {
    kernel.id = m_next_id++;
    Entry entry;
    entry.result.id = kernel.id;
    entry.result.name = kernel.name;
    entry.result.blocks = kernel.blocks;
    entry.result.core_type = kernel.core_type;
    entry.result.start = now;
    entry.result.end = now;
    entry.kernel = std::make_unique<KernelLaunch>(std::move(kernel));
    for (TransactionObserver* o : m_observers) o->on_kernel_start(info_of(*entry.kernel), now);
    const std::uint32_t id = entry.kernel->id;
    m_entries.push_back(std::move(entry));
    return id;
}

bool Scheduler::next_block(CoreType type, std::uint32_t /*core*/, BlockAssignment& out) {
    for (Entry& entry : m_entries) {
        if (entry.kernel->core_type != type || entry.next_block >= entry.kernel->blocks) continue;
        out.kernel = entry.kernel.get();
        out.block_idx = entry.next_block++;
        return true;
    }
    return false;
}

void Scheduler::block_finished(const BlockAssignment& work, Cycle end) {
    for (Entry& entry : m_entries) {
        if (entry.kernel.get() != work.kernel) continue;
        KernelResult& r = entry.result;
        ++r.blocks_finished;
        r.end = std::max(r.end, end);
        if (r.completed()) {
            for (TransactionObserver* o : m_observers) o->on_kernel_end(info_of(*entry.kernel), r.end);
        }
        return;
    }
}

bool Scheduler::all_finished() const {
    return std::all_of(m_entries.begin(), m_entries.end(),
                       [](const Entry& e) { return e.result.completed(); });
}

std::vector<StuckBlock> Scheduler::unstarted_blocks() const {
    std::vector<StuckBlock> blocks;
    for (const Entry& entry : m_entries) {
        for (std::uint32_t b = entry.next_block; b < entry.kernel->blocks; ++b) {
            blocks.push_back({entry.kernel->name, b, entry.kernel->core_type, -1, "",
                              "waits for a free " +
                                  std::string(entry.kernel->core_type == CoreType::Vector
                                                  ? "vector" : "cube") +
                                  " core, but every core is held by a blocked block"});
        }
    }
    return blocks;
}

std::vector<KernelResult> Scheduler::take_results() {
    std::vector<KernelResult> results;
    results.reserve(m_entries.size());
    for (const Entry& entry : m_entries) results.push_back(entry.result);
    // Bodies may still be referenced by nothing now: every block finished or was aborted.
    m_entries.clear();
    return results;
}

}  // namespace npusim
