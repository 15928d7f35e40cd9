// Dynamic processes: a launch-queue tick (SchedulerOptions::dispatch_period) is a spawned wait.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "sim/engine/scheduler.h"

#include <algorithm>

#include "base/errors.h"
#include "core/process_guard.h"
#include "sync/kernel_sync.h"

namespace npusim {

namespace {
KernelInfo info_of(const KernelLaunch& k) {
    const CoreType primary = cube_cores_per_block(k.type) > 0 ? CoreType::Cube : CoreType::Vector;
    KernelInfo info;
    info.identity() = k.identity();
    info.core_type = primary;
    return info;
}
std::uint32_t cores_per_block(KernelType type) {
    return vector_cores_per_block(type) + cube_cores_per_block(type);
}
bool is_cluster(KernelType type) {
    return cube_cores_per_block(type) > 0 && vector_cores_per_block(type) > 0;
}
CoreType primary_core(KernelType type) {
    return cube_cores_per_block(type) > 0 ? CoreType::Cube : CoreType::Vector;
}
/// "vector core", "cube core" or "cluster (AIC + AIV)", with an "s" for n != 1 if `plural`.
std::string shape_name(KernelType type, bool plural) {
    if (is_cluster(type)) return plural ? "clusters (AIC + AIV)" : "cluster (AIC + AIV)";
    const std::string core = primary_core(type) == CoreType::Vector ? "vector core" : "cube core";
    return plural ? core + "s" : core;
}
bool share_core_type(KernelType a, KernelType b) {
    return (vector_cores_per_block(a) > 0 && vector_cores_per_block(b) > 0) ||
           (cube_cores_per_block(a) > 0 && cube_cores_per_block(b) > 0);
}
}  // namespace

std::string_view to_string(WaitReason reason) {
    switch (reason) {
        case WaitReason::NoFreeCore:
            return "no free core";
        case WaitReason::BatchWaiting:
            return "batch waiting";
        case WaitReason::BehindBatch:
            return "behind a batch kernel";
    }
    return "?";
}

Scheduler::Scheduler(ChipResources& chip, std::vector<AiCore*> vector_cores,
                     std::vector<AiCore*> cube_cores, SchedulerOptions options)
    : m_chip(chip),
      m_vector(std::move(vector_cores)),
      m_cube(std::move(cube_cores)),
      m_vector_held(m_vector.size()),
      m_cube_held(m_cube.size()),
      m_free_vector(static_cast<std::uint32_t>(m_vector.size())),
      m_free_cube(static_cast<std::uint32_t>(m_cube.size())),
      m_options(options),
      m_random_state(options.seed) {}

Scheduler::Scheduler(ChipResources& chip, std::uint32_t vector_cores, std::uint32_t cube_cores,
                     AssignFn assign, SchedulerOptions options)
    : m_chip(chip),
      m_vector_held(vector_cores),
      m_cube_held(cube_cores),
      m_free_vector(vector_cores),
      m_free_cube(cube_cores),
      m_assign(std::move(assign)),
      m_options(options),
      m_random_state(options.seed) {}

std::uint32_t Scheduler::capacity(KernelType type) const {
    return blocks_at_once(type, static_cast<std::uint32_t>(m_vector_held.size()),
                          static_cast<std::uint32_t>(m_cube_held.size()));
}

std::uint32_t Scheduler::free_slots(KernelType type) const {
    const std::uint32_t vectors = vector_cores_per_block(type);
    if (cube_cores_per_block(type) == 0) return m_free_vector;
    if (vectors == 0) return m_free_cube;
    std::uint32_t clusters = 0;
    for (std::size_t c = 0; c < m_cube_held.size(); ++c) {
        bool free = !m_cube_held[c];
        for (std::uint32_t sub = 0; sub < vectors; ++sub) {
            const std::size_t v = 2 * c + sub;
            free = free && v < m_vector_held.size() && !m_vector_held[v];
        }
        if (free) ++clusters;
    }
    return clusters;
}

void Scheduler::check_launch(const KernelLaunch& kernel) const {
    if (kernel.schedule_mode != ScheduleMode::Batch) return;
    const std::uint32_t most = capacity(kernel.type);
    if (kernel.blocks <= most) return;
    throw UsageError("launch of batch kernel '" + kernel.name + "' with " +
                     std::to_string(kernel.blocks) + " blocks: the chip holds at most " +
                     std::to_string(most) + " " + shape_name(kernel.type, most != 1) +
                     " at once, and a batch kernel starts all its blocks together, so it could "
                     "never start (use ScheduleMode::Normal or at most " +
                     std::to_string(most) + " blocks)");
}

std::uint32_t Scheduler::launch(KernelLaunch kernel, Cycle now) {
    check_launch(kernel);
    m_retired.clear();  // their cores have returned since they finished
    kernel.id = m_next_id++;
    m_now = std::max(m_now, now);
    Entry entry;
    entry.kernel = std::make_unique<KernelLaunch>(std::move(kernel));
    entry.runtime =
        std::make_unique<KernelRuntime>(*entry.kernel, std::make_unique<KernelSync>(*entry.kernel));
    if (m_launches++ < m_options.launch_rows) {
        entry.result = m_results.size();
        m_results.emplace_back();
    } else {
        if (m_summaries.empty()) m_first_summarized_id = entry.kernel->id;
        entry.result = kSummed;
        entry.row = std::make_unique<KernelResult>();
    }
    KernelResult& r = row_of(entry);
    r.identity() = entry.kernel->identity();
    r.core_type = info_of(*entry.kernel).core_type;
    r.start = r.end = now;
    for (TransactionObserver* o : m_chip.observers) o->on_kernel_start(info_of(*entry.kernel), now);
    const std::uint32_t id = entry.kernel->id;
    // The device's own launch cost (ChipConfig::kernel_start_cycles): the kernel's blocks
    // begin no earlier (BlockAssignment::not_before; its cores are taken when placed).
    entry.blocks_not_before = now + m_chip.config.kernel_start_cycles;
    if (dispatch_period() > 0 && !m_assign) {
        Cycle tick = next_tick(now);
        if (m_options.placement == PlacementPolicy::HoldLast) tick = std::max(tick, now + 1);
        entry.ready_at = tick;
        if (tick > now) {
            // Wake the dispatcher at the tick (unless the run is aborted first).
            sc_core::sc_spawn([this, tick, now] {
                try {
                    sc_core::wait(sc_core::sc_time::from_value(tick - now), m_chip.abort_event);
                    if (m_chip.abort) return;
                    m_now = std::max(m_now, tick);
                    dispatch();
                } catch (const sc_core::sc_unwind_exception&) {
                    throw;
                } catch (...) {
                    fail_with_current_exception(m_chip, "the block dispatcher");
                }
            });
        }
    }
    const KernelLaunch* key = entry.kernel.get();
    m_by_launch.emplace(key, m_active.insert(m_active.end(), std::move(entry)));
    return id;
}

Cycle Scheduler::dispatch_period() const {
    // HoldLast looks at the kernels launched in one cycle together: they become ready at the
    // next cycle at the earliest.
    if (m_options.dispatch_period == 0 && m_options.placement == PlacementPolicy::HoldLast)
        return 1;
    return m_options.dispatch_period;
}

Cycle Scheduler::next_tick(Cycle now) const {
    const Cycle period = dispatch_period();
    const Cycle phase = m_options.dispatch_phase % period;
    if (now <= phase) return phase;
    return phase + (now - phase + period - 1) / period * period;
}

void Scheduler::start_on(CoreType type, std::uint32_t core, Entry& entry, std::uint32_t block,
                         std::uint32_t sub, std::uint32_t group) {
    holders(type)[core] = Held{entry.kernel.get(), block, group, m_now};
    ++m_chip.busy_cores;
    --(type == CoreType::Vector ? m_free_vector : m_free_cube);
    const BlockAssignment work{entry.kernel.get(),     entry.runtime.get(), block, sub, group,
                               entry.blocks_not_before};
    if (m_assign) {
        m_assign(type, core, work);
    } else {
        (type == CoreType::Vector ? m_vector : m_cube)[core]->assign(work);
    }
}

bool Scheduler::place(Entry& entry) {
    const KernelType type = entry.kernel->type;
    const std::uint32_t vectors = vector_cores_per_block(type);
    const std::uint32_t cubes = cube_cores_per_block(type);
    const std::uint32_t g = entry.next_group;
    if (cubes == 0) {  // one AIV per block: the lowest free vector core
        for (std::uint32_t v = 0; v < m_vector_held.size(); ++v) {
            if (m_vector_held[v]) continue;
            start_on(CoreType::Vector, v, entry, g, 0, g);
            return true;
        }
        return false;
    }
    for (std::uint32_t c = 0; c < m_cube_held.size(); ++c) {  // a whole cluster must be free
        if (m_cube_held[c]) continue;
        bool free = true;
        for (std::uint32_t sub = 0; sub < vectors; ++sub) {
            const std::size_t v = 2 * c + sub;
            free = free && v < m_vector_held.size() && !m_vector_held[v];
        }
        if (!free) continue;
        start_on(CoreType::Cube, c, entry, g, 0, g);
        for (std::uint32_t sub = 0; sub < vectors; ++sub) {
            start_on(CoreType::Vector, 2 * c + sub, entry, vectors * g + sub, sub, g);
        }
        return true;
    }
    return false;
}

bool Scheduler::place_unit(Entry& entry) {
    if (!entry.unplaced()) return false;
    if (entry.kernel->schedule_mode == ScheduleMode::Batch) {
        // All at once or not at all: clusters are disjoint, so free slots add up.
        if (free_slots(entry.kernel->type) < entry.kernel->blocks - entry.next_group) return false;
        while (entry.unplaced() && place(entry)) ++entry.next_group;
        return true;
    }
    if (!place(entry)) return false;
    ++entry.next_group;
    return true;
}

const Scheduler::Entry* Scheduler::blocking_batch(const Entry& entry) const {
    const KernelType type = entry.kernel->type;
    for (const Entry& e : m_active) {
        if (&e == &entry) break;
        if (e.kernel->schedule_mode == ScheduleMode::Batch && e.unplaced() &&
            share_core_type(e.kernel->type, type)) {
            return &e;
        }
    }
    return nullptr;
}

namespace {
// The core types an unplaced batch kernel seen so far in readiness order reserves: a later
// kernel needing one of them waits behind it (Scheduler::blocking_batch, in one pass).
struct BatchReservations {
    bool vector = false;
    bool cube = false;
    bool blocks(KernelType type) const {
        return (vector && vector_cores_per_block(type) > 0) ||
               (cube && cube_cores_per_block(type) > 0);
    }
    void note(const KernelLaunch& kernel, bool unplaced) {
        if (kernel.schedule_mode != ScheduleMode::Batch || !unplaced) return;
        vector = vector || vector_cores_per_block(kernel.type) > 0;
        cube = cube || cube_cores_per_block(kernel.type) > 0;
    }
};
}  // namespace

std::vector<Scheduler::Entry*> Scheduler::candidates() {
    std::vector<Entry*> list;
    BatchReservations reserved;
    for (Entry& e : m_active) {
        if (e.unplaced() && ready(e) && !reserved.blocks(e.kernel->type)) list.push_back(&e);
        reserved.note(*e.kernel, e.unplaced());
    }
    return list;
}

std::uint64_t Scheduler::next_random() {  // splitmix64
    std::uint64_t z = (m_random_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void Scheduler::dispatch() {
    // Kernels that may place now: blocks left, no earlier-ready batch kernel waiting for a
    // core type they need. Recomputed after every placement (placing a batch unblocks).
    switch (m_options.placement) {
        case PlacementPolicy::LaunchOrder: {
            BatchReservations reserved;
            for (Entry& e : m_active) {
                if (m_free_vector == 0 && m_free_cube == 0) return;  // nothing more fits
                if (e.unplaced() && ready(e) && !reserved.blocks(e.kernel->type)) {
                    while (place_unit(e)) {
                    }
                }
                reserved.note(*e.kernel, e.unplaced());
            }
            return;
        }
        case PlacementPolicy::RoundRobin:
        case PlacementPolicy::HoldLast: {
            // Kernels in (stream, id) order, the turn continuing after the kernel served last.
            // HoldLast first offers the kernels that keep a unit back after this one, so cores
            // fill with partly started kernels.
            const bool hold_last = m_options.placement == PlacementPolicy::HoldLast;
            const auto key = [](const Entry* e) {
                return std::pair{e->kernel->stream, e->kernel->id};
            };
            const auto keeps_one_back = [&](const Entry* e) {
                return !hold_last || (e->kernel->schedule_mode == ScheduleMode::Normal &&
                                      e->next_group + 1 < e->kernel->blocks);
            };
            for (;;) {
                std::vector<Entry*> list = candidates();
                std::sort(list.begin(), list.end(), [&](const Entry* a, const Entry* b) {
                    if (keeps_one_back(a) != keeps_one_back(b)) return keeps_one_back(a);
                    const bool a_after = m_last_served && key(a) > *m_last_served;
                    const bool b_after = m_last_served && key(b) > *m_last_served;
                    if (a_after != b_after) return a_after;
                    return key(a) < key(b);
                });
                bool placed = false;
                for (Entry* e : list) {
                    if (!place_unit(*e)) continue;
                    m_last_served = key(e);
                    placed = true;
                    break;
                }
                if (!placed) return;
            }
        }
        case PlacementPolicy::Random:
            for (;;) {
                std::vector<Entry*> list = candidates();
                bool placed = false;
                while (!list.empty() && !placed) {
                    const std::size_t pick = next_random() % list.size();
                    placed = place_unit(*list[pick]);
                    if (!placed) list.erase(list.begin() + static_cast<std::ptrdiff_t>(pick));
                }
                if (!placed) return;
            }
    }
}

void Scheduler::block_finished(AiCore& core, const BlockAssignment& work, Cycle end) {
    block_finished(core.type(), core.index(), work, end);
}

void Scheduler::block_finished(CoreType type, std::uint32_t core, const BlockAssignment& work,
                               Cycle end) {
    holders(type)[core].reset();
    --m_chip.busy_cores;
    m_chip.last_block_end = std::max(m_chip.last_block_end, end);
    ++(type == CoreType::Vector ? m_free_vector : m_free_cube);
    m_now = std::max(m_now, end);
    const auto found = m_by_launch.find(work.kernel);
    if (found != m_by_launch.end()) {
        const Active::iterator it = found->second;
        Entry& entry = *it;
        KernelResult& r = row_of(entry);
        r.end = std::max(r.end, end);
        if (++entry.finished_cores == r.blocks * cores_per_block(entry.kernel->type)) {
            r.blocks_finished = r.blocks;
            for (TransactionObserver* o : m_chip.observers) {
                o->on_kernel_end(info_of(*entry.kernel), r.end);
            }
            if (m_kernel_finished) m_kernel_finished(r);
            if (entry.result == kSummed) sum_up(r);
            m_by_launch.erase(entry.kernel.get());
            m_retired.push_back(std::move(entry));
            m_active.erase(it);
        }
    }
    dispatch();
}

bool Scheduler::all_finished() const {
    return m_active.empty();
}

WaitingBlocks Scheduler::waiting_of(const Entry& entry) const {
    const KernelType type = entry.kernel->type;
    WaitingBlocks w;
    w.first_block = entry.next_group;
    w.count = entry.kernel->blocks - entry.next_group;
    w.core_type = primary_core(type);
    w.cluster = is_cluster(type);
    w.free = free_slots(type);
    const bool batch = entry.kernel->schedule_mode == ScheduleMode::Batch;
    w.needed = batch ? w.count : 1;
    const std::uint32_t total = capacity(type);
    if (const Entry* ahead = blocking_batch(entry)) {
        w.reason = WaitReason::BehindBatch;
        w.behind_kernel = ahead->kernel->id;
        w.describe = "waits behind batch kernel '" + ahead->kernel->name + "' (id " +
                     std::to_string(ahead->kernel->id) +
                     "), which became ready earlier and waits " + "for " +
                     std::to_string(ahead->kernel->blocks - ahead->next_group) + " free " +
                     shape_name(ahead->kernel->type, true) +
                     " at once; later kernels do not overtake it on the core types it needs";
    } else if (batch) {
        w.reason = WaitReason::BatchWaiting;
        w.describe = "batch kernel waits for " + std::to_string(w.count) + " free " +
                     shape_name(type, true) + " at once; " + std::to_string(w.free) + " of " +
                     std::to_string(total) + " are free";
    } else {
        // Name the block as a block and the cores as cores: block numbers can exceed the
        // core indices (block 48 on a chip whose vector cores are 0-47).
        const CoreType core = w.core_type;
        const std::size_t cores = (core == CoreType::Vector ? m_vector_held : m_cube_held).size();
        w.reason = WaitReason::NoFreeCore;
        w.describe = "waits for a free " + shape_name(type, false) + "; all " +
                     std::to_string(cores) + " " + (core == CoreType::Vector ? "vector" : "cube") +
                     " cores (0-" + std::to_string(cores == 0 ? 0 : cores - 1) + ") are held";
    }
    return w;
}

std::vector<StuckBlock> Scheduler::unstarted_blocks() const {
    std::vector<StuckBlock> blocks;
    for (const Entry& entry : m_active) {
        if (!entry.unplaced()) continue;
        const WaitingBlocks w = waiting_of(entry);
        const std::string reason =
            "never started: " + w.describe +
            (w.reason == WaitReason::BehindBatch ? std::string()
             : w.reason == WaitReason::BatchWaiting
                 ? std::string(" and the others are held by blocks that cannot finish")
                 : std::string(" by blocks that cannot finish"));
        for (std::uint32_t g = w.first_block; g < entry.kernel->blocks; ++g) {
            blocks.push_back({entry.kernel->name, g, w.core_type, -1, "", reason});
        }
    }
    return blocks;
}

SchedulerState Scheduler::state() const {
    SchedulerState s;
    s.placement = m_options.placement;
    for (const Entry& entry : m_active) {
        const KernelLaunch& k = *entry.kernel;
        KernelState ks;
        ks.identity() = k.identity();
        ks.blocks_finished = entry.finished_cores / cores_per_block(k.type);
        for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
            const auto& held = type == CoreType::Vector ? m_vector_held : m_cube_held;
            for (std::uint32_t c = 0; c < held.size(); ++c) {
                if (held[c] && held[c]->kernel == &k) {
                    ks.held.push_back({type, c, held[c]->block, held[c]->group, held[c]->since});
                }
            }
        }
        if (entry.unplaced()) ks.waiting = waiting_of(entry);
        s.kernels.push_back(std::move(ks));
    }
    for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
        const auto& held = type == CoreType::Vector ? m_vector_held : m_cube_held;
        for (std::uint32_t c = 0; c < held.size(); ++c) {
            CoreState cs{type, c, std::nullopt};
            if (held[c])
                cs.holder = CoreHolder{held[c]->kernel->id, held[c]->block, held[c]->group};
            s.cores.push_back(cs);
        }
    }
    return s;
}

void Scheduler::sum_up(const KernelResult& r) {
    const auto [at, added] = m_summary_of.emplace(r.name, m_summaries.size());
    if (added) m_summaries.push_back(KernelSummary{.name = r.name});
    KernelSummary& s = m_summaries[at->second];
    ++s.launches;
    s.blocks += r.blocks;
    m_summed_end = std::max(m_summed_end, r.end);
    if (!r.completed()) return;
    const Cycle cycles = r.end - r.start;
    s.cycles_min = s.completed == 0 ? cycles : std::min(s.cycles_min, cycles);
    s.cycles_max = std::max(s.cycles_max, cycles);
    s.cycles_total += cycles;
    ++s.completed;
}

std::vector<KernelResult> Scheduler::take_results(std::vector<KernelSummary>* summaries,
                                                  std::uint32_t* first_summarized_id,
                                                  std::uint64_t* launches) {
    // Moved out, not copied: a long program's results are its largest record (one per launch).
    for (Entry& entry : m_active) {
        KernelResult& r = row_of(entry);
        r.blocks_finished = entry.finished_cores / cores_per_block(entry.kernel->type);
        if (entry.result == kSummed) sum_up(r);  // did not finish: counted, not timed
    }
    if (summaries != nullptr) *summaries = std::move(m_summaries);
    if (first_summarized_id != nullptr) *first_summarized_id = m_first_summarized_id;
    if (launches != nullptr) *launches = m_launches;
    m_summaries.clear();
    m_summary_of.clear();
    m_first_summarized_id = 0;
    m_launches = 0;
    m_summed_end = 0;
    std::vector<KernelResult> results = std::move(m_results);
    m_by_launch.clear();
    m_active.clear();
    m_retired.clear();
    m_results.clear();
    // The next run places as if the simulator were new: the same launches, the same order.
    m_last_served.reset();
    m_random_state = m_options.seed;
    return results;
}

Cycle Scheduler::latest_kernel_end() const {
    Cycle end = m_summed_end;
    for (const KernelResult& r : m_results) end = std::max(end, r.end);
    for (const Entry& entry : m_active)
        if (entry.result == kSummed) end = std::max(end, entry.row->end);
    return end;
}

std::vector<KernelResult> Scheduler::peek_results() const {
    std::vector<KernelResult> results = m_results;
    for (const Entry& entry : m_active) {
        if (entry.result == kSummed) {  // a live kernel past launch_rows: its row, after
            results.push_back(*entry.row);
            results.back().blocks_finished =
                entry.finished_cores / cores_per_block(entry.kernel->type);
            continue;
        }
        results[entry.result].blocks_finished =
            entry.finished_cores / cores_per_block(entry.kernel->type);
    }
    return results;
}

void Scheduler::reset_after_abort() {
    std::fill(m_vector_held.begin(), m_vector_held.end(), std::nullopt);
    std::fill(m_cube_held.begin(), m_cube_held.end(), std::nullopt);
    m_chip.busy_cores = 0;
    m_chip.last_block_end = 0;
    m_free_vector = static_cast<std::uint32_t>(m_vector_held.size());
    m_free_cube = static_cast<std::uint32_t>(m_cube_held.size());
}

}  // namespace npusim
