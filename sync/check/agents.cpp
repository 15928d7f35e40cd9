#include "sync/check/agents.h"

namespace npusim::check {

void LocalBuffers::add(MemSpace space, std::uint64_t address, std::uint64_t bytes) {
    Space& s = m_spaces[index(space)];
    const auto at = std::upper_bound(s.by_start.begin(), s.by_start.end(), address,
                                     [](std::uint64_t a, const Range& r) { return a < r.first; });
    s.by_start.insert(at, {address, bytes});
    s.longest = std::max(s.longest, bytes);
}

Agents::Agents() {
    m_agents.emplace_back();  // agent 0: the host
}

const KernelState* Agents::find_kernel(std::uint32_t id) const {
    const auto it = m_kernels.find(id);
    return it != m_kernels.end() ? &it->second : nullptr;
}

KernelState& Agents::start_kernel(const KernelInfo& info) {
    KernelState& k = m_kernels[info.id];
    k.info = info;
    const auto [name, added] =
        m_name_ids.emplace(info.name, static_cast<std::uint32_t>(m_names.size()));
    if (added) m_names.push_back(info.name);
    if (m_kernel_names.empty()) m_first_kernel_id = info.id;
    if (info.id >= m_first_kernel_id) {
        const std::size_t at = info.id - m_first_kernel_id;
        if (at >= m_kernel_names.size()) m_kernel_names.resize(at + 1, kNoName);
        m_kernel_names[at] = name->second;
    }
    return k;
}

const std::string& Agents::kernel_name(std::uint32_t id) const {
    static const std::string unknown = "?";
    if (id < m_first_kernel_id || id - m_first_kernel_id >= m_kernel_names.size()) return unknown;
    const std::uint32_t name = m_kernel_names[id - m_first_kernel_id];
    return name != kNoName ? m_names[name] : unknown;
}

BlockState& Agents::find_or_start_block(const Transaction& tx, bool& created) {
    auto& by_core = m_running[tx.core_type == CoreType::Cube ? 1 : 0];
    auto& slot = m_blocks[{tx.kernel_id, tx.core_type, tx.block}];
    if (!slot) {
        created = true;
        if (m_spare_blocks.empty()) {
            slot = std::make_unique<BlockState>();
        } else {
            slot = std::move(m_spare_blocks.back());
            m_spare_blocks.pop_back();
        }
        BlockState& b = *slot;
        b.kernel_id = tx.kernel_id;
        b.block = tx.block;
        b.type = tx.core_type;
        b.core = tx.core;
        const KernelState& kernel = m_kernels[tx.kernel_id];
        b.launch = kernel.launch;
        // The previous block on this core finished before this one started.
        const std::pair<CoreType, std::uint32_t> core{tx.core_type, tx.core};
        const auto on_core = m_on_core.find(core);
        BlockState* const previous = on_core != m_on_core.end() ? on_core->second : nullptr;
        const bool stream_op = kernel.info.host_op != 0;
        const bool core_order =
            previous != nullptr && (!stream_op || previous->kernel_id == tx.kernel_id);
        // A block of an ended kernel whose whole work the start covers (stream order, an
        // event): ordered after it just the same, by what the host program said.
        const bool program_order = previous != nullptr && !core_order && previous->parked &&
                                   covers_all(kernel.start_clock, previous->agents);
        if (core_order || program_order) {
            // Ordered after it: this block goes on with its agents.
            if (!previous->ended) previous->final_clock = drained(*previous);
            previous->handed_over = true;
            take_agents(b, kernel.start_clock, previous->agents, previous->final_clock);
            if (previous->parked) free_block(previous);
        } else {
            if (previous != nullptr && previous->parked) {
                // Its kernel is over: its agents join the free sets.
                m_free_sets.push_back({previous->agents, std::move(previous->final_clock)});
                free_block(previous);
            }
            if (!reuse_free_set(b, kernel.start_clock)) new_agents(b, kernel.start_clock);
        }
        m_on_core[core] = &b;
        m_kernels[tx.kernel_id].blocks.push_back(&b);
    } else if (slot->handed_over) {
        // Not expected (a block ends before the next one on its core starts), but should a
        // block act after handing its agents over, it must not act as its successor: it
        // goes on with new agents that know what it knew.
        slot->handed_over = false;
        new_agents(*slot, slot->final_clock);
    }
    m_last_block = slot.get();
    if (tx.core >= by_core.size()) by_core.resize(tx.core + 1, nullptr);
    by_core[tx.core] = slot.get();
    return *slot;
}

void Agents::take_agents(BlockState& b, const VectorClock& kernel_start,
                         const std::array<AgentId, kAgentSlots>& set,
                         const VectorClock& final_clock) {
    // Every agent's clock becomes `start`, which covers all the previous block knew and did.
    VectorClock& start = m_start;  // its storage reused
    start = kernel_start;
    start.focus(set[0]);
    start.join(final_clock);
    b.agents = set;
    for (const AgentId id : b.agents) {
        Agent& a = m_agents[id];
        a.clock = start;
        a.scalar_version_seen = 0;
        a.start_version = a.clock.version();
    }
}

bool Agents::covers_all(const VectorClock& start,
                        const std::array<AgentId, kAgentSlots>& set) const {
    return std::all_of(set.begin(), set.end(),
                       [&](AgentId id) { return start.get(id) >= m_agents[id].counter; });
}

bool Agents::reuse_free_set(BlockState& b, const VectorClock& start) {
    for (auto it = m_free_sets.begin(); it != m_free_sets.end(); ++it) {
        if (!covers_all(start, it->agents)) continue;
        take_agents(b, start, it->agents, it->final_clock);
        m_free_sets.erase(it);
        return true;
    }
    return false;
}

void Agents::free_block(BlockState* b) {
    if (m_last_block == b) m_last_block = nullptr;
    auto& by_core = m_running[b->type == CoreType::Cube ? 1 : 0];
    if (b->core < by_core.size() && by_core[b->core] == b) by_core[b->core] = nullptr;
    const auto on_core = m_on_core.find({b->type, b->core});
    if (on_core != m_on_core.end() && on_core->second == b) m_on_core.erase(on_core);
    const auto it = m_blocks.find({b->kernel_id, b->type, b->block});
    if (it == m_blocks.end()) return;
    // Back to what a new state holds, keeping the storage of its buffer lists (final_clock
    // is written before it is read).
    std::unique_ptr<BlockState> spare = std::move(it->second);
    m_blocks.erase(it);
    spare->allocations.clear();
    spare->local_shadows.fill(nullptr);
    spare->flag_queues = RecentFlagQueues{};
    spare->handed_over = spare->ended = spare->parked = false;
    m_spare_blocks.push_back(std::move(spare));
}

void Agents::retire_kernel(std::uint32_t id) {
    const auto it = m_kernels.find(id);
    if (it == m_kernels.end()) return;
    for (BlockState* b : it->second.blocks) {
        const auto on_core = m_on_core.find({b->type, b->core});
        if (on_core != m_on_core.end() && on_core->second == b) {
            b->parked = true;  // the next block on its core decides where its agents go
            continue;
        }
        if (!b->handed_over) m_free_sets.push_back({b->agents, std::move(b->final_clock)});
        free_block(b);
    }
    m_kernels.erase(it);
}

// The block's agents get consecutive ids, and each clock keeps them in its window.
void Agents::new_agents(BlockState& b, const VectorClock& start) {
    static_assert(kAgentSlots <= VectorClock::kWindow);
    VectorClock focused = start;
    focused.focus(static_cast<AgentId>(m_agents.size()));
    for (Slot s = 0; s < kAgentSlots; ++s) {
        b.agents[s] = static_cast<AgentId>(m_agents.size());
        Agent& a = m_agents.emplace_back();
        a.clock = focused;
        a.start_version = a.clock.version();
    }
}

VectorClock Agents::drained(const BlockState& b) const {
    if (b.handed_over || b.ended) return b.final_clock;
    // The scalar unit's clock covers the block's start clock: an agent whose clock is still
    // that start adds only its own frontier.
    const Agent& scalar = m_agents[b.agents[kScalarSlot]];
    VectorClock c = scalar.clock;
    for (Slot s = 0; s < kAgentSlots; ++s) {
        const Agent& a = m_agents[b.agents[s]];
        if (s != kScalarSlot && a.clock.version() != a.start_version) c.join(a.clock);
        c.raise(b.agents[s], a.counter);
    }
    return c;
}

VectorClock Agents::end_kernel(KernelState& k) {
    k.ended = true;
    VectorClock done;
    for (BlockState* b : k.blocks) {
        if (!b->handed_over && !b->ended) b->final_clock = drained(*b);
        b->ended = true;
        done.join(b->final_clock);
    }
    return done;
}

}  // namespace npusim::check
