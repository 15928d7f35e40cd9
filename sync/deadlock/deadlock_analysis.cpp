#include "sync/deadlock/deadlock_analysis.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "base/launch_identity.h"
#include "base/syncall_id.h"
#include "pipes/op_table.h"

namespace npusim {

namespace {

using VertexId = WaitForGraph::VertexId;

std::string sync_all_name(std::uint64_t sync_id) {
    switch (SyncAllId::decode(sync_id).kind) {
        case SyncAllId::Kind::HardAll:
            return "SyncAll";
        case SyncAllId::Kind::HardVector:
            return "SyncAll<AIV>";
        case SyncAllId::Kind::Soft:
            return "soft SyncAll";
    }
    return "SyncAll";
}

std::string flag_name(const StuckWait& wait) {
    Transaction tx;
    tx.op = Op::WaitFlag;
    tx.flag_src = wait.flag_src;
    tx.flag_dst = wait.flag_dst;
    tx.event_id = wait.flag_id;
    return flag_instruction_name(tx);
}

/// What a running block waits at: the text that groups blocks and names their state.
std::string state_of(const StuckBlock* stuck) {
    if (stuck == nullptr) return "running";
    switch (stuck->wait.kind) {
        case StuckWaitKind::HardSyncAll:
            return "at " + sync_all_name(stuck->wait.sync_id);
        case StuckWaitKind::SoftSyncAll:
            return "at soft SyncAll (spinning)";
        case StuckWaitKind::Flag:
            return "at " + flag_name(stuck->wait);
        case StuckWaitKind::CrossCoreFlag:
            return "at CrossCoreWaitFlag(" + std::to_string(stuck->wait.flag_id) + ")";
        case StuckWaitKind::GmFlag:
            return "at " + stuck->wait.gm_flag;
        case StuckWaitKind::Unknown:
            break;
    }
    return "stuck: " + stuck->reason;
}

/// One block of a kernel on one core type, as the builder sees it.
struct BlockSlot {
    CoreType type = CoreType::Vector;
    std::uint32_t block = 0;
    std::uint32_t core = 0;
    const StuckBlock* stuck = nullptr;
};

class GraphBuilder final {
public:
    explicit GraphBuilder(const DeadlockInputs& inputs) : m_in(inputs) {}

private:
    struct Group {
        VertexId vertex = 0;
        std::vector<std::uint32_t> cores;
        const StuckBlock* stuck = nullptr;  // the first block's (all share its state)
    };

public:
    WaitForGraph build() {
        for (const StuckBlock& s : m_in.stuck) {
            if (s.core >= 0) {
                m_stuck[{s.core_type, static_cast<std::uint32_t>(s.core)}] = &s;
            }
        }
        for (const KernelState& k : m_in.scheduler.kernels) add_kernel_blocks(k);
        for (const KernelState& k : m_in.scheduler.kernels) add_waits(k);
        add_core_waits();
        if (m_in.runtime) add_runtime();
        return std::move(m_graph);
    }

private:
    WaitVertex kernel_vertex(const KernelState& k, WaitVertexKind kind) const {
        WaitVertex v;
        v.kind = kind;
        v.kernel_id = k.id;
        v.kernel = k.name;
        v.stream = k.stream;
        v.stream_name = k.stream_name;
        v.has_stream = m_in.runtime.has_value();
        v.kernel_blocks = k.blocks;
        v.launch = k.launch_site;
        v.blocked = true;
        return v;
    }

