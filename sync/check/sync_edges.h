// Happens-before edges from synchronization, and synccheck:
//   - SetFlag carries everything its pipe completed; WaitFlag joins it (intra-core flags, per
//     core, (src, dst) pipe pair and event id, oldest first);
//   - PipeBarrier<pipe> orders a pipe's instructions; PipeBarrier<PIPE_ALL> drains the block;
//   - hard and soft SyncAll: every arrival's work before every departure;
//   - cross-core flags, routed as the simulator routes them (sync/cross_core_routing.h).
// Reports a duplicate SetFlag, a SetFlag never waited for, and a cross-core flag overflow.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <source_location>
#include <tuple>
#include <utility>
#include <vector>

#include "base/transaction.h"
#include "sync/check/agents.h"
#include "sync/check/finding_reporter.h"
#include "sync/checker.h"
#include "sync/vector_clock.h"

namespace npusim::check {

class SyncEdges final {
public:
    SyncEdges(Agents& agents, FindingReporter& reporter, const CheckerOptions& options);

    /// A synchronization instruction (one without memory accesses) of block `b`.
    void instruction(BlockState& b, const Transaction& tx);

    /// synccheck at kernel end: every SetFlag of the kernel still pending was never waited for.
    void report_unpaired(std::uint32_t kernel_id);
    /// The kernel aborted: the reset cores dropped its pending intra-core flags.
    void drop_flags(std::uint32_t kernel_id);

private:
    struct FlagRecord {
        std::uint64_t serial = 0;
        std::uint32_t kernel_id = 0;
        std::uint32_t block = 0;
        std::source_location where;
        VectorClock clock;
        bool reported = false;
    };
    using FlagQueue = std::deque<FlagRecord>;

    FlagQueue& flag_queue(const BlockState& b, const Transaction& tx);
    void cross_set(const Transaction& tx, const VectorClock& clock);
    void post_cross(const Transaction& tx, CoreType type, std::uint32_t block,
                    const VectorClock& clock);

    Agents& m_agents;
    FindingReporter& m_reporter;
    const CheckerOptions& m_options;

    // Intra-core flags: per (core type, core, src, dst, id), oldest first. The ordered map
    // gives the report order at kernel end; its nodes never move.
    std::map<std::tuple<CoreType, std::uint32_t, Pipe, Pipe, std::uint32_t>, FlagQueue> m_flags;
    // The same queues per core type and core, indexed by (id, pipe_index(src),
    // pipe_index(dst)): grown on demand, so any event id (ChipConfig::event_ids) is cached.
    std::array<std::vector<std::vector<FlagQueue*>>, 2> m_flag_cache;

    // SyncAll barriers by (kernel, sync_id, op). Transaction::sync_id is the barrier
    // instance's identity (sync/syncall_id.h): equal on every block of the same instance and
    // different for every other instance of the kernel, so the arrivals of one instance join
    // one clock and its departures learn it. The op keeps hard and soft apart.
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>, VectorClock> m_barriers;

    // Cross-core flags, mirroring sync/cross_core_flags.h: each block's pending sets per id
    // (oldest first), and the rounds of modes 0 and 1 by (kernel, round key, id).
    std::map<std::tuple<std::uint32_t, CoreType, std::uint32_t, std::uint32_t>,
             std::deque<VectorClock>>
        m_cross_counters;
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>,
             std::pair<std::uint32_t, VectorClock>>
        m_cross_rounds;
};

}  // namespace npusim::check
