// Happens-before edges from synchronization, and synccheck:
//   - SetFlag carries everything its pipe completed; WaitFlag joins it (intra-core flags, per
//     core, (src, dst) pipe pair and event id, oldest first);
//   - PipeBarrier<pipe> orders a pipe's instructions; PipeBarrier<PIPE_ALL> drains the block;
//   - hard and soft SyncAll: every arrival's work before every departure;
//   - cross-core flags, routed as the simulator routes them (base/cross_core_routing.h).
// Reports a duplicate SetFlag, a SetFlag never waited for, and a cross-core flag overflow.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <source_location>
#include <tuple>
#include <utility>
#include <vector>

#include "base/pipe_table.h"
#include "base/transaction.h"
#include "sync/check/agents.h"
#include "sync/check/checker.h"
#include "sync/check/finding_reporter.h"
#include "sync/check/vector_clock.h"

namespace npusim::check {

// One pending SetFlag of an intra-core flag.
struct FlagRecord {
    std::uint64_t serial = 0;
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    std::source_location where;
    VectorClock clock;
    bool reported = false;
};
// One flag's pending SetFlags, oldest first: nearly always 0 to 2. Consumed records keep
// their storage (their clocks' included) past the live ones, so a SetFlag/WaitFlag pair
// allocates nothing once the queue has grown.
class FlagQueue final {
public:
    bool empty() const { return m_size == 0; }
    FlagRecord* begin() { return m_records.data(); }
    FlagRecord* end() { return m_records.data() + m_size; }
    const FlagRecord& back() const { return m_records[m_size - 1]; }
    /// A new newest record, holding whatever a consumed one left: the caller sets every
    /// field.
    FlagRecord& push() {
        if (m_size == m_records.size()) m_records.emplace_back();
        return m_records[m_size++];
    }
    /// Removes `r` (one of the live records), keeping the others' order.
    void erase(FlagRecord* r) {
        for (FlagRecord* next = r + 1; next != end(); ++r, ++next) std::swap(*r, *next);
        --m_size;
    }
    /// Removes every live record `remove` holds for, keeping the others' order.
    template <class Predicate>
    void erase_if(Predicate remove) {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < m_size; ++i) {
            if (remove(m_records[i])) continue;
            if (kept != i) std::swap(m_records[kept], m_records[i]);
            ++kept;
        }
        m_size = kept;
    }

private:
    std::vector<FlagRecord> m_records;  // [0, m_size) live, oldest first
    std::size_t m_size = 0;
};

class SyncEdges final {
public:
    SyncEdges(Agents& agents, FindingReporter& reporter, const CheckerOptions& options);

    /// A synchronization instruction (one without memory accesses) of block `b`.
    void instruction(BlockState& b, const Transaction& tx) {
        // Intra-core flags are most of a fine-grained kernel's instructions: they are
        // handled inline, everything else out of line.
        if (tx.op == Op::SetFlag) {
            set_flag(b, tx);
        } else if (tx.op == Op::WaitFlag) {
            wait_flag(b, tx);
        } else {
            other_instruction(b, tx);
        }
    }

