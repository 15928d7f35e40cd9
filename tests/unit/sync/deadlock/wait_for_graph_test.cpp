// The wait-for graph on hand-built graphs: cycles (strongly connected components), orphan
// waits, what each vertex waits on, and a cycle spelled through every kernel in it.
#include "sync/deadlock/wait_for_graph.h"

#include <set>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;
using Ids = std::vector<std::uint32_t>;

namespace {

WaitVertex blocks(std::uint32_t kernel_id, std::uint32_t first, std::uint32_t last) {
    WaitVertex v;
    v.kind = WaitVertexKind::Blocks;
    v.kernel_id = kernel_id;
    v.kernel = "k" + std::to_string(kernel_id);
    v.first = first;
    v.last = last;
    v.blocked = true;
    return v;
}

WaitVertex of_kind(WaitVertexKind kind, bool blocked = true) {
    WaitVertex v;
    v.kind = kind;
    v.blocked = blocked;
    return v;
}

}  // namespace

TEST_CASE("wait-for graph: a 2-cycle of two kernels through a barrier and cores", "[unit]") {
    // A 0-23 at SyncAll -> barrier A -> A 24-29 waiting for a core -> cores held by B 0-23 ->
    // B at SyncAll -> barrier B -> B 24-29 -> cores held by A 0-23 -> A 0-23.
    WaitForGraph g;
    const auto a_run = g.add_vertex(blocks(0, 0, 23));
    const auto a_bar = g.add_vertex(of_kind(WaitVertexKind::Barrier));
    const auto a_wait = g.add_vertex(blocks(0, 24, 29));
    const auto b_cores = g.add_vertex(of_kind(WaitVertexKind::Cores));
    const auto b_run = g.add_vertex(blocks(1, 0, 23));
    const auto b_bar = g.add_vertex(of_kind(WaitVertexKind::Barrier));
    const auto b_wait = g.add_vertex(blocks(1, 24, 29));
    const auto a_cores = g.add_vertex(of_kind(WaitVertexKind::Cores));
    g.add_edge(a_run, a_bar);
    g.add_edge(a_bar, a_wait);
    g.add_edge(a_wait, b_cores);
    g.add_edge(a_wait, a_cores);
    g.add_edge(b_cores, b_run, WaitEdgeKind::HeldBy);
    g.add_edge(b_run, b_bar);
    g.add_edge(b_bar, b_wait);
    g.add_edge(b_wait, a_cores);
    g.add_edge(b_wait, b_cores);
    g.add_edge(a_cores, a_run, WaitEdgeKind::HeldBy);

    const WaitForAnalysis result = g.analyze();
    REQUIRE(result.cycles.size() == 1);
    CHECK(result.cycles[0] == Ids{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(result.orphans.empty());
    // The spelled cycle goes through both kernels, starting at A's running blocks.
    const auto cycle = g.spell_cycle(result.cycles[0]);
    CHECK(cycle == Ids{a_run, a_bar, a_wait, b_cores, b_run, b_bar, b_wait, a_cores});
}

TEST_CASE("wait-for graph: a 3-cycle is spelled through all three kernels", "[unit]") {
    // Three kernels, each waiting for a core held by either of the other two: the shortest
    // cycles are pairs, but the deadlock is among all three.
    WaitForGraph g;
    std::vector<std::uint32_t> run, wait, cores;
    for (std::uint32_t k = 0; k < 3; ++k) {
        run.push_back(g.add_vertex(blocks(k, 0, 15)));
        const auto bar = g.add_vertex(of_kind(WaitVertexKind::Barrier));
        wait.push_back(g.add_vertex(blocks(k, 16, 19)));
        cores.push_back(g.add_vertex(of_kind(WaitVertexKind::Cores)));
        g.add_edge(run[k], bar);
        g.add_edge(bar, wait[k]);
        g.add_edge(cores[k], run[k], WaitEdgeKind::HeldBy);
    }
    for (std::uint32_t k = 0; k < 3; ++k) {
        for (std::uint32_t other = 0; other < 3; ++other) {
            if (other != k) g.add_edge(wait[k], cores[other]);
        }
    }
    const WaitForAnalysis result = g.analyze();
    REQUIRE(result.cycles.size() == 1);
    CHECK(result.cycles[0].size() == 12);
    const auto cycle = g.spell_cycle(result.cycles[0]);
    std::set<std::uint32_t> kernels;
    for (auto v : cycle) {
        if (g.vertex(v).kind == WaitVertexKind::Blocks) kernels.insert(g.vertex(v).kernel_id);
    }
    CHECK(kernels.size() == 3);
    CHECK(cycle.front() == run[0]);
    // Every step of the spelled cycle is an edge, and it closes.
    for (std::size_t i = 0; i < cycle.size(); ++i) {
        CHECK(g.has_edge(cycle[i], cycle[(i + 1) % cycle.size()]));
    }
}

TEST_CASE("wait-for graph: an orphan wait and everything waiting behind it", "[unit]") {
    // Blocks at a WaitFlag nobody sets; a kernel waits for those blocks; a stream waits for
    // the kernel; the host synchronizes the stream.
    WaitForGraph g;
    const auto host = g.add_vertex(of_kind(WaitVertexKind::Host));
    const auto stream = g.add_vertex(of_kind(WaitVertexKind::Stream));
    const auto kernel = g.add_vertex(of_kind(WaitVertexKind::Kernel));
    const auto stuck = g.add_vertex(blocks(0, 0, 3));
    const auto flag = g.add_vertex(of_kind(WaitVertexKind::Flag));
    const auto idle = g.add_vertex(of_kind(WaitVertexKind::Cores, false));  // not blocked
    g.add_edge(host, stream);
    g.add_edge(stream, kernel);
    g.add_edge(kernel, stuck);
    g.add_edge(stuck, flag);

    const WaitForAnalysis result = g.analyze();
    CHECK(result.cycles.empty());
    CHECK(result.orphans == Ids{flag});
    REQUIRE(result.root_count() == 1);
    for (auto v : {host, stream, kernel, stuck, flag}) {
        CHECK(result.roots_of[v] == std::vector<std::size_t>{0});
    }
    CHECK(result.roots_of[idle].empty());
}

TEST_CASE("wait-for graph: a chain without a cycle or orphan has no deadlock", "[unit]") {
    // Everything waits for something that is not blocked (a running kernel's free cores).
    WaitForGraph g;
    const auto a = g.add_vertex(blocks(0, 0, 7));
    const auto b = g.add_vertex(blocks(1, 0, 7));
    const auto free_cores = g.add_vertex(of_kind(WaitVertexKind::Cores, false));
    g.add_edge(a, b);
    g.add_edge(b, free_cores);
    g.add_edge(a, b);  // a repeated edge is ignored
    CHECK(g.edges().size() == 2);
    const WaitForAnalysis result = g.analyze();
    CHECK(result.cycles.empty());
    CHECK(result.orphans.empty());
    CHECK(result.roots_of[a].empty());
}

TEST_CASE("wait-for graph: a self-loop is a cycle, two disjoint cycles are two", "[unit]") {
    WaitForGraph g;
    const auto self = g.add_vertex(blocks(0, 0, 0));
    g.add_edge(self, self);
    const auto x = g.add_vertex(blocks(1, 0, 0));
    const auto y = g.add_vertex(blocks(2, 0, 0));
    g.add_edge(x, y);
    g.add_edge(y, x);
    const WaitForAnalysis result = g.analyze();
    REQUIRE(result.cycles.size() == 2);
    CHECK(result.cycles[0] == Ids{self});
    CHECK(result.cycles[1] == Ids{x, y});
    CHECK(g.spell_cycle(result.cycles[0]) == Ids{self});
}
