#include "sync/check/agents.h"

namespace npusim::check {

Agents::Agents() {
    m_agents.emplace_back();  // agent 0: the host
}

const KernelState* Agents::find_kernel(std::uint32_t id) const {
    const auto it = m_kernels.find(id);
    return it != m_kernels.end() ? &it->second : nullptr;
}

BlockState& Agents::block_of(const Transaction& tx, bool& created) {
    created = false;
    if (m_last_block && m_last_block->kernel_id == tx.kernel_id &&
        m_last_block->block == tx.block && m_last_block->type == tx.core_type) {
        return *m_last_block;
    }
    // Blocks interleave: the one a core ran last is found by the core's index.
    auto& by_core = m_running[tx.core_type == CoreType::Cube ? 1 : 0];
    if (tx.core < by_core.size()) {
        BlockState* b = by_core[tx.core];
        if (b && b->kernel_id == tx.kernel_id && b->block == tx.block && b->type == tx.core_type) {
            m_last_block = b;
            return *b;
        }
    }
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
        if (previous != nullptr && (!stream_op || previous->kernel_id == tx.kernel_id))
            start.join(drained(*previous));
        previous = &b;
        for (Slot s = 0; s < kAgentSlots; ++s) {
            b.agents[s] = static_cast<AgentId>(m_agents.size());
            m_agents.emplace_back();
            m_agents.back().clock = start;
        }
        m_kernels[tx.kernel_id].blocks.push_back(&b);
    }
    m_last_block = slot.get();
    if (tx.core >= by_core.size()) by_core.resize(tx.core + 1, nullptr);
    by_core[tx.core] = slot.get();
    return *slot;
}

VectorClock Agents::drained(const BlockState& b) const {
    VectorClock c;
    for (Slot s = 0; s < kAgentSlots; ++s) {
        const Agent& a = m_agents[b.agents[s]];
        c.join(a.clock);
        c.raise(b.agents[s], a.counter);
    }
    return c;
}

VectorClock Agents::fired(BlockState& b, Slot pipe) {
    VectorClock c;
    if (!m_spare_clocks.empty()) {
        c = std::move(m_spare_clocks.back());
        m_spare_clocks.pop_back();
    }
    c = agent(b, pipe).clock;
    c.raise(b.agents[pipe], agent(b, pipe).counter);
    if (pipe == kScalarSlot) c.raise(b.agents[kStoreSlot], agent(b, kStoreSlot).counter);
    return c;
}

VectorClock Agents::end_kernel(KernelState& k) {
    k.ended = true;
    VectorClock done;
    for (const BlockState* b : k.blocks) done.join(drained(*b));
    return done;
}

}  // namespace npusim::check