    /// Groups the kernel's running blocks by state and adds its blocks without a core.
    void add_kernel_blocks(const KernelState& k) {
        std::vector<BlockSlot> slots;
        for (const HeldCore& h : k.held) {
            const auto it = m_stuck.find({h.type, h.core});
            slots.push_back({h.type, h.block, h.core, it == m_stuck.end() ? nullptr : it->second});
        }
        std::sort(slots.begin(), slots.end(), [](const BlockSlot& a, const BlockSlot& b) {
            return std::tie(a.type, a.block) < std::tie(b.type, b.block);
        });
        std::size_t i = 0;
        while (i < slots.size()) {
            const std::string state = state_of(slots[i].stuck);
            const std::string where = slots[i].stuck ? slots[i].stuck->where : std::string();
            std::size_t j = i;
            while (j + 1 < slots.size() && slots[j + 1].type == slots[i].type &&
                   slots[j + 1].block == slots[j].block + 1 &&
                   state_of(slots[j + 1].stuck) == state &&
                   (slots[j + 1].stuck ? slots[j + 1].stuck->where : std::string()) == where) {
                ++j;
            }
            WaitVertex v = kernel_vertex(k, WaitVertexKind::Blocks);
            v.first = slots[i].block;
            v.last = slots[j].block;
            v.core_type = slots[i].type;
            v.state = BlockState::Running;
            v.what = state;
            v.where = where;
            v.blocked = slots[i].stuck != nullptr;
            const VertexId id = m_graph.add_vertex(std::move(v));
            Group group{id, {}, slots[i].stuck};
            std::vector<std::uint32_t> cores;
            for (std::size_t s = i; s <= j; ++s) {
                m_running[{k.id, slots[s].type, slots[s].block}] = id;
                cores.push_back(slots[s].core);
            }
            std::sort(cores.begin(), cores.end());
            group.cores = cores;
            m_groups.push_back({k.id, slots[i].type, group});
            i = j + 1;
        }
        if (k.waiting) {
            const WaitingBlocks& w = *k.waiting;
            WaitVertex v = kernel_vertex(k, WaitVertexKind::Blocks);
            v.first = w.first_block;
            v.last = w.first_block + w.count - 1;
            v.core_type = w.core_type;
            v.cluster = w.cluster;
            v.state = BlockState::WaitingForCore;
            v.what = w.reason == WaitReason::BehindBatch ? "waiting behind a batch kernel"
                     : w.cluster                         ? "waiting for a cluster"
                     : w.core_type == CoreType::Cube     ? "waiting for a cube core"
                                                         : "waiting for a vector core";
            m_waiting[k.id] = m_graph.add_vertex(std::move(v));
        }
    }

    /// The vertex of block `block` of core type `type` of kernel `k`, if it has not finished.
    std::optional<VertexId> vertex_of_block(const KernelState& k, CoreType type,
                                            std::uint32_t block) const {
        const auto run = m_running.find({k.id, type, block});
        if (run != m_running.end()) return run->second;
        if (k.waiting) {
            const std::uint32_t per = type == CoreType::Vector ? vector_cores_per_block(k.type)
                                                               : cube_cores_per_block(k.type);
            const std::uint32_t group = per == 0 ? block : block / per;
            const WaitingBlocks& w = *k.waiting;
            if (group >= w.first_block && group < w.first_block + w.count) {
                return m_waiting.at(k.id);
            }
        }
        return std::nullopt;
    }

    void add_waits(const KernelState& k) {
        for (const auto& [kernel_id, type, group] : m_groups) {
            if (kernel_id != k.id || group.stuck == nullptr) continue;
            const StuckWait& wait = group.stuck->wait;
            switch (wait.kind) {
                case StuckWaitKind::HardSyncAll:
                case StuckWaitKind::SoftSyncAll:
                    add_barrier(k, group);
                    break;
                case StuckWaitKind::Flag: {
                    WaitVertex v = kernel_vertex(k, WaitVertexKind::Flag);
                    v.what = flag_name(wait);
                    v.where = wait.flag_where.empty() ? group.stuck->where : wait.flag_where;
                    v.id = wait.flag_id;
                    m_graph.add_edge(group.vertex, m_graph.add_vertex(std::move(v)));
                    break;
                }
                case StuckWaitKind::CrossCoreFlag:
                    add_cross_core(k, group);
                    break;
                case StuckWaitKind::GmFlag:
                    add_gm_flag(k, group);
                    break;
                case StuckWaitKind::Unknown:
                    break;
            }
        }
        // Every kernel waits for its unfinished blocks (a stream waits for its kernel).
        WaitVertex kv = kernel_vertex(k, WaitVertexKind::Kernel);
        kv.what = "kernel " + k.name;
        const VertexId kernel = m_graph.add_vertex(std::move(kv));
        m_kernels[k.id] = kernel;
        for (const auto& [kernel_id, type, group] : m_groups) {
            if (kernel_id == k.id) m_graph.add_edge(kernel, group.vertex);
        }
        if (m_waiting.count(k.id) != 0) m_graph.add_edge(kernel, m_waiting.at(k.id));
    }

