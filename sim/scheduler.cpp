#include "sim/scheduler.h"

#include <algorithm>

#include "sync/kernel_sync.h"

namespace npusim {

namespace {
KernelInfo info_of(const KernelLaunch& k) {
    const CoreType primary = cube_cores_per_block(k.type) > 0 ? CoreType::Cube : CoreType::Vector;
    return {k.id, k.name, k.blocks, primary, k.type};
}
std::uint32_t cores_per_block(KernelType type) {
    return vector_cores_per_block(type) + cube_cores_per_block(type);
}
}  // namespace

Scheduler::Scheduler(ChipResources& chip, std::vector<AiCore*> vector_cores,
                     std::vector<AiCore*> cube_cores, SchedulerOptions options)
    : m_chip(chip),
      m_vector(std::move(vector_cores)),
      m_cube(std::move(cube_cores)),
      m_vector_busy(m_vector.size(), false),
      m_cube_busy(m_cube.size(), false),
      m_options(options) {}

std::uint32_t Scheduler::launch(KernelLaunch kernel, Cycle now) {
    kernel.id = m_next_id++;
    Entry entry;
    entry.kernel = std::make_unique<KernelLaunch>(std::move(kernel));
    entry.runtime =
        std::make_unique<KernelRuntime>(*entry.kernel, std::make_unique<KernelSync>(*entry.kernel));
    KernelResult& r = entry.result;
    r.id = entry.kernel->id;
    r.name = entry.kernel->name;
    r.blocks = entry.kernel->blocks;
    r.type = entry.kernel->type;
    r.core_type = info_of(*entry.kernel).core_type;
    r.start = r.end = now;
    for (TransactionObserver* o : m_chip.observers) o->on_kernel_start(info_of(*entry.kernel), now);
    const std::uint32_t id = entry.kernel->id;
    m_entries.push_back(std::move(entry));
    return id;
}

void Scheduler::start_on(AiCore& core, Entry& entry, std::uint32_t block, std::uint32_t sub,
                         std::uint32_t group) {
    (core.type() == CoreType::Vector ? m_vector_busy : m_cube_busy)[core.index()] = true;
    ++m_chip.busy_cores;
    core.assign({entry.kernel.get(), entry.runtime.get(), block, sub, group});
}

bool Scheduler::place(Entry& entry) {
    const KernelType type = entry.kernel->type;
    const std::uint32_t vectors = vector_cores_per_block(type);
    const std::uint32_t cubes = cube_cores_per_block(type);
    const std::uint32_t g = entry.next_group;
    if (cubes == 0) {  // one AIV per block: the lowest free vector core
        for (std::size_t v = 0; v < m_vector.size(); ++v) {
            if (m_vector_busy[v]) continue;
            start_on(*m_vector[v], entry, g, 0, g);
            return true;
        }
        return false;
    }
    for (std::size_t c = 0; c < m_cube.size(); ++c) {  // a whole cluster must be free
        if (m_cube_busy[c]) continue;
        bool free = true;
        for (std::uint32_t sub = 0; sub < vectors; ++sub) {
            const std::size_t v = 2 * c + sub;
            free = free && v < m_vector.size() && !m_vector_busy[v];
        }
        if (!free) continue;
        start_on(*m_cube[c], entry, g, 0, g);
        for (std::uint32_t sub = 0; sub < vectors; ++sub) {
            start_on(*m_vector[2 * c + sub], entry, vectors * g + sub, sub, g);
        }
        return true;
    }
    return false;
}

void Scheduler::dispatch() {
    for (Entry& entry : m_entries) {
        while (entry.next_group < entry.kernel->blocks && place(entry)) ++entry.next_group;
    }
}

void Scheduler::block_finished(AiCore& core, const BlockAssignment& work, Cycle end) {
    (core.type() == CoreType::Vector ? m_vector_busy : m_cube_busy)[core.index()] = false;
    --m_chip.busy_cores;
    for (Entry& entry : m_entries) {
        if (entry.kernel.get() != work.kernel) continue;
        KernelResult& r = entry.result;
        r.end = std::max(r.end, end);
        if (++entry.finished_cores == r.blocks * cores_per_block(entry.kernel->type)) {
            r.blocks_finished = r.blocks;
            for (TransactionObserver* o : m_chip.observers) {
                o->on_kernel_end(info_of(*entry.kernel), r.end);
            }
            if (m_kernel_finished) m_kernel_finished(r);
        }
        break;
    }
    dispatch();
}

bool Scheduler::all_finished() const {
    return std::all_of(m_entries.begin(), m_entries.end(),
                       [](const Entry& e) { return e.result.completed(); });
}

std::vector<StuckBlock> Scheduler::unstarted_blocks() const {
    std::vector<StuckBlock> blocks;
    for (const Entry& entry : m_entries) {
        const KernelType type = entry.kernel->type;
        const bool cluster = cube_cores_per_block(type) > 0 && vector_cores_per_block(type) > 0;
        const CoreType core = cube_cores_per_block(type) > 0 ? CoreType::Cube : CoreType::Vector;
        const std::string what = cluster ? "cluster (AIC + AIV)"
                                         : (core == CoreType::Vector ? "vector core" : "cube core");
        for (std::uint32_t g = entry.next_group; g < entry.kernel->blocks; ++g) {
            // Name the block as a block and the cores as cores: block numbers can exceed
            // the core indices (block 48 on a chip whose vector cores are 0-47).
            const std::size_t cores = (core == CoreType::Vector ? m_vector : m_cube).size();
            blocks.push_back({entry.kernel->name, g, core, -1, "",
                              "never started: waits for a free " + what + "; all " +
                                  std::to_string(cores) + " " +
                                  (core == CoreType::Vector ? "vector" : "cube") + " cores (0-" +
                                  std::to_string(cores == 0 ? 0 : cores - 1) +
                                  ") are held by blocks that cannot finish"});
        }
    }
    return blocks;
}

std::vector<KernelResult> Scheduler::take_results() {
    std::vector<KernelResult> results = peek_results();
    m_entries.clear();
    return results;
}

std::vector<KernelResult> Scheduler::peek_results() const {
    std::vector<KernelResult> results;
    results.reserve(m_entries.size());
    for (const Entry& entry : m_entries) {
        KernelResult r = entry.result;
        if (!r.completed()) {
            r.blocks_finished = entry.finished_cores / cores_per_block(entry.kernel->type);
        }
        results.push_back(r);
    }
    return results;
}

void Scheduler::reset_after_abort() {
    std::fill(m_vector_busy.begin(), m_vector_busy.end(), false);
    std::fill(m_cube_busy.begin(), m_cube_busy.end(), false);
    m_chip.busy_cores = 0;
}

}  // namespace npusim
