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

BlockState& Agents::find_or_start_block(const Transaction& tx, bool& created) {
    auto& by_core = m_running[tx.core_type == CoreType::Cube ? 1 : 0];
    auto& slot = m_blocks[{tx.kernel_id, tx.core_type, tx.block}];
    if (!slot) {
        created = true;
        slot = std::make_unique<BlockState>();
        BlockState& b = *slot;
        b.kernel_id = tx.kernel_id;
        b.block = tx.block;
        b.type = tx.core_type;
        b.core = tx.core;
        const KernelState& kernel = m_kernels[tx.kernel_id];
        b.launch = kernel.launch;
        VectorClock start = kernel.start_clock;
        // The previous block on this core finished before this one started.
        BlockState*& previous = m_on_core[{tx.core_type, tx.core}];
        const bool stream_op = kernel.info.host_op != 0;
        if (previous != nullptr && (!stream_op || previous->kernel_id == tx.kernel_id)) {
            // Ordered after it: this block goes on with its agents. Every agent's clock
            // becomes `start`, which covers all the previous block knew and did.
            previous->final_clock = drained(*previous);
            previous->handed_over = true;
            start.focus(previous->agents[0]);
            start.join(previous->final_clock);
            b.agents = previous->agents;
            for (const AgentId id : b.agents) {
                Agent& a = m_agents[id];
                a.clock = start;
                a.scalar_version_seen = 0;
            }
        } else {
            new_agents(b, start);
        }
        previous = &b;
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

// The block's agents get consecutive ids, and each clock keeps them in its window.
void Agents::new_agents(BlockState& b, const VectorClock& start) {
    static_assert(kAgentSlots <= VectorClock::kWindow);
    VectorClock focused = start;
    focused.focus(static_cast<AgentId>(m_agents.size()));
    for (Slot s = 0; s < kAgentSlots; ++s) {
        b.agents[s] = static_cast<AgentId>(m_agents.size());
        m_agents.emplace_back();
        m_agents.back().clock = focused;
    }
}

VectorClock Agents::drained(const BlockState& b) const {
    if (b.handed_over) return b.final_clock;
    VectorClock c;
    c.focus(b.agents[0]);
    for (Slot s = 0; s < kAgentSlots; ++s) {
        const Agent& a = m_agents[b.agents[s]];
        c.join(a.clock);
        c.raise(b.agents[s], a.counter);
    }
    return c;
}

VectorClock Agents::end_kernel(KernelState& k) {
    k.ended = true;
    VectorClock done;
    for (const BlockState* b : k.blocks) done.join(drained(*b));
    return done;
}

}  // namespace npusim::check
