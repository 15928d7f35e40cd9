#include "sync/check/stream_order.h"

namespace npusim::check {

StreamOrder::StreamInfo& StreamOrder::stream(std::uint32_t id) {
    if (m_last_stream != nullptr && m_last_stream_id == id) return *m_last_stream;
    if (id < m_by_id.size() && m_by_id[id] != nullptr) {
        m_last_stream_id = id;
        m_last_stream = m_by_id[id];
        return *m_last_stream;
    }
    const auto it = m_streams.find(id);
    if (it != m_streams.end()) {
        m_last_stream_id = id;
        m_last_stream = &it->second;
        return it->second;
    }
    StreamInfo& s = m_streams[id];
    m_last_stream_id = id;
    m_last_stream = &s;
    if (id < kIndexedStreams) {
        if (id >= m_by_id.size()) m_by_id.resize(id + 1, nullptr);
        m_by_id[id] = &s;
    }
    s.agent = m_agents.add_agent();
    // Its kernels' blocks start from copies of its clock (VectorClock::kFar).
    m_agents.agent(s.agent).clock.focus(VectorClock::kFar);
    return s;
}

AgentId StreamOrder::stream_agent(std::uint32_t id) {
    return stream(id).agent;
}

EpochCount StreamOrder::stream_access(std::uint32_t id) {
    const AgentId agent = stream(id).agent;
    Agent& a = m_agents.agent(agent);
    ++a.counter;
    a.clock.set(agent, a.counter);
    return a.counter;
}

// Shared while the stream's clock is unchanged: a burst of records on an idle stream, or
// captures nobody waits for, cost one copy.
std::shared_ptr<const VectorClock> StreamOrder::snapshot(StreamInfo& s) {
    const VectorClock& clock = m_agents.agent(s.agent).clock;
    if (!s.snapshot || s.snapshot_version != clock.version()) {
        s.snapshot = std::make_shared<const VectorClock>(clock);
        s.snapshot_version = clock.version();
    }
    return s.snapshot;
}

void StreamOrder::release_capture(std::uint64_t record) {
    const auto it = m_captures.find(record);
    if (it != m_captures.end() && --it->second.refs == 0) m_captures.erase(it);
}

void StreamOrder::queued(const HostOpInfo& info, std::uint32_t launch) {
    m_last_op = info.op;
    PendingOp& op = add_op(info.op);
    op.kind = info.kind;
    op.stream = info.stream;
    op.launch = launch;
    op.event = info.event;
    op.waits_for = info.waits_for;
    op.reads = info.reads;
    op.writes = info.writes;
    const VectorClock& host = m_agents.host().clock;
    if (!m_host_snapshot || m_host_snapshot_version != host.version()) {
        m_host_snapshot = std::make_shared<const VectorClock>(host);
        m_host_snapshot_version = host.version();
    }
    op.host = m_host_snapshot;
    stream(info.stream);
    if (info.kind == HostOpKind::EventRecord) {
        // Re-recording replaces the event's capture; waits already queued keep the old one.
        const auto latest = m_latest.find(info.event);
        if (latest != m_latest.end()) release_capture(latest->second);
        m_latest[info.event] = info.op;
        m_captures[info.op].refs = 1;
    } else if (info.kind == HostOpKind::EventWait && info.waits_for != 0) {
        const auto it = m_captures.find(info.waits_for);
        if (it != m_captures.end()) ++it->second.refs;
    }
}

void StreamOrder::started(std::uint64_t op) {
    const auto it = m_ops.find(op);
    if (it == m_ops.end()) return;
    PendingOp& p = it->second;
    if (!p.host) return;  // started already
    m_agents.agent(stream(p.stream).agent).clock.join(*p.host);
    p.host.reset();
}

const PendingOp* StreamOrder::pending(std::uint64_t op) const {
    const auto it = m_ops.find(op);
    return it != m_ops.end() ? &it->second : nullptr;
}

void StreamOrder::kernel_ended(std::uint64_t op, VectorClock done) {
    const auto it = m_ops.find(op);
    if (it != m_ops.end()) it->second.kernel_done = std::move(done);
}

void StreamOrder::kernel_ended(std::uint64_t op, const std::vector<ClockEntry>& counts) {
    const auto it = m_ops.find(op);
    if (it == m_ops.end()) return;
    it->second.kernel_counts.assign(counts.begin(), counts.end());
    it->second.kernel_counted = true;
}

void StreamOrder::completed(std::uint64_t op) {
    const auto it = m_ops.find(op);
    if (it == m_ops.end()) return;
    PendingOp& p = it->second;
    StreamInfo& s = stream(p.stream);
    VectorClock& clock = m_agents.agent(s.agent).clock;
    if (p.host) clock.join(*p.host);  // completed without a start hook
    switch (p.kind) {
        case HostOpKind::Kernel:
            if (p.kernel_done) clock.join(*p.kernel_done);
            if (p.kernel_counted)
                clock.raise_sorted(p.kernel_counts.data(),
                                   p.kernel_counts.data() + p.kernel_counts.size());
            break;
        case HostOpKind::EventRecord: {
            const auto c = m_captures.find(op);
            if (c != m_captures.end()) c->second.clock = snapshot(s);
            break;
        }
        case HostOpKind::EventWait: {
            const auto c = m_captures.find(p.waits_for);
            if (c != m_captures.end() && c->second.clock) clock.join(*c->second.clock);
            release_capture(p.waits_for);
            break;
        }
        case HostOpKind::Copy:
        case HostOpKind::Memset:
            break;
    }
    s.last_completed = op;
    remove_op(it);
}

// A program keeps a few ops pending at a time and queues many: their nodes (and the storage
// of their lists) are reused, not allocated and freed per op.
PendingOp& StreamOrder::add_op(std::uint64_t op) {
    if (m_spare_ops.empty()) return m_ops[op];
    auto node = std::move(m_spare_ops.back());
    m_spare_ops.pop_back();
    node.key() = op;
    // (An id queued twice, which the runtime never does, finds its entry as m_ops[op] would.)
    return m_ops.insert(std::move(node)).position->second;
}

void StreamOrder::remove_op(std::unordered_map<std::uint64_t, PendingOp>::iterator it) {
    auto node = m_ops.extract(it);
    if (m_spare_ops.size() >= kSpareOps) return;
    PendingOp& p = node.mapped();
    // Back to what a new entry holds, with its lists' storage kept.
    p.host.reset();
    p.kernel_done.reset();
    p.kernel_counts.clear();
    p.kernel_counted = false;
    p.reads.clear();
    p.writes.clear();
    m_spare_ops.push_back(std::move(node));
}

void StreamOrder::host_synchronized(std::uint64_t op) {
    VectorClock& host = m_agents.host().clock;
    const auto c = m_captures.find(op);
    if (c != m_captures.end()) {
        if (c->second.clock) host.join(*c->second.clock);
        return;
    }
    // Otherwise the runtime names the last op of a drained stream (synchronize_stream or
    // device, a query that returned Success, a copy staged through pageable memory), whose
    // stream has learned nothing since but the host's own knowledge.
    for (auto& [id, s] : m_streams) {
        if (s.last_completed == op) {
            host.join(m_agents.agent(s.agent).clock);
            return;
        }
    }
    // An op completed earlier than its stream's last: no hook names one today. Learning
    // nothing keeps every race reported.
}

void StreamOrder::end() {
    VectorClock& host = m_agents.host().clock;
    for (auto& [id, s] : m_streams) host.join(m_agents.agent(s.agent).clock);
    // A kernel ended by its counts started from its stream's clock, which the host has just
    // learned: the counts are the rest.
    for (auto& [op, p] : m_ops) {
        if (p.kernel_done) host.join(*p.kernel_done);
        if (p.kernel_counted)
            host.raise_sorted(p.kernel_counts.data(),
                              p.kernel_counts.data() + p.kernel_counts.size());
    }
    m_streams.clear();
    m_by_id.clear();
    m_last_stream = nullptr;
    m_ops.clear();
    m_captures.clear();
    m_latest.clear();
    m_host_snapshot.reset();
    m_last_op = 0;
    m_active = false;
}

}  // namespace npusim::check
