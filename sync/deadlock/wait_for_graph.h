// The wait-for graph of a chip that cannot make progress: who waits for whom. Vertices are
// groups of blocks (contiguous blocks of one kernel in one state), cores (grouped by the
// blocks holding them), kernels, barrier instances (hard and soft SyncAll), intra-core flags,
// cross-core flags, events, streams and the host thread. An edge u -> v says "u cannot go on
// until v does": u waits for v (a block at a barrier waits for the barrier, the barrier for
// its missing blocks), or u is held by v (a core is held by the blocks running on it).
//
// Contract: plain data and Boost.Graph, no SystemC, so it unit-tests on hand-built graphs.
// analyze() finds
//   - cycles: strongly connected components with a cycle (a deadlock among their members);
//   - orphan waits: a blocked vertex with no outgoing edge (a WaitFlag, CrossCoreWaitFlag,
//     barrier or event that nothing can ever satisfy);
// and, for every vertex, which of those it waits on, directly or through others (a host
// synchronize on a stream stuck behind a deadlocked kernel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"

namespace npusim {

enum class WaitVertexKind : std::uint8_t {
    Blocks,         // contiguous blocks of one kernel in one state
    Cores,          // cores of one type held by one group of blocks (or free)
    Kernel,         // a launched kernel (waits for its blocks)
    Barrier,        // one hard or soft SyncAll instance of a kernel
    Flag,           // an intra-core SetFlag/WaitFlag pair on one block's core
    CrossCoreFlag,  // one cross-core flag id as a block waits for it
    Event,          // a runtime event (its captured work)
    Stream,         // a runtime stream (its head operation)
    Host,           // the host program's thread
    GmFlag,         // a flag in GM (IBWait, WaitPreBlock) as a block waits for it
};
std::string_view to_string(WaitVertexKind kind);

/// What a group of blocks is doing (the state that groups them).
enum class BlockState : std::uint8_t {
    Running,         // holds cores, blocked somewhere (see `what`)
    WaitingForCore,  // launched, no core yet
    Finished,
};

enum class WaitEdgeKind : std::uint8_t { WaitsFor, HeldBy };

/// One vertex. Which fields mean something depends on `kind`; unused ones keep defaults.
struct WaitVertex {
    WaitVertexKind kind = WaitVertexKind::Blocks;
    // Kernel identity (Blocks, Cores' holder, Kernel, Barrier, Flag, CrossCoreFlag).
    std::uint32_t kernel_id = 0;
    std::string kernel;
    std::uint32_t stream = 0;
    std::string stream_name;  // the name the program gave it ("": none)
    bool has_stream = false;  // launched through the runtime (a stream to name)
    // Blocks: [first, last] of core type `core_type` (groups when `cluster`); Cores: core
    // indices [first, last] of `core_type`.
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    CoreType core_type = CoreType::Vector;
    bool cluster = false;
    BlockState state = BlockState::Running;
    /// What it is or waits at, for reports: "SyncAll", "soft SyncAll", "WaitFlag V->MTE3
    /// event 0", "CrossCoreWaitFlag(3)", "synchronize_stream", "stream_wait_event".
    std::string what;
    /// Kernel source location ("file.cpp:40:5") or host call site ("main.cpp:17").
    std::string where;
    std::string launch;               // host call site of the kernel's launch, if known
    std::uint32_t kernel_blocks = 0;  // the kernel's N (blocks, or groups)
    std::string detail;               // more for reports (a barrier's finished blocks)
    std::uint64_t id = 0;             // barrier instance, flag id, event id, stream id, host op id
    /// It waits for something: with no outgoing edge, nothing can ever satisfy it (orphan).
    bool blocked = false;
};

struct WaitEdge {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    WaitEdgeKind kind = WaitEdgeKind::WaitsFor;
};

struct WaitForAnalysis {
    /// Each cycle: the vertices of one strongly connected component that contains a cycle,
    /// ascending. Cycles are ordered by their lowest vertex.
    std::vector<std::vector<std::uint32_t>> cycles;
    /// Blocked vertices with no outgoing edge, ascending.
    std::vector<std::uint32_t> orphans;
    /// Per vertex: the roots it waits on, directly or through others, ascending. A root is
    /// an index into `cycles` (i) or into `orphans` (cycles.size() + j).
    std::vector<std::vector<std::size_t>> roots_of;
    std::size_t root_count() const { return cycles.size() + orphans.size(); }
};

class WaitForGraph final {
public:
    using VertexId = std::uint32_t;

    VertexId add_vertex(WaitVertex vertex);
    /// Adds u -> v once (a repeated edge is ignored).
    void add_edge(VertexId from, VertexId to, WaitEdgeKind kind = WaitEdgeKind::WaitsFor);

    std::size_t size() const { return m_vertices.size(); }
    const WaitVertex& vertex(VertexId id) const { return m_vertices.at(id); }
    WaitVertex& vertex(VertexId id) { return m_vertices.at(id); }
    const std::vector<WaitVertex>& vertices() const { return m_vertices; }
    const std::vector<WaitEdge>& edges() const { return m_edges; }
    /// Targets of u's outgoing edges, in insertion order.
    const std::vector<VertexId>& successors(VertexId id) const { return m_out.at(id); }
    std::vector<VertexId> predecessors(VertexId id) const;
    bool has_edge(VertexId from, VertexId to) const;

    WaitForAnalysis analyze() const;

    /// A simple cycle through `component` (one of analyze().cycles) that starts at its
    /// lowest Blocks vertex (or lowest vertex) and visits as many Blocks vertices of distinct
    /// kernels as it can, so that a cycle through three kernels is spelled through all three.
    /// Deterministic; the search is bounded, beyond the bound the best cycle found is used.
    std::vector<VertexId> spell_cycle(const std::vector<VertexId>& component) const;

private:
    std::vector<WaitVertex> m_vertices;
    std::vector<WaitEdge> m_edges;
    std::vector<std::vector<VertexId>> m_out;
};

}  // namespace npusim
