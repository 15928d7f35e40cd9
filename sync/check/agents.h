// Happens-before state: the agents (one per real pipe of a block by pipe_index, the scalar
// unit's store buffer, and the host), their vector clocks, the blocks and kernels they
// belong to, and the edges inside a block (the scalar unit issuing to a pipe, a pipe's
// completed work, a block drained at its end). Synchronization between agents (flags,
// barriers, cross-core flags) is in sync/check/sync_edges.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/pipe_table.h"
#include "base/transaction.h"
#include "sync/check/checker.h"
#include "sync/check/vector_clock.h"

namespace npusim::check {

class Shadow;
class FlagQueue;

/// Agent slots of a block: one per real pipe, by pipe_index (the scalar unit is PIPE_S's),
/// then the scalar unit's store buffer.
using Slot = std::size_t;
inline constexpr Slot kScalarSlot = static_cast<Slot>(pipe_index(Pipe::S));
inline constexpr Slot kStoreSlot = kPipeCount;
inline constexpr Slot kAgentSlots = kPipeCount + 1;
/// The slot of a pipe; PIPE_ALL (and anything that is no pipe) is the scalar unit's.
constexpr Slot slot_of(Pipe pipe) {
    const int index = pipe_index(pipe);
    return index < 0 ? kScalarSlot : static_cast<Slot>(index);
}

struct Agent {
    VectorClock clock;       // what this agent knows; clock[self] is its completed frontier
    EpochCount counter = 0;  // instructions issued on this agent
    std::uint64_t scalar_version_seen = 0;
    // clock.version() when its block started with it: an agent whose clock is still its
    // block's start clock adds nothing to what the block drained.
    std::uint64_t start_version = 0;
    // The generation of the block whose clock `clock` is (BlockState::generation): a block
    // hands its start clock to each of its agents when it first uses it, so agents it never
    // uses (the pipes a kernel does not touch) cost nothing.
    std::uint64_t owner = 0;
};

/// The local buffers a block allocated, per space: memcheck's bounds.
class LocalBuffers {
public:
    void add(MemSpace space, std::uint64_t address, std::uint64_t bytes);
    /// Forgets every buffer (keeping the storage, for the next block).
    void clear() {
        if (m_used == 0) return;
        for (std::size_t i = 0; i < kMemSpaces; ++i) {
            if ((m_used >> i & 1U) == 0) continue;
            m_spaces[i].by_start.clear();
            m_spaces[i].longest = 0;
        }
        m_used = 0;
        m_known.fill({});
    }
    /// Whether the block allocated anything in `space` (none: it lays the space out by hand).
    bool any(MemSpace space) const { return !m_spaces[index(space)].by_start.empty(); }
    /// Whether [address, address + bytes) lies inside one buffer of `space`. Looks only at
    /// the buffers that start late enough to hold it (no longer than the longest one).
    bool inside_one(MemSpace space, std::uint64_t address, std::uint64_t bytes) const {
        const std::uint64_t end = address + bytes;
        // A loop repeats its accesses exactly; buffers are only added, so an answer holds.
        Known& known = m_known[((address >> 5) * 0x9E3779B97F4A7C15ULL) >> 61];
        if (bytes != 0 && known.address == address && known.end == end && known.space == space)
            return true;
        if (!search(space, address, end)) return false;
        known = {address, end, space};
        return true;
    }

private:
    bool search(MemSpace space, std::uint64_t address, std::uint64_t end) const {
        const Space& s = m_spaces[index(space)];
        auto it = std::upper_bound(s.by_start.begin(), s.by_start.end(), address,
                                   [](std::uint64_t a, const Range& r) { return a < r.first; });
        while (it != s.by_start.begin()) {
            --it;
            if (it->first + s.longest < end) return false;  // this one and all before: too early
            if (end <= it->first + it->second) return true;
        }
        return false;
    }

