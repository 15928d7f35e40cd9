#include "sync/deadlock/wait_for_graph.h"

#include <algorithm>
#include <functional>
#include <set>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace npusim {

std::string_view to_string(WaitVertexKind kind) {
    switch (kind) {
        case WaitVertexKind::Blocks:
            return "blocks";
        case WaitVertexKind::Cores:
            return "cores";
        case WaitVertexKind::Kernel:
            return "kernel";
        case WaitVertexKind::Barrier:
            return "barrier";
        case WaitVertexKind::Flag:
            return "flag";
        case WaitVertexKind::CrossCoreFlag:
            return "cross-core flag";
        case WaitVertexKind::Event:
            return "event";
        case WaitVertexKind::Stream:
            return "stream";
        case WaitVertexKind::Host:
            return "host";
        case WaitVertexKind::GmFlag:
            return "flag in GM";
    }
    return "?";
}

WaitForGraph::VertexId WaitForGraph::add_vertex(WaitVertex vertex) {
    m_vertices.push_back(std::move(vertex));
    m_out.emplace_back();
    return static_cast<VertexId>(m_vertices.size() - 1);
}

void WaitForGraph::add_edge(VertexId from, VertexId to, WaitEdgeKind kind) {
    if (from >= m_vertices.size() || to >= m_vertices.size() || has_edge(from, to)) return;
    m_edges.push_back({from, to, kind});
    m_out[from].push_back(to);
}

bool WaitForGraph::has_edge(VertexId from, VertexId to) const {
    const auto& out = m_out.at(from);
    return std::find(out.begin(), out.end(), to) != out.end();
}

std::vector<WaitForGraph::VertexId> WaitForGraph::predecessors(VertexId id) const {
    std::vector<VertexId> list;
    for (const WaitEdge& e : m_edges) {
        if (e.to == id) list.push_back(e.from);
    }
    std::sort(list.begin(), list.end());
    return list;
}

WaitForAnalysis WaitForGraph::analyze() const {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    const std::size_t n = m_vertices.size();
    Graph graph(n);
    for (const WaitEdge& e : m_edges) boost::add_edge(e.from, e.to, graph);
    std::vector<int> component(n, 0);
    const int components = n == 0 ? 0 : boost::strong_components(graph, component.data());

    WaitForAnalysis analysis;
    std::vector<std::vector<VertexId>> members(static_cast<std::size_t>(components));
    for (VertexId v = 0; v < n; ++v) members[static_cast<std::size_t>(component[v])].push_back(v);
    // A component is a cycle when it has two or more vertices, or one with a self-loop.
    for (auto& list : members) {
        const bool cyclic = list.size() > 1 || (list.size() == 1 && has_edge(list[0], list[0]));
        if (cyclic) analysis.cycles.push_back(list);  // members are ascending already
    }
    std::sort(analysis.cycles.begin(), analysis.cycles.end(),
              [](const auto& a, const auto& b) { return a.front() < b.front(); });
    for (VertexId v = 0; v < n; ++v) {
        if (m_vertices[v].blocked && m_out[v].empty()) analysis.orphans.push_back(v);
    }

    // Roots per vertex: a vertex's own root (its cycle, or itself as an orphan), plus those
    // of everything it can reach. Graphs are small (hundreds of vertices): one search each.
    std::vector<std::size_t> own_root(n, static_cast<std::size_t>(-1));
    for (std::size_t i = 0; i < analysis.cycles.size(); ++i) {
        for (VertexId v : analysis.cycles[i]) own_root[v] = i;
    }
    for (std::size_t j = 0; j < analysis.orphans.size(); ++j) {
        own_root[analysis.orphans[j]] = analysis.cycles.size() + j;
    }
    analysis.roots_of.resize(n);
    for (VertexId start = 0; start < n; ++start) {
        std::vector<bool> seen(n, false);
        std::vector<VertexId> stack{start};
        seen[start] = true;
        std::set<std::size_t> roots;
        while (!stack.empty()) {
            const VertexId v = stack.back();
            stack.pop_back();
            if (own_root[v] != static_cast<std::size_t>(-1)) roots.insert(own_root[v]);
            for (VertexId w : m_out[v]) {
                if (!seen[w]) {
                    seen[w] = true;
                    stack.push_back(w);
                }
            }
        }
        analysis.roots_of[start].assign(roots.begin(), roots.end());
    }
    return analysis;
}

std::vector<WaitForGraph::VertexId> WaitForGraph::spell_cycle(
    const std::vector<VertexId>& component) const {
    if (component.empty()) return {};
    std::vector<bool> inside(m_vertices.size(), false);
    for (VertexId v : component) inside[v] = true;
    VertexId start = component.front();
    for (VertexId v : component) {
        if (m_vertices[v].kind == WaitVertexKind::Blocks) {
            start = v;
            break;
        }
    }
    if (component.size() == 1) return {start};

    // Score of a cycle: distinct kernels among its Blocks vertices (more is better), then
    // fewer vertices (shorter text). Depth-first in edge order, so ties keep the first found.
    struct Score {
        std::size_t kernels = 0;
        std::size_t length = 0;
    };
    const auto better = [](const Score& a, const Score& b) {
        return a.kernels != b.kernels ? a.kernels > b.kernels : a.length < b.length;
    };
    std::vector<VertexId> best;
    Score best_score;
    std::vector<VertexId> path{start};
    std::vector<bool> on_path(m_vertices.size(), false);
    on_path[start] = true;
    std::size_t budget = 200'000;  // edge expansions; the graphs are small
    const auto score_of = [&](const std::vector<VertexId>& cycle) {
        std::set<std::uint32_t> kernels;
        for (VertexId v : cycle) {
            if (m_vertices[v].kind == WaitVertexKind::Blocks)
                kernels.insert(m_vertices[v].kernel_id);
        }
        return Score{kernels.size(), cycle.size()};
    };
    std::function<void(VertexId)> search = [&](VertexId v) {
        for (VertexId w : m_out[v]) {
            if (budget == 0) return;
            --budget;
            if (!inside[w]) continue;
            if (w == start) {
                const Score s = score_of(path);
                if (best.empty() || better(s, best_score)) {
                    best = path;
                    best_score = s;
                }
                continue;
            }
            if (on_path[w]) continue;
            on_path[w] = true;
            path.push_back(w);
            search(w);
            path.pop_back();
            on_path[w] = false;
        }
    };
    search(start);
    if (best.empty()) best = {start};
    return best;
}

}  // namespace npusim
