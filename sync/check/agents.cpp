#include "sync/check/agents.h"

#include <algorithm>
#include <cassert>

namespace npusim::check {

void LocalBuffers::add(MemSpace space, std::uint64_t address, std::uint64_t bytes) {
    Space& s = m_spaces[index(space)];
    // A block allocates its buffers in address order, mostly: then they go at the end.
    const auto at =
        !s.by_start.empty() && address < s.by_start.back().first
            ? std::upper_bound(s.by_start.begin(), s.by_start.end(), address,
                               [](std::uint64_t a, const Range& r) { return a < r.first; })
            : s.by_start.end();
    if (at == s.by_start.end()) {
        s.by_start.push_back({address, bytes});
    } else {
        s.by_start.insert(at, {address, bytes});
    }
    s.longest = std::max(s.longest, bytes);
    m_used |= 1U << index(space);
}

Agents::Agents() {
    m_agents.emplace_back();  // agent 0: the host
}

std::vector<std::uint32_t> Agents::kernel_ids() const {
    std::vector<std::uint32_t> ids;
    for (const auto& [id, k] : m_kernels) ids.push_back(id);
    return ids;
}

std::unique_ptr<KernelState> Agents::new_kernel_state() {
    if (m_spare_kernels.empty()) return std::make_unique<KernelState>();
    std::unique_ptr<KernelState> k = std::move(m_spare_kernels.back());
    m_spare_kernels.pop_back();
    return k;
}

KernelState& Agents::start_kernel(const KernelInfo& info) {
    KernelState& k = kernel(info.id);
    k.info = info;
    // Looked up first: a loop launches the same few names, and emplace would build (and
    // free) a node for every launch.
    auto name = m_name_ids.find(info.name);
    if (name == m_name_ids.end()) {
        name = m_name_ids.emplace(info.name, static_cast<std::uint32_t>(m_names.size())).first;
        m_names.push_back(info.name);
    }
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

BlockState& Agents::find_or_start_block(const BlockOf& tx, bool& created) {
    const std::size_t type_index = tx.core_type == CoreType::Cube ? 1 : 0;
    auto& by_core = m_running[type_index];
    KernelState& kernel = this->kernel(tx.kernel_id);
    auto& index = kernel.by_index[type_index];
    if (tx.block >= index.size()) index.resize(tx.block + 1, nullptr);
    BlockState*& slot = index[tx.block];
    if (slot == nullptr) {
        created = true;
        if (m_spare_blocks.empty()) {
            slot = m_block_store.emplace_back(std::make_unique<BlockState>()).get();
        } else {
            slot = m_spare_blocks.back();
            m_spare_blocks.pop_back();
        }
        BlockState& b = *slot;
        b.kernel_id = tx.kernel_id;
        b.block = tx.block;
        b.type = tx.core_type;
        b.core = tx.core;
        b.launch = kernel.launch;
        b.stream = kernel.info.stream;
        // The previous block on this core finished before this one started.
        BlockState* const previous = on_core(tx.core_type, tx.core);
        const bool stream_op = kernel.info.host_op != 0;
        const bool core_order =
            previous != nullptr && (!stream_op || previous->kernel_id == tx.kernel_id);
        // A block of an ended kernel of its own stream, whose whole work the start covers
        // (stream order): ordered after it just the same, by what the host program said.
        // (Another stream's block, which mostly is not, joins the free sets below, where it
        // is taken if nothing of the block's own stream is.)
        const bool program_order =
            previous != nullptr && !core_order && previous->parked &&
            previous->stream == b.stream &&
            take_if_covered(b, kernel.start_clock, previous->agents, issued(previous->agents));
        if (core_order) {
            // Ordered after it by the core: this block goes on with its agents and learns
            // all the previous block knew.
            previous->final_clock = drained(*previous);
            previous->handed_over = true;
            take_agents(b, kernel.start_clock, previous->agents, &previous->final_clock);
            if (previous->kernel_id != tx.kernel_id) kernel.done_from_blocks = true;
            if (previous->parked) free_block(previous);
        } else if (program_order) {
            previous->handed_over = true;  // b has its agents (take_if_covered)
            free_block(previous);
        } else {
            if (previous != nullptr && previous->parked) {
                // Its kernel is over: its agents join the free sets.
                free_set(*previous);
                free_block(previous);
            }
            if (!reuse_free_set(b, kernel.start_clock)) new_agents(b, kernel.start_clock);
        }
        on_core(tx.core_type, tx.core) = &b;
        kernel.blocks.push_back(&b);
    } else if (slot->handed_over) {
        // Not expected (a block ends before the next one on its core starts), but should a
        // block act after handing its agents over, it must not act as its successor: it
        // goes on with new agents that know what it knew.
        slot->handed_over = false;
        kernel.done_from_blocks = true;
        new_agents(*slot, slot->final_clock);
    }
    m_last_block = slot;
    if (tx.core >= by_core.size()) by_core.resize(tx.core + 1, nullptr);
    by_core[tx.core] = slot;
    return *slot;
}

void Agents::take_agents(BlockState& b, const VectorClock& kernel_start, const AgentSet& set,
                         const VectorClock* previous) {
    // Every agent's clock becomes the start (on first use), which covers all the previous
    // block knew and did.
    b.start = kernel_start;
    b.start.focus(set[0]);
    if (previous != nullptr) b.start.join(*previous);
    b.agents = set;
    b.generation = ++m_generation;
}

std::array<EpochCount, VectorClock::kWindow> Agents::issued(const AgentSet& set) const {
    static_assert(kAgentSlots == VectorClock::kWindow);
    std::array<EpochCount, VectorClock::kWindow> counts{};
    for (Slot s = 0; s < kAgentSlots; ++s) {
        assert(set[s] == set[0] + s);
        counts[s] = m_agents[set[s]].counter;
    }
    return counts;
}

// The start clock moved onto the set's agents (what take_agents does) answers the question
// from its window: one search of the list serves both. A set's ids are consecutive
// (new_agents), so they fill the window.
bool Agents::take_if_covered(BlockState& b, const VectorClock& kernel_start, const AgentSet& set,
                             const std::array<EpochCount, VectorClock::kWindow>& issued) {
    b.start = kernel_start;
    b.start.focus(set[0]);
    if (!b.start.covers_run(set[0], issued)) return false;  // b.start is rewritten later
    b.agents = set;
    b.generation = ++m_generation;
    return true;
}

void Agents::free_set(const BlockState& b) {
    static_assert(kAgentSlots == VectorClock::kWindow);
    FreeSet set{b.agents, b.stream, {}};
    for (Slot s = 0; s < kAgentSlots; ++s) {
        // covers_run reads the set as consecutive ids (new_agents makes them so).
        assert(b.agents[s] == b.agents[0] + s);
        set.issued[s] = m_agents[b.agents[s]].counter;
    }
    m_free_sets.push_back(set);
}

bool Agents::reuse_free_set(BlockState& b, const VectorClock& start) {
    // Its own stream's sets first (stream order covers them), then the others. A stream's
    // sets were freed in its program order: a start that does not cover the oldest one
    // (freed first) is not expected to cover the later ones, so a stream whose oldest set
    // is not covered is passed over (a new set is sound whatever the choice: sets only
    // bound how many agents a program makes).
    std::array<std::uint32_t, 8> refused{};
    std::size_t n_refused = 0;
    const auto passed_over = [&](std::uint32_t stream) {
        return std::find(refused.begin(), refused.begin() + n_refused, stream) !=
               refused.begin() + n_refused;
    };
    for (const bool same_stream : {true, false}) {
        for (auto it = m_free_sets.begin(); it != m_free_sets.end(); ++it) {
            if ((it->stream == b.stream) != same_stream || passed_over(it->stream)) continue;
            if (take_if_covered(b, start, it->agents, it->issued)) {
                m_free_sets.erase(it);
                return true;
            }
            if (n_refused < refused.size()) refused[n_refused++] = it->stream;
        }
    }
    return false;
}

void Agents::free_block(BlockState* b) {
    if (m_last_block == b) m_last_block = nullptr;
    auto& by_core = m_running[b->type == CoreType::Cube ? 1 : 0];
    if (b->core < by_core.size() && by_core[b->core] == b) by_core[b->core] = nullptr;
    BlockState*& latest = on_core(b->type, b->core);
    if (latest == b) latest = nullptr;
    // Back to what a new state holds, keeping the storage of its buffer lists and clocks
    // (start and final_clock are written before they are read). Its kernel's index goes
    // with the kernel (a block is freed when its kernel is retired, or after).
    b->allocations.clear();
    b->local_shadows.fill(nullptr);
    b->handed_over = b->ended = b->parked = false;
    m_spare_blocks.push_back(b);
}

void Agents::retire_kernel(std::uint32_t id) {
    const auto it = m_kernels.find(id);
    if (it == m_kernels.end()) return;
    KernelState& k = *it->second;
    for (BlockState* b : k.blocks) {
        if (on_core(b->type, b->core) == b) {
            b->parked = true;  // the next block on its core decides where its agents go
            continue;
        }
        if (!b->handed_over) free_set(*b);
        free_block(b);
    }
    // Released with its storage kept for the next kernel.
    k.blocks.clear();
    for (auto& index : k.by_index) index.clear();
    k.ended = k.done_from_blocks = false;
    k.launch = 0;
    k.info = KernelInfo{};
    k.start_clock = VectorClock{};
    m_spare_kernels.push_back(std::move(it->second));
    m_kernels.erase(it);
}

// The block's agents get consecutive ids, and each clock keeps them in its window.
void Agents::new_agents(BlockState& b, const VectorClock& start) {
    static_assert(kAgentSlots <= VectorClock::kWindow);
    if (&b.start != &start) b.start = start;
    b.start.focus(static_cast<AgentId>(m_agents.size()));
    b.generation = ++m_generation;
    for (Slot s = 0; s < kAgentSlots; ++s) {
        b.agents[s] = static_cast<AgentId>(m_agents.size());
        m_agents.emplace_back();
    }
}

VectorClock Agents::drained(const BlockState& b) const {
    if (b.handed_over) return b.final_clock;
    // The scalar unit's clock covers the block's start clock: an agent whose clock is still
    // that start adds only its own frontier.
    // (An agent the block never used holds another block's clock: only its count counts.)
    const Agent& scalar = m_agents[b.agents[kScalarSlot]];
    VectorClock c = scalar.owner == b.generation ? scalar.clock : b.start;
    for (Slot s = 0; s < kAgentSlots; ++s) {
        const Agent& a = m_agents[b.agents[s]];
        if (s != kScalarSlot && a.owner == b.generation && a.clock.version() != a.start_version)
            c.join(a.clock);
        c.raise(b.agents[s], a.counter);
    }
    return c;
}

const std::vector<ClockEntry>& Agents::end_counts(KernelState& k) {
    k.ended = true;
    // A block's agents are consecutive ids (new_agents), and two blocks hold the same set
    // (one went on with the other's agents) or disjoint ones: the blocks in order of their
    // first agent, each set once, give the counts sorted by agent.
    std::vector<const BlockState*>& blocks = m_end_blocks;
    blocks.assign(k.blocks.begin(), k.blocks.end());
    const auto by_agent = [](const BlockState* a, const BlockState* b) {
        return a->agents[0] < b->agents[0];
    };
    if (!std::is_sorted(blocks.begin(), blocks.end(), by_agent))
        std::sort(blocks.begin(), blocks.end(), by_agent);
    std::vector<ClockEntry>& counts = m_end_counts;
    counts.clear();
    const BlockState* previous = nullptr;
    for (const BlockState* b : blocks) {
        if (previous != nullptr && previous->agents[0] == b->agents[0]) continue;
        previous = b;
        const Agent* const first = &m_agents[b->agents[0]];  // the set's ids are consecutive
        for (Slot s = 0; s < kAgentSlots; ++s) {
            assert(b->agents[s] == b->agents[0] + s);
            const EpochCount n = first[s].counter;
            if (n != 0) counts.push_back({b->agents[0] + static_cast<AgentId>(s), n});
        }
    }
    for (BlockState* b : k.blocks) b->ended = true;
    return counts;
}

// What a kernel's blocks can know is its start clock, what its own blocks did (flags,
// barriers, cross-core flags stay inside the kernel), and what their agents' earlier blocks
// did, which the start covers (a free set is taken only by a start that covers it). So its
// end is its start with every block's agents at their counts, unless some block learned
// more (done_from_blocks): then the join of what each drained.
VectorClock Agents::end_kernel(KernelState& k) {
    k.ended = true;
    for (BlockState* b : k.blocks) b->ended = true;
    if (!k.done_from_blocks) {
        VectorClock done = k.start_clock;
        for (const BlockState* b : k.blocks) {
            for (const AgentId id : b->agents) {
                if (m_agents[id].counter != 0) done.raise(id, m_agents[id].counter);
            }
        }
        return done;
    }
    VectorClock done;
    for (const BlockState* b : k.blocks) done.join(drained(*b));
    return done;
}

}  // namespace npusim::check