    using Range = std::pair<std::uint64_t, std::uint64_t>;  // start, bytes
    struct Space {
        std::vector<Range> by_start;  // sorted by start
        std::uint64_t longest = 0;
    };
    static std::size_t index(MemSpace space) { return static_cast<std::size_t>(space); }
    std::array<Space, kMemSpaces> m_spaces;
    struct Known {
        std::uint64_t address = 0, end = 0;  // end 0: empty
        MemSpace space = MemSpace::GM;
    };
    mutable std::array<Known, 8> m_known{};  // accesses found inside one buffer
    std::uint32_t m_used = 0;  // bit i: space i holds a buffer (clear() skips the rest)
};

/// The intra-core flag queues (SyncEdges) a core's blocks used last, by (event id, src, dst):
/// a kernel uses a few flags, so their keys share one cache line and their queues another.
class RecentFlagQueues {
public:
    static constexpr std::size_t kSlots = 8;
    RecentFlagQueues() { m_keys.fill(kEmpty); }
    /// `src` and `dst`: pipe indices (real pipes).
    static std::uint64_t key(std::uint32_t event_id, int src, int dst) {
        return (std::uint64_t{event_id} << 16) | (static_cast<std::uint64_t>(src) << 8) |
               static_cast<std::uint64_t>(dst);
    }
    FlagQueue* find(std::uint64_t key) const {
        for (std::size_t i = 0; i < kSlots; ++i)
            if (m_keys[i] == key) return m_queues[i];
        return nullptr;
    }
    /// Remembers `queue` under `key`, in place of the oldest one once all slots are used.
    void add(std::uint64_t key, FlagQueue* queue) {
        m_keys[m_next] = key;
        m_queues[m_next] = queue;
        m_next = (m_next + 1) % kSlots;
    }

private:
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
    std::array<std::uint64_t, kSlots> m_keys{};
    std::array<FlagQueue*, kSlots> m_queues{};
    std::size_t m_next = 0;
};

/// Which block an instruction or a local allocation belongs to (a Transaction's or a
/// LocalAllocation's fields: a whole Transaction is not built to ask).
struct BlockOf {
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    std::uint32_t core = 0;
};

struct BlockState {
    std::uint64_t generation = 0;  // unique per block that took agents (Agent::owner)
    VectorClock start;             // its agents' clock when it started, given on first use
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    CoreType type = CoreType::Vector;
    std::uint32_t core = 0;
    std::uint32_t launch = 0;  // its kernel's host call (check::HostCalls), 0: Simulator::launch
    std::uint32_t stream = 0;  // its kernel's stream (0: the default stream, Simulator::launch)
    std::array<AgentId, kAgentSlots> agents{};
    LocalBuffers allocations;  // (cleared, not freed, when the state is reused)
    std::array<Shadow*, kMemSpaces> local_shadows{};  // this core's local spaces, once found
    // The next block on its core took over `agents` (Agents::block_of); `final_clock` is
    // what this block drained then, its drained() from now on.
    bool handed_over = false;
    VectorClock final_clock;
    bool ended = false;  // its kernel ended (end_kernel)
    // Its kernel ended while it was the latest block on its core: kept (with its agents) only
    // until the next block on that core decides whether it is ordered after it.
    bool parked = false;
};

/// The agents of a block that ended and that no later block took over: free for a new
/// block whose start is ordered after all they did (Agents::block_of). Such a start covers
/// what they knew too (that knowledge reached it only through their kernel's end), so the
/// set needs no clock of its own.
using AgentSet = std::array<AgentId, kAgentSlots>;

struct KernelState {
    KernelInfo info;
    VectorClock start_clock;   // the host's knowledge at launch (a stream op: its stream's)
    std::uint32_t launch = 0;  // its host call (check::HostCalls), 0: Simulator::launch
    std::vector<BlockState*> blocks;
    std::array<std::vector<BlockState*>, 2> by_index;  // per core type (vector, cube), by block
    bool ended = false;
    // Some block of it learned more than its start clock and what its own blocks did (the
    // previous block on its core was another kernel's, or a flag another kernel left set):
    // its end joins what every block drained, not just its start and its agents' counts.
    bool done_from_blocks = false;
};

class Agents final {
public:
    static constexpr AgentId kHost = 0;

    Agents();