    void add_barrier(const KernelState& k, const Group& group) {
        const StuckWait& wait = group.stuck->wait;
        const auto key = std::make_pair(k.id, wait.sync_id);
        auto it = m_barriers.find(key);
        if (it == m_barriers.end()) {
            WaitVertex v = kernel_vertex(k, WaitVertexKind::Barrier);
            v.what = sync_all_name(wait.sync_id);
            v.where = group.stuck->where;
            v.id = wait.sync_id;
            const VertexId barrier = m_graph.add_vertex(std::move(v));
            it = m_barriers.emplace(key, barrier).first;
            // Its missing blocks: if any finished, nothing can ever release it (orphan).
            std::vector<VertexId> targets;
            std::vector<std::uint32_t> finished_vector, finished_cube;
            for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
                const auto& missing =
                    type == CoreType::Vector ? wait.missing_vector : wait.missing_cube;
                for (std::uint32_t b : missing) {
                    if (const auto target = vertex_of_block(k, type, b)) {
                        targets.push_back(*target);
                    } else {
                        (type == CoreType::Vector ? finished_vector : finished_cube).push_back(b);
                    }
                }
            }
            if (finished_vector.empty() && finished_cube.empty()) {
                for (VertexId t : targets) m_graph.add_edge(barrier, t);
            } else {
                std::string detail;
                if (!finished_vector.empty()) {
                    detail = (finished_vector.size() == 1 ? "block " : "blocks ") +
                             format_ranges(finished_vector);
                }
                if (!finished_cube.empty()) {
                    detail += (detail.empty() ? "" : " and ") +
                              std::string(finished_cube.size() == 1 ? "block " : "blocks ") +
                              format_ranges(finished_cube) + " (aic)";
                }
                WaitVertex& b = m_graph.vertex(barrier);
                b.detail = detail;
            }
        }
        m_graph.add_edge(group.vertex, it->second);
    }

    void add_cross_core(const KernelState& k, const Group& group) {
        const StuckWait& wait = group.stuck->wait;
        WaitVertex v = kernel_vertex(k, WaitVertexKind::CrossCoreFlag);
        v.what = "CrossCoreWaitFlag(" + std::to_string(wait.flag_id) + ")";
        v.where = group.stuck->where;
        v.id = wait.flag_id;
        const VertexId flag = m_graph.add_vertex(std::move(v));
        m_graph.add_edge(group.vertex, flag);
        // Who could still set it: every other unfinished block of the kernel that does not
        // itself wait at a CrossCoreWaitFlag of the same id.
        for (const auto& [kernel_id, type, other] : m_groups) {
            if (kernel_id != k.id || other.vertex == group.vertex) continue;
            if (other.stuck != nullptr && other.stuck->wait.kind == StuckWaitKind::CrossCoreFlag &&
                other.stuck->wait.flag_id == wait.flag_id) {
                continue;
            }
            m_graph.add_edge(flag, other.vertex);
        }
        if (m_waiting.count(k.id) != 0) m_graph.add_edge(flag, m_waiting.at(k.id));
    }

    /// A wait for a flag in GM: any other unfinished block of the kernel might still set it.
    void add_gm_flag(const KernelState& k, const Group& group) {
        WaitVertex v = kernel_vertex(k, WaitVertexKind::GmFlag);
        v.what = group.stuck->wait.gm_flag;
        v.where = group.stuck->where;
        const VertexId flag = m_graph.add_vertex(std::move(v));
        m_graph.add_edge(group.vertex, flag);
        for (const auto& [kernel_id, type, other] : m_groups) {
            if (kernel_id == k.id && other.vertex != group.vertex) {
                m_graph.add_edge(flag, other.vertex);
            }
        }
        if (m_waiting.count(k.id) != 0) m_graph.add_edge(flag, m_waiting.at(k.id));
    }

    /// Cores vertices (held by running groups) and the edges of blocks waiting for a core.
    void add_core_waits() {
        std::vector<std::pair<CoreType, VertexId>> cores;
        for (const auto& [kernel_id, type, group] : m_groups) {
            WaitVertex v;
            v.kind = WaitVertexKind::Cores;
            v.core_type = type;
            v.first = group.cores.front();
            v.last = group.cores.back();
            v.what = std::string(to_string(type)) + " " + format_ranges(group.cores);
            v.blocked = true;
            const VertexId id = m_graph.add_vertex(std::move(v));
            m_graph.add_edge(id, group.vertex, WaitEdgeKind::HeldBy);
            cores.push_back({type, id});
        }
        for (const KernelState& k : m_in.scheduler.kernels) {
            if (!k.waiting) continue;
            const VertexId waiting = m_waiting.at(k.id);
            if (k.waiting->reason == WaitReason::BehindBatch && k.waiting->behind_kernel) {
                const auto batch = m_waiting.find(*k.waiting->behind_kernel);
                if (batch != m_waiting.end()) {
                    m_graph.add_edge(waiting, batch->second);
                    continue;
                }
            }
            const bool vector = vector_cores_per_block(k.type) > 0;
            const bool cube = cube_cores_per_block(k.type) > 0;
            for (const auto& [type, id] : cores) {
                if ((type == CoreType::Vector && vector) || (type == CoreType::Cube && cube)) {
                    m_graph.add_edge(waiting, id);
                }
            }
        }
    }

