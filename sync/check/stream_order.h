// Happens-before of a runtime program (Simulator::run_host), from the host-op hooks
// (base/host_ops.h). One agent per stream; its clock is what the stream knows: everything
// completed on it so far.
//   - An op starts with the host's knowledge when it was queued (host program order) joined
//     with everything completed before it on its stream.
//   - A kernel op's blocks start with that knowledge; at its end the kernel's work flows into
//     its stream (not into the host).
//   - A copy or memset accesses GM as its stream's agent when it completes (the caller
//     checks the accesses; see pending()).
//   - An EventRecord captures its stream's knowledge when it completes; an EventWait joins
//     the capture of the record it waits for when it completes (a wait on a never-recorded
//     event is no op at all and orders nothing).
//   - A host synchronization on an op (synchronize_stream/device/event, a successful query)
//     gives the host what the op's stream knew when the op completed.
// Two ops of different streams with none of these between them are unordered, whatever the
// timing of this run.
//
// Memory follows live state, not program length: one entry per op queued and not completed,
// one captured clock per event's latest record (and per older record a queued wait still
// needs), one agent per stream. Clock snapshots are shared while their source is unchanged.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/host_ops.h"
#include "sync/check/agents.h"
#include "sync/check/vector_clock.h"

namespace npusim::check {

/// An op queued and not completed.
struct PendingOp {
    HostOpKind kind = HostOpKind::Kernel;
    std::uint32_t stream = 0;
    std::uint32_t launch = 0;  // its check::HostCalls id
    std::uint32_t event = 0;
    std::uint64_t waits_for = 0;
    std::shared_ptr<const VectorClock> host;  // the host's knowledge when it was queued
    std::optional<VectorClock> kernel_done;   // a kernel op whose kernel ended
    // ...or, ended with its blocks knowing only its start (a copy of its stream's clock,
    // which only grows) and their own work: its agents' counts (kernel_counted)
    std::vector<ClockEntry> kernel_counts;
    bool kernel_counted = false;
    std::vector<GmRange> reads;  // Copy / Memset
    std::vector<GmRange> writes;
};

class StreamOrder final {
public:
    explicit StreamOrder(Agents& agents) : m_agents(agents) {}

    /// Inside a runtime program: from its first op or host access until the host acts
    /// outside it (Simulator::write or launch) or a new program begins (op ids restart).
    bool active() const { return m_active; }
    void begin() { m_active = true; }
    /// The program is over (Simulator::run_host returned: every stream drained or the run
    /// aborted): the host knows everything its streams completed, and the kernels that ended
    /// on ops that never completed. Forgets the program's streams, ops and events.
    void end();
    /// The last op id queued in this program (0: none yet).
    std::uint64_t last_op() const { return m_last_op; }

    void queued(const HostOpInfo& info, std::uint32_t launch);
    /// The op began: its stream learns the host's knowledge at queue time.
    void started(std::uint64_t op);
    /// The op, while queued and not completed (null otherwise).
    const PendingOp* pending(std::uint64_t op) const;
    void kernel_ended(std::uint64_t op, VectorClock done);
    /// The kernel of `op` ended, its blocks having learned nothing beyond their start, which
    /// was a copy of its stream's clock (Agents::end_counts): its end is that start raised by
    /// `counts`, and since a stream's clock only grows, raising the stream's clock by
    /// `counts` when the op completes joins the same (two lists of every agent are not
    /// merged for it).
    void kernel_ended(std::uint64_t op, const std::vector<ClockEntry>& counts);
    /// The op completed: its stream learns what it brought (a kernel's work, a record's
    /// capture); a record captures its stream's knowledge. A copy's or memset's accesses must
    /// be checked before (stream_access()).
    void completed(std::uint64_t op);
    /// The host learned that `op` completed.
    void host_synchronized(std::uint64_t op);

    /// The stream's agent (made on first use).
    AgentId stream_agent(std::uint32_t stream);
    /// A new access epoch of the stream's agent (a copy or memset completing).
    EpochCount stream_access(std::uint32_t stream);

private:
    struct StreamInfo {
        AgentId agent = 0;
        std::uint64_t last_completed = 0;
        std::shared_ptr<const VectorClock> snapshot;  // its clock at snapshot_version
        std::uint64_t snapshot_version = 0;
    };
    struct Capture {  // an EventRecord's knowledge, once it completed
        std::shared_ptr<const VectorClock> clock;
        std::uint32_t refs = 0;  // latest record of its event: 1; plus queued waits on it
    };

    StreamInfo& stream(std::uint32_t id);
    std::shared_ptr<const VectorClock> snapshot(StreamInfo& s);
    void release_capture(std::uint64_t record);
    /// A pending op's entry, made new or from a spare node (its fields are written after).
    PendingOp& add_op(std::uint64_t op);
    /// Forgets an op, keeping its node for the next one.
    void remove_op(std::unordered_map<std::uint64_t, PendingOp>::iterator it);

    Agents& m_agents;
    bool m_active = false;
    std::uint64_t m_last_op = 0;
    std::map<std::uint32_t, StreamInfo> m_streams;
    // The stream stream() found last (an op's hooks ask for it several times); map entries
    // stay put, so the pointer holds until m_streams is cleared.
    std::uint32_t m_last_stream_id = 0;
    StreamInfo* m_last_stream = nullptr;
    // The same by id for the first streams (a program's streams alternate): no map search.
    static constexpr std::uint32_t kIndexedStreams = 256;
    std::vector<StreamInfo*> m_by_id;
    std::unordered_map<std::uint64_t, PendingOp> m_ops;
    static constexpr std::size_t kSpareOps = 64;
    std::vector<std::unordered_map<std::uint64_t, PendingOp>::node_type> m_spare_ops;
    std::unordered_map<std::uint64_t, Capture> m_captures;      // by record op
    std::unordered_map<std::uint32_t, std::uint64_t> m_latest;  // event -> its latest record
    std::shared_ptr<const VectorClock> m_host_snapshot;
    std::uint64_t m_host_snapshot_version = 0;
};

}  // namespace npusim::check