    Agent& host() { return m_agents[kHost]; }
    Agent& agent(AgentId id) { return m_agents[id]; }
    /// A new agent that knows nothing (a stream of a runtime program). References to agents
    /// do not survive it.
    AgentId add_agent() {
        m_agents.emplace_back();
        return static_cast<AgentId>(m_agents.size() - 1);
    }
    /// The agent of `b` in slot `s`, its clock `b`'s (given on first use).
    Agent& agent(const BlockState& b, Slot s) {
        Agent& a = m_agents[b.agents[s]];
        if (a.owner != b.generation) adopt(a, b);
        return a;
    }
    /// The instruction count of `b`'s agent in slot `s` (its clock untouched).
    EpochCount& counter(const BlockState& b, Slot s) { return m_agents[b.agents[s]].counter; }

    /// The kernel's state, made empty on first use.
    KernelState& kernel(std::uint32_t id) {
        std::unique_ptr<KernelState>& k = m_kernels[id];
        if (!k) k = new_kernel_state();
        return *k;
    }
    /// A kernel starts: its state (made empty on first use) with `info`; its name is kept
    /// for reports after the kernel is retired.
    KernelState& start_kernel(const KernelInfo& info);
    /// The name of kernel `id`, also once retired ("?" if never started).
    const std::string& kernel_name(std::uint32_t id) const;
    /// The kernel ended and all it did has been collected (end_kernel): its state and blocks
    /// are released, and the agents no later block took over are free for a block that is
    /// ordered after them. So the agents, and with them every clock, grow with the blocks
    /// that can still race, not with the program's length.
    void retire_kernel(std::uint32_t id);
    /// What it holds (Checker::footprint).
    CheckerFootprint footprint() const {
        return {m_agents.size(), m_kernels.size(), m_block_store.size(), m_free_sets.size()};
    }
    /// The ids of the kernels whose state is kept, in id order.
    std::vector<std::uint32_t> kernel_ids() const;

    /// The block `tx` belongs to. A new one starts with its kernel's start clock and after
    /// the previous block on its core (for a kernel of a stream op: only a previous block of
    /// the same kernel; kernels of other streams are ordered by events alone, not by where
    /// the scheduler happened to place them). A block ordered after the previous one takes
    /// over its agents (their counters go on). Otherwise it takes a free agent set whose
    /// whole work its start clock already covers (stream order, events, synchronization),
    /// else new agents. Either way the new block is ordered after everything its agents did
    /// before, so sharing them loses no race, and clocks hold one entry per agent that can
    /// still race, not one per block that ever ran. `created` says it is new (its core's
    /// local memories then start fresh).
    BlockState& block_of(const BlockOf& tx, bool& created) {
        created = false;
        if (is_block_of(m_last_block, tx)) return *m_last_block;
        // Blocks interleave: the one a core ran last is found by the core's index.
        const auto& by_core = m_running[tx.core_type == CoreType::Cube ? 1 : 0];
        if (tx.core < by_core.size() && is_block_of(by_core[tx.core], tx)) {
            m_last_block = by_core[tx.core];
            return *m_last_block;
        }
        return find_or_start_block(tx, created);
    }

    /// Everything the block knew and did, complete: its agents' clocks with every frontier at
    /// its count (once its agents were handed over: as it was then).
    VectorClock drained(const BlockState& b) const;

    /// The scalar unit's knowledge flows into a pipe when it issues there.
    void issue_edge(BlockState& b, Slot pipe) {
        Agent& scalar = agent(b, kScalarSlot);
        Agent& target = agent(b, pipe);
        if (target.scalar_version_seen == scalar.clock.version()) return;
        target.clock.join(scalar.clock);
        target.scalar_version_seen = scalar.clock.version();
    }

    /// Everything `pipe` completed, for a SetFlag or cross-core set fired from it (from the
    /// scalar unit: with its store buffer's stores), written over `into` (whose storage is
    /// reused: no allocation once it has grown).
    void fired(BlockState& b, Slot pipe, VectorClock& into) {
        const Agent& source = agent(b, pipe);
        into = source.clock;
        into.raise(b.agents[pipe], source.counter);
        if (pipe == kScalarSlot) into.raise(b.agents[kStoreSlot], counter(b, kStoreSlot));
    }

    void scalar_learns(BlockState& b, const VectorClock& c) { agent(b, kScalarSlot).clock.join(c); }

