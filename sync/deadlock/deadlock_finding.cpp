#include "sync/deadlock/deadlock_finding.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "base/launch_identity.h"

namespace npusim {

std::string_view to_string(DeadlockKind kind) {
    switch (kind) {
        case DeadlockKind::BarrierCycleAcrossKernels:
            return "barrier cycle across kernels";
        case DeadlockKind::BlocksExceedCores:
            return "blocks exceed cores";
        case DeadlockKind::WaitCycle:
            return "wait cycle";
        case DeadlockKind::OrphanFlagWait:
            return "orphan flag wait";
        case DeadlockKind::OrphanCrossCoreWait:
            return "orphan cross-core wait";
        case DeadlockKind::OrphanBarrierWait:
            return "orphan barrier wait";
        case DeadlockKind::OrphanGmFlagWait:
            return "orphan wait for a flag in GM";
        case DeadlockKind::HostWaitsOnStuckStream:
            return "host waits on a stream that cannot finish";
        case DeadlockKind::SimulatedTimeLimit:
            return "simulated-time limit";
        case DeadlockKind::NoProgressLimit:
            return "no-progress limit";
        case DeadlockKind::PossibleDeadlock:
            return "possible deadlock";
    }
    return "?";
}

std::string format_ranges(const std::vector<std::uint32_t>& sorted) {
    std::string text;
    std::size_t i = 0;
    while (i < sorted.size()) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
        if (!text.empty()) text += ", ";
        text += std::to_string(sorted[i]);
        if (j > i) text += "-" + std::to_string(sorted[j]);
        i = j + 1;
    }
    return text;
}