    void add_runtime() {
        // Streams wait for their head op: a kernel, or an event (the record's stream).
        std::map<std::uint32_t, VertexId> streams;
        std::map<std::uint32_t, std::string> names;
        for (const StreamWaitState& s : m_in.runtime->streams)
            if (!s.name.empty()) names[s.stream] = s.name;
        const auto stream_vertex = [&](std::uint32_t id) {
            auto it = streams.find(id);
            if (it != streams.end()) return it->second;
            WaitVertex v;
            v.kind = WaitVertexKind::Stream;
            v.id = id;
            v.stream = id;
            const auto name = names.find(id);
            if (name != names.end()) v.stream_name = name->second;
            v.has_stream = true;
            v.what = stream_label(id, v.stream_name);
            return streams.emplace(id, m_graph.add_vertex(std::move(v))).first->second;
        };
        // A waiter (a stream's head, or the host in synchronize_event) waits for an event,
        // the event for the stream it was recorded on.
        const auto wait_for_event = [&](VertexId waiter, std::uint32_t event,
                                        const std::string& name, std::uint32_t recorded_on) {
            WaitVertex ev;
            ev.kind = WaitVertexKind::Event;
            ev.id = event;
            ev.what = event_label(event, name);
            ev.blocked = true;
            const VertexId e = m_graph.add_vertex(std::move(ev));
            m_graph.add_edge(waiter, e);
            m_graph.add_edge(e, stream_vertex(recorded_on));
        };
        const RuntimeWaitState& runtime = *m_in.runtime;
        std::vector<std::uint32_t> busy;  // streams with queued work, in stream order
        for (const StreamWaitState& head : runtime.streams) {
            if (head.queued == 0) continue;
            busy.push_back(head.stream);
            stream_vertex(head.stream);
        }
        for (const StreamWaitState& head : runtime.streams) {
            if (head.queued == 0) continue;
            const VertexId s = stream_vertex(head.stream);
            WaitVertex& sv = m_graph.vertex(s);
            sv.blocked = true;
            sv.where = head.head_where;
            if (head.head_kind == HostOpKind::Kernel) {
                // The stream's kernel in the scheduler (a stream has at most one there).
                for (const KernelState& k : m_in.scheduler.kernels) {
                    if (k.stream == head.stream && m_kernels.count(k.id) != 0) {
                        m_graph.add_edge(s, m_kernels.at(k.id));
                    }
                }
            } else if (head.head_kind == HostOpKind::EventWait && head.waits_for_op != 0) {
                wait_for_event(s, head.event, head.event_name, head.waits_for_stream);
            }
        }
        const HostWait& host = runtime.host;
        if (host.kind == HostWait::Kind::None) return;
        WaitVertex hv;
        hv.kind = WaitVertexKind::Host;
        hv.what = host.call;
        hv.where = host.where;
        hv.blocked = true;
        const VertexId h = m_graph.add_vertex(std::move(hv));
        // Synchronizing the device waits for every busy stream; the rest for their one stream.
        if (host.kind == HostWait::Kind::Device) {
            for (std::uint32_t s : busy) m_graph.add_edge(h, stream_vertex(s));
        } else if (host.kind == HostWait::Kind::Event) {
            wait_for_event(h, host.event, host.event_name, host.stream);
        } else {
            m_graph.add_edge(h, stream_vertex(host.stream));
        }
    }

    const DeadlockInputs& m_in;
    WaitForGraph m_graph;
    std::map<std::pair<CoreType, std::uint32_t>, const StuckBlock*> m_stuck;
    std::map<std::tuple<std::uint32_t, CoreType, std::uint32_t>, VertexId> m_running;
    std::map<std::uint32_t, VertexId> m_waiting;
    std::map<std::uint32_t, VertexId> m_kernels;
    std::map<std::pair<std::uint32_t, std::uint64_t>, VertexId> m_barriers;
    std::vector<std::tuple<std::uint32_t, CoreType, Group>> m_groups;
};

}  // namespace

WaitForGraph build_wait_for_graph(const DeadlockInputs& inputs) {
    return GraphBuilder(inputs).build();
}

std::vector<DeadlockFinding> analyze_deadlock(const DeadlockInputs& inputs) {
    const WaitForGraph graph = build_wait_for_graph(inputs);
    return describe_deadlocks(graph, graph.analyze(), inputs.capacity);
}

}  // namespace npusim