    /// The kernel is over: returns all it did (what the host, or its stream, learns).
    VectorClock end_kernel(KernelState& k);
    /// The kernel is over and its blocks learned nothing beyond its start clock and their own
    /// work (!done_from_blocks): what end_kernel() would return is its start raised by these
    /// counts, its blocks' agents at their instruction counts (sorted by agent, no repeats;
    /// valid until the next call). A stream whose clock still covers the kernel's start learns
    /// the same from them without the start's list being copied.
    const std::vector<ClockEntry>& end_counts(KernelState& k);

private:
    std::vector<Agent> m_agents;
    std::uint64_t m_generation = 0;
    // The block that started last on each core, per core type (null: none, or released).
    std::array<std::vector<BlockState*>, 2> m_on_core;
    std::map<std::uint32_t, std::unique_ptr<KernelState>> m_kernels;
    std::vector<std::unique_ptr<KernelState>> m_spare_kernels;  // released, storage kept
    // Free agent sets in the order they were freed, with the stream of their last kernel: a
    // block looks at its own stream's first (stream order covers them).
    // `issued`: each agent's instruction count when the set was freed (free agents issue
    // nothing, so it stays their count until the set is taken).
    struct FreeSet {
        AgentSet agents{};
        std::uint32_t stream = 0;
        std::array<EpochCount, VectorClock::kWindow> issued{};
    };
    std::vector<FreeSet> m_free_sets;
    std::vector<ClockEntry> m_end_counts;         // end_counts(), its storage reused
    std::vector<const BlockState*> m_end_blocks;  // the same
    // Kernel names for reports, interned: 4 bytes per kernel id (the scheduler numbers its
    // kernels in launch order from m_first_kernel_id), one string per name.
    static constexpr std::uint32_t kNoName = ~std::uint32_t{0};
    std::vector<std::string> m_names;
    std::unordered_map<std::string, std::uint32_t> m_name_ids;
    std::vector<std::uint32_t> m_kernel_names;  // by kernel id - m_first_kernel_id
    std::uint32_t m_first_kernel_id = 0;
    BlockState* m_last_block = nullptr;
    // Every block state made; the released ones are reused by the next blocks (their buffers
    // and clocks keep their storage).
    std::vector<std::unique_ptr<BlockState>> m_block_store;
    std::vector<BlockState*> m_spare_blocks;
    std::array<std::vector<BlockState*>, 2> m_running;  // per core type and core: latest block

    static bool is_block_of(const BlockState* b, const BlockOf& tx) {
        return b != nullptr && b->kernel_id == tx.kernel_id && b->block == tx.block &&
               b->type == tx.core_type;
    }
    BlockState& find_or_start_block(const BlockOf& tx, bool& created);
    void new_agents(BlockState& b, const VectorClock& start);
    static void adopt(Agent& a, const BlockState& b) {
        a.clock = b.start;
        a.scalar_version_seen = 0;
        a.start_version = a.clock.version();
        a.owner = b.generation;
    }
    /// Gives `b` the agents of `set`, each starting from `kernel_start` joined with what the
    /// set's previous block knew (`previous`; null: the start covers it).
    void take_agents(BlockState& b, const VectorClock& kernel_start, const AgentSet& set,
                     const VectorClock* previous);
    /// The instruction counts of the agents of `set`, by slot.
    std::array<EpochCount, VectorClock::kWindow> issued(const AgentSet& set) const;
    /// Gives `b` the agents of `set` (take_agents without a previous block) if its start,
    /// `kernel_start`, covers every instruction they issued (`issued`); false otherwise
    /// (then `b.start` holds a clock that a later take_agents or new_agents rewrites).
    bool take_if_covered(BlockState& b, const VectorClock& kernel_start, const AgentSet& set,
                         const std::array<EpochCount, VectorClock::kWindow>& issued);
    /// Takes the first free agent set `start` covers for `b`; false if none.
    bool reuse_free_set(BlockState& b, const VectorClock& start);
    void free_set(const BlockState& b);
    /// Forgets block `b` (its kernel ended; its agents are elsewhere now).
    void free_block(BlockState* b);
    std::unique_ptr<KernelState> new_kernel_state();
    BlockState*& on_core(CoreType type, std::uint32_t core) {
        auto& cores = m_on_core[type == CoreType::Cube ? 1 : 0];
        if (core >= cores.size()) cores.resize(core + 1, nullptr);
        return cores[core];
    }
};

}  // namespace npusim::check