namespace {

using VertexId = WaitForGraph::VertexId;

std::string range_text(std::uint32_t first, std::uint32_t last) {
    return first == last ? std::to_string(first)
                         : std::to_string(first) + "-" + std::to_string(last);
}

/// "line 40 (k.cpp)" from "k.cpp:40:5"; the text itself when it has no line.
std::string line_text(const std::string& where) {
    const std::size_t first = where.find(':');
    if (first == std::string::npos) return where;
    const std::size_t second = where.find(':', first + 1);
    const std::string line = where.substr(
        first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
    return "line " + line + " (" + where.substr(0, first) + ")";
}

std::string kernel_text(const WaitVertex& v) {
    std::string text = "kernel " + v.kernel;
    if (v.has_stream) text += " (" + stream_label(v.stream, v.stream_name) + ")";
    return text;
}

std::string blocks_text(const WaitVertex& v) {
    std::string text = v.first == v.last ? "block " : "blocks ";
    text += range_text(v.first, v.last);
    if (v.cluster)
        text += " (groups)";
    else if (v.core_type == CoreType::Cube)
        text += " (aic)";
    return text;
}

/// A Blocks vertex as the text names it: with its kernel when it differs from the last one.
std::string name_blocks(const WaitVertex& v, std::optional<std::uint32_t>& last_kernel) {
    std::string text;
    if (last_kernel != v.kernel_id) text = kernel_text(v) + " ";
    last_kernel = v.kernel_id;
    return text + blocks_text(v);
}

std::string shape_text(const WaitVertex& waiting) {
    if (waiting.cluster) return "a cluster (a cube core with its vector cores)";
    return waiting.core_type == CoreType::Cube ? "a cube core" : "a vector core";
}

/// The verb phrase from Blocks `from` through `between` to Blocks `to`.
std::string step_text(const WaitForGraph& g, VertexId from, const std::vector<VertexId>& between,
                      VertexId to, std::optional<std::uint32_t>& last_kernel) {
    const WaitVertex& f = g.vertex(from);
    const std::string target = name_blocks(g.vertex(to), last_kernel);
    if (between.empty()) return "wait behind " + target;
    const WaitVertex& via = g.vertex(between.front());
    switch (via.kind) {
        case WaitVertexKind::Barrier:
            return "wait at " + via.what + " " + line_text(via.where) + " for " + target;
        case WaitVertexKind::Cores:
            return "wait for " + shape_text(f) + " held by " + target;
        case WaitVertexKind::CrossCoreFlag:
            return "wait at " + via.what + " " + line_text(via.where) + " for a set by " + target;
        default:
            return "wait for " + target;
    }
}

/// Cores held by a Blocks vertex: the text of the Cores vertex that is held by it.
std::string cores_of(const WaitForGraph& g, VertexId blocks) {
    for (VertexId p : g.predecessors(blocks)) {
        if (g.vertex(p).kind == WaitVertexKind::Cores) return g.vertex(p).what;
    }
    return {};
}

DeadlockParticipant participant_of(const WaitForGraph& g, VertexId id) {
    const WaitVertex& v = g.vertex(id);
    DeadlockParticipant p;
    p.kernel = v.kernel;
    p.kernel_id = v.kernel_id;
    if (v.has_stream) p.stream = v.stream;
    p.stream_name = v.stream_name;
    p.blocks = range_text(v.first, v.last);
    p.state = v.what;
    p.cores = cores_of(g, id);
    p.where = v.where;
    p.launch = v.launch;
    return p;
}

std::string participants_signature(const std::vector<DeadlockParticipant>& list) {
    std::set<std::string> parts;
    for (const DeadlockParticipant& p : list) {
        std::string part = p.kernel.empty() ? "host" : p.kernel;
        if (p.stream) part += "@s" + std::to_string(*p.stream);
        part += "|" + p.state + "|" + p.where;
        parts.insert(part);
    }
    std::string text;
    for (const std::string& part : parts) text += (text.empty() ? "" : ";") + part;
    return text;
}

struct KernelSummary {
    std::string text;  // "kernel A (stream 1, launched at main.cpp:20)"
    std::uint32_t blocks = 0;
};

/// The kernels of a set of Blocks vertices, in kernel id order.
std::map<std::uint32_t, KernelSummary> kernels_of(const WaitForGraph& g,
                                                  const std::vector<VertexId>& ids) {
    std::map<std::uint32_t, KernelSummary> kernels;
    for (VertexId id : ids) {
        const WaitVertex& v = g.vertex(id);
        if (v.kind != WaitVertexKind::Blocks) continue;
        std::string text = "kernel " + v.kernel;
        std::string extra;
        if (v.has_stream) extra = stream_label(v.stream, v.stream_name);
        if (!v.launch.empty()) extra += (extra.empty() ? "" : ", ") + ("launched at " + v.launch);
        if (!extra.empty()) text += " (" + extra + ")";
        kernels[v.kernel_id] = {text, v.kernel_blocks};
    }
    return kernels;
}

std::string join_kernels(const std::map<std::uint32_t, KernelSummary>& kernels) {
    std::string text;
    std::size_t i = 0;
    for (const auto& [id, k] : kernels) {
        if (i > 0) text += i + 1 == kernels.size() ? " and " : ", ";
        text += k.text;
        ++i;
    }
    return text;
}

DeadlockFinding describe_cycle(const WaitForGraph& g, const std::vector<VertexId>& component,
                               const CoreCapacity& capacity) {
    DeadlockFinding finding;
    const std::vector<VertexId> cycle = g.spell_cycle(component);
    // Spell: Blocks vertices are the nouns, the vertices between them give the verb.
    std::vector<VertexId> stops;
    for (VertexId v : cycle) {
        if (g.vertex(v).kind == WaitVertexKind::Blocks) stops.push_back(v);
    }
    std::optional<std::uint32_t> last_kernel;
    if (!stops.empty()) {
        const auto at = [&](VertexId v) {
            return static_cast<std::size_t>(std::find(cycle.begin(), cycle.end(), v) -
                                            cycle.begin());
        };
        std::string text = name_blocks(g.vertex(stops.front()), last_kernel);
        for (std::size_t i = 0; i < stops.size(); ++i) {
            const VertexId from = stops[i];
            const VertexId to = stops[(i + 1) % stops.size()];
            std::vector<VertexId> between;
            for (std::size_t k = at(from) + 1; k < cycle.size() && cycle[k] != to; ++k) {
                between.push_back(cycle[k]);
            }
            if (i + 1 == stops.size()) {
                // Back to the start: name it in full.
                last_kernel.reset();
                for (std::size_t k = at(from) + 1; k < cycle.size(); ++k) {
                    between.push_back(cycle[k]);
                }
            }
            text += (i == 0 ? " " : ", which ") + step_text(g, from, between, to, last_kernel);
        }
        finding.cycle = text + " again";
    }

    std::set<std::uint32_t> kernel_ids;
    bool core_wait = false;
    std::vector<VertexId> blocks;
    for (VertexId v : component) {
        const WaitVertex& w = g.vertex(v);
        if (w.kind == WaitVertexKind::Blocks) {
            kernel_ids.insert(w.kernel_id);
            blocks.push_back(v);
            finding.participants.push_back(participant_of(g, v));
        }
        if (w.kind == WaitVertexKind::Cores) core_wait = true;
    }
    const auto kernels = kernels_of(g, blocks);
    // The core type the waiting blocks need, for the capacity the fix quotes.
    CoreType type = CoreType::Vector;
    bool cluster = false;
    for (VertexId v : blocks) {
        if (g.vertex(v).state == BlockState::WaitingForCore) {
            type = g.vertex(v).core_type;
            cluster = g.vertex(v).cluster;
        }
    }
    const std::uint32_t cores =
        type == CoreType::Cube || cluster ? capacity.cube_cores : capacity.vector_cores;
    const std::string core_name = cluster                  ? "clusters"
                                  : type == CoreType::Cube ? "cube cores"
                                                           : "vector cores";
    std::uint32_t total = 0;
    for (const auto& [id, k] : kernels) total += k.blocks;

    if (kernel_ids.size() >= 2 && core_wait) {
        finding.kind = DeadlockKind::BarrierCycleAcrossKernels;
        finding.summary = join_kernels(kernels) + " wait for each other: each barrier waits for " +
                          "blocks that wait for cores the other kernels' barriers hold";
        std::string site;
        for (VertexId v : blocks)
            if (site.empty()) site = g.vertex(v).launch;
        finding.fix = "launch these kernels in batch schedule mode (" + batch_mode_remedy(site) +
                      ") so each starts whole, or order them (" + ordering_remedy(site) +
                      "), or launch at most " + std::to_string(cores) +
                      " blocks together (they launch " + std::to_string(total) + " on " +
                      std::to_string(cores) + " " + core_name + ")";
    } else if (kernel_ids.size() == 1 && core_wait) {
        finding.kind = DeadlockKind::BlocksExceedCores;
        const auto& k = kernels.begin()->second;
        finding.summary = k.text + " has " + std::to_string(k.blocks) +
                          " blocks on a chip that holds " + std::to_string(cores) + " " +
                          core_name +
                          " at once: its barrier waits for blocks that can only start after it";
        finding.fix = "launch at most " + std::to_string(cores) + " blocks (the chip's " +
                      core_name +
                      ") for a kernel that uses SyncAll, and give each block more work; or "
                      "drop the SyncAll";
    } else {
        finding.kind = DeadlockKind::WaitCycle;
        finding.summary = join_kernels(kernels) + ": blocks wait for each other in a cycle";
        finding.fix =
            "break the cycle: a block must not wait for a flag or barrier that only a "
            "block waiting for it can satisfy (pair each CrossCoreWaitFlag with a "
            "CrossCoreSetFlag issued before the setter's own waits)";
    }
    finding.signature =
        std::string(to_string(finding.kind)) + "#" + participants_signature(finding.participants);
    return finding;
}

DeadlockFinding describe_orphan(const WaitForGraph& g, VertexId orphan) {
    DeadlockFinding finding;
    const WaitVertex& o = g.vertex(orphan);
    std::vector<VertexId> waiters;
    for (VertexId p : g.predecessors(orphan)) {
        if (g.vertex(p).kind == WaitVertexKind::Blocks) waiters.push_back(p);
    }
    std::string who;
    std::optional<std::uint32_t> last_kernel;
    for (VertexId w : waiters) {
        who += (who.empty() ? "" : " and ") + name_blocks(g.vertex(w), last_kernel);
        finding.participants.push_back(participant_of(g, w));
    }
    if (who.empty()) who = "nothing";
    const std::string at = o.what + " " + line_text(o.where);
    switch (o.kind) {
        case WaitVertexKind::Flag: {
            finding.kind = DeadlockKind::OrphanFlagWait;
            const std::string setter =
                o.what.rfind("WaitFlag", 0) == 0 ? "SetFlag" + o.what.substr(8) : "the SetFlag";
            finding.summary =
                who + " wait at " + o.what + " (" + o.where + "), whose SetFlag is never issued";
            finding.cycle =
                who + " wait at " + at + ", which no " + setter + " on their core ever satisfies";
            finding.fix = "pair this flag: issue " + setter + " on the same core before the " +
                          o.what + " at " + o.where + ", once for every WaitFlag";
            break;
        }
        case WaitVertexKind::CrossCoreFlag:
            finding.kind = DeadlockKind::OrphanCrossCoreWait;
            finding.summary = who + " wait at " + o.what + " (" + o.where +
                              "), which no block of the kernel sets";
            finding.cycle = who + " wait at " + at +
                            ", which no other block can set: they finished or wait at the "
                            "same flag";
            finding.fix = "pair this flag: a CrossCoreSetFlag with flag id " +
                          std::to_string(o.id) +
                          " (mode 0: all AIV or all AIC blocks, mode 1: "
                          "the AIVs of a group, mode 2: within a group) must reach each " +
                          o.what + " at " + o.where;
            break;
        case WaitVertexKind::GmFlag:
            finding.kind = DeadlockKind::OrphanGmFlagWait;
            finding.summary = who + " wait at " + o.what + " (" + o.where +
                              "), which no block of the kernel sets any more";
            finding.cycle = who + " wait at " + at +
                            ", which no other block can set: they finished or wait themselves";
            finding.fix =
                "pair this wait: the block it names must set the flag (IBSet with "
                "the same block and event, NotifyNextBlock of the previous block) "
                "before " +
                o.what + " at " + o.where + " can return";
            break;
        case WaitVertexKind::Barrier:
            finding.kind = DeadlockKind::OrphanBarrierWait;
            finding.summary = who + " wait at " + o.what + " (" + o.where + ") for " + o.detail +
                              ", which finished without reaching it";
            finding.cycle =
                who + " wait at " + at + " for " + o.detail + ", which already finished";
            finding.fix = "every block of the kernel must reach " + o.what +
                          " the same number of times: " + o.detail +
                          " returned without it (a SyncAll inside a branch some blocks skip?)";
            break;
        default:
            finding.kind = DeadlockKind::WaitCycle;
            finding.summary = who + " wait for " + std::string(to_string(o.kind)) + " " + o.what +
                              ", which nothing satisfies";
            finding.cycle = finding.summary;
            finding.fix = "make sure something completes what " + o.what + " waits for";
            break;
    }
    finding.signature = std::string(to_string(finding.kind)) + "#" + o.what + "|" + o.where + "#" +
                        participants_signature(finding.participants);
    return finding;
}

/// "the host thread waits at synchronize_stream (main.cpp:40)", "stream 1", ... for a chain.
std::string chain_noun(const WaitVertex& v) {
    switch (v.kind) {
        case WaitVertexKind::Host:
            return "the host thread" +
                   (v.what.empty() ? std::string() : " at " + v.what + " (" + v.where + ")");
        case WaitVertexKind::Stream:
            return stream_label(v.id, v.stream_name);
        case WaitVertexKind::Event:
            return v.what + (v.where.empty() ? std::string() : " (recorded at " + v.where + ")");
        case WaitVertexKind::Kernel:
            return "kernel " + v.kernel +
                   (v.launch.empty() ? std::string() : " (launched at " + v.launch + ")");
        case WaitVertexKind::Blocks: {
            std::optional<std::uint32_t> none;
            return name_blocks(v, none);
        }
        default:
            return std::string(to_string(v.kind)) + " " + v.what;
    }
}

/// The shortest wait chain from `from` to any vertex in `targets`.
std::vector<VertexId> chain_to(const WaitForGraph& g, VertexId from,
                               const std::set<VertexId>& targets) {
    std::vector<VertexId> parent(g.size(), static_cast<VertexId>(-1));
    std::deque<VertexId> queue{from};
    parent[from] = from;
    while (!queue.empty()) {
        const VertexId v = queue.front();
        queue.pop_front();
        if (targets.count(v) != 0) {
            std::vector<VertexId> path{v};
            while (path.back() != from) path.push_back(parent[path.back()]);
            std::reverse(path.begin(), path.end());
            return path;
        }
        for (VertexId w : g.successors(v)) {
            if (parent[w] == static_cast<VertexId>(-1)) {
                parent[w] = v;
                queue.push_back(w);
            }
        }
    }
    return {from};
}

}  // namespace

std::vector<DeadlockFinding> describe_deadlocks(const WaitForGraph& graph,
                                                const WaitForAnalysis& analysis,
                                                const CoreCapacity& capacity) {
    std::vector<DeadlockFinding> findings;
    // Roots in vertex order (a cycle by its lowest vertex), so numbering is stable.
    std::vector<std::pair<VertexId, std::size_t>> roots;
    for (std::size_t i = 0; i < analysis.cycles.size(); ++i) {
        roots.push_back({analysis.cycles[i].front(), i});
    }
    for (std::size_t j = 0; j < analysis.orphans.size(); ++j) {
        roots.push_back({analysis.orphans[j], analysis.cycles.size() + j});
    }
    std::sort(roots.begin(), roots.end());
    std::map<std::size_t, std::size_t> number_of_root;  // root -> 1-based finding number
    for (const auto& [vertex, root] : roots) {
        findings.push_back(root < analysis.cycles.size()
                               ? describe_cycle(graph, analysis.cycles[root], capacity)
                               : describe_orphan(graph, vertex));
        number_of_root[root] = findings.size();
    }

    for (VertexId h = 0; h < graph.size(); ++h) {
        const WaitVertex& host = graph.vertex(h);
        if (host.kind != WaitVertexKind::Host || analysis.roots_of[h].empty()) continue;
        DeadlockFinding finding;
        finding.kind = DeadlockKind::HostWaitsOnStuckStream;
        std::string behind;
        for (std::size_t root : analysis.roots_of[h]) {
            const std::size_t n = number_of_root.at(root);
            behind +=
                (behind.empty() ? "" : ", ") + ("deadlock " + std::to_string(n) + " (" +
                                                std::string(to_string(findings[n - 1].kind)) + ")");
        }
        // The chain to the first root.
        const std::size_t root = analysis.roots_of[h].front();
        std::set<VertexId> targets;
        if (root < analysis.cycles.size()) {
            targets.insert(analysis.cycles[root].begin(), analysis.cycles[root].end());
        } else {
            targets.insert(analysis.orphans[root - analysis.cycles.size()]);
        }
        const std::vector<VertexId> chain = chain_to(graph, h, targets);
        std::string text;
        for (std::size_t i = 0; i < chain.size(); ++i) {
            text += (i == 0   ? ""
                     : i == 1 ? " waits for "
                              : ", which waits for ") +
                    chain_noun(graph.vertex(chain[i]));
        }
        finding.cycle = text + ", which is part of " + behind;
        finding.summary = "the host thread waits at " + host.what + " (" + host.where +
                          ") for work that cannot finish: it is stuck behind " + behind;
        DeadlockParticipant p;
        p.state = host.what;
        p.where = host.where;
        finding.participants.push_back(p);
        for (VertexId v : chain) {
            const WaitVertex& w = graph.vertex(v);
            if (w.kind == WaitVertexKind::Kernel) {
                DeadlockParticipant k;
                k.kernel = w.kernel;
                k.kernel_id = w.kernel_id;
                if (w.has_stream) k.stream = w.stream;
                k.stream_name = w.stream_name;
                k.state = "cannot finish";
                k.launch = w.launch;
                k.where = w.launch;
                finding.participants.push_back(k);
            }
        }
        finding.fix =
            "fix " + behind + " first; the host call waits correctly for work that cannot finish";
        std::string root_signatures;
        for (std::size_t r : analysis.roots_of[h]) {
            root_signatures += "#" + findings[number_of_root.at(r) - 1].signature;
        }
        finding.signature = std::string(to_string(finding.kind)) + "#" + host.what + "|" +
                            host.where + root_signatures;
        findings.push_back(std::move(finding));
    }
    return findings;
}

std::string format_deadlock(const DeadlockFinding& finding, std::size_t number) {
    const char* label = finding.kind == DeadlockKind::PossibleDeadlock ? "warning " : "deadlock ";
    std::string text = label + std::to_string(number) + ": " +
                       std::string(to_string(finding.kind)) + ": " + finding.summary + "\n";
    if (!finding.cycle.empty()) text += "  " + finding.cycle + "\n";
    if (!finding.verdict.empty()) text += "  exact: " + finding.verdict + "\n";
    for (const DeadlockParticipant& p : finding.participants) {
        text += "  - ";
        if (p.kernel.empty()) {
            text += "host";
        } else {
            text += "kernel " + p.kernel;
            if (p.stream) text += " (" + stream_label(*p.stream, p.stream_name) + ")";
            if (!p.blocks.empty()) text += " blocks " + p.blocks;
        }
        if (!p.state.empty()) text += ": " + p.state;
        if (!p.where.empty()) text += " at " + p.where;
        if (!p.cores.empty()) text += ", holds " + p.cores;
        if (!p.launch.empty() && p.launch != p.where) text += ", launched at " + p.launch;
        text += "\n";
    }
    text += "  fix: " + finding.fix + "\n";
    return text;
}

}  // namespace npusim