    /// synccheck at kernel end: every SetFlag of the kernel still pending was never waited for.
    void report_unpaired(std::uint32_t kernel_id);
    /// The kernel aborted: the reset cores dropped its pending intra-core flags.
    void drop_flags(std::uint32_t kernel_id);
    /// The kernel is over: its barriers and cross-core flags are forgotten (its intra-core
    /// flags stay set on their cores for the next kernel, as on hardware).
    void forget_kernel(std::uint32_t kernel_id);

private:
    // The queue of tx's flag on b's core: the core remembers the ones its blocks used last
    // (a queue belongs to its core, and the map never drops one, so the next block on the
    // core finds them too); others (and a flag that names no real pipe: the decoder admits
    // none) are asked of the map.
    [[gnu::always_inline]] FlagQueue& flag_queue(BlockState& b, const Transaction& tx) {
        const int src = pipe_index(tx.flag_src);
        const int dst = pipe_index(tx.flag_dst);
        const auto& cores = m_recent_queues[b.type == CoreType::Cube ? 1 : 0];
        if (src >= 0 && dst >= 0 && b.core < cores.size()) {
            if (FlagQueue* q = cores[b.core].find(RecentFlagQueues::key(tx.event_id, src, dst)))
                return *q;
        }
        return find_flag_queue(b, tx);
    }
    RecentFlagQueues& recent_queues(const BlockState& b) {
        auto& cores = m_recent_queues[b.type == CoreType::Cube ? 1 : 0];
        if (b.core >= cores.size()) cores.resize(b.core + 1);
        return cores[b.core];
    }
    [[gnu::noinline]] FlagQueue& find_flag_queue(BlockState& b, const Transaction& tx);
    // Inline: most of a fine-grained kernel's instructions are these two.
    void set_flag(BlockState& b, const Transaction& tx) {
        const Slot src = slot_of(tx.flag_src);
        if (src != kScalarSlot) m_agents.issue_edge(b, src);
        FlagQueue& queue = flag_queue(b, tx);
        if (m_options.synccheck && !queue.empty()) report_duplicate_set(tx, queue.back());
        FlagRecord& record = queue.push();
        record.serial = tx.serial;
        record.kernel_id = tx.kernel_id;
        record.block = tx.block;
        record.where = tx.where;
        record.reported = false;
        ++m_unreported;
        m_agents.fired(b, src, record.clock);
    }
    void wait_flag(BlockState& b, const Transaction& tx) {
        const Slot dst = slot_of(tx.flag_dst);
        if (dst != kScalarSlot) m_agents.issue_edge(b, dst);
        FlagQueue& queue = flag_queue(b, tx);
        FlagRecord* it = std::find_if(queue.begin(), queue.end(), [&](const FlagRecord& r) {
            return r.serial == tx.partner_serial;
        });
        if (it == queue.end()) return;
        // A flag another kernel left set: this kernel learns beyond its start.
        if (it->kernel_id != b.kernel_id) m_agents.kernel(b.kernel_id).done_from_blocks = true;
        m_agents.agent(b, dst).clock.join(it->clock);
        if (!it->reported) --m_unreported;
        queue.erase(it);
    }
    void other_instruction(BlockState& b, const Transaction& tx);
    [[gnu::noinline]] void report_duplicate_set(const Transaction& tx, const FlagRecord& open);
    void cross_set(const Transaction& tx, const VectorClock& clock);
    void post_cross(const Transaction& tx, CoreType type, std::uint32_t block,
                    const VectorClock& clock);

    Agents& m_agents;
    FindingReporter& m_reporter;
    const CheckerOptions& m_options;

    // Intra-core flags: per (core type, core, src, dst, id), oldest first. The ordered map
    // gives the report order at kernel end; its nodes never move.
    std::map<std::tuple<CoreType, std::uint32_t, Pipe, Pipe, std::uint32_t>, FlagQueue> m_flags;
    std::size_t m_unreported = 0;  // live records in m_flags not reported yet
    // The queues each core's blocks used last, per core type (vector, cube) and core.
    std::array<std::vector<RecentFlagQueues>, 2> m_recent_queues;

    // SyncAll barriers by (kernel, sync_id, op); flags in GM (op GmFlagSet for set and wait).
    // Transaction::sync_id is the barrier instance's identity (base/syncall_id.h): equal on every
    // block of the same instance and different for every other instance of the kernel, so the
    // arrivals of one instance join one clock and its departures learn it. The op keeps hard and
    // soft apart.
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>, VectorClock> m_barriers;

    // Cross-core flags, mirroring sync/cross_core_flags.h: each block's pending sets per id
    // (oldest first), and the rounds of modes 0 and 1 by (kernel, round key, id).
    std::map<std::tuple<std::uint32_t, CoreType, std::uint32_t, std::uint32_t>,
             std::deque<VectorClock>>
        m_cross_counters;
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>,
             std::pair<std::uint32_t, VectorClock>>
        m_cross_rounds;
    VectorClock m_cross_fired;  // a CrossCoreSetFlag's clock, its storage reused
};

}  // namespace npusim::check
