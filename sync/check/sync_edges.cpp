#include "sync/check/sync_edges.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "base/cross_core_routing.h"
#include "base/kernel_type.h"
#include "base/pipe_table.h"

namespace npusim::check {

namespace {

// "17th": the ordinal of n, for messages.
std::string ordinal(std::uint64_t n) {
    const std::uint64_t tens = n % 100;
    const char* suffix = "th";
    if (tens < 11 || tens > 13) {
        switch (n % 10) {
            case 1:
                suffix = "st";
                break;
            case 2:
                suffix = "nd";
                break;
            case 3:
                suffix = "rd";
                break;
            default:
                break;
        }
    }
    return std::to_string(n) + suffix;
}

}  // namespace

SyncEdges::SyncEdges(Agents& agents, FindingReporter& reporter, const CheckerOptions& options)
    : m_agents(agents), m_reporter(reporter), m_options(options) {}

FlagQueue& SyncEdges::find_flag_queue(BlockState& b, const Transaction& tx) {
    FlagQueue& queue = m_flags[{b.type, b.core, tx.flag_src, tx.flag_dst, tx.event_id}];
    const int src = pipe_index(tx.flag_src);
    const int dst = pipe_index(tx.flag_dst);
    if (src >= 0 && dst >= 0)  // remembered by the core from now on
        recent_queues(b).add(RecentFlagQueues::key(tx.event_id, src, dst), &queue);
    return queue;
}

void SyncEdges::report_duplicate_set(const Transaction& tx, const FlagRecord& open) {
    m_reporter.single(
        FindingKind::DuplicateSetFlag, Severity::Error, MemSpace::GM, site_of(tx), false, 0, 0,
        "SetFlag<" + short_pipe(tx.flag_src) + "_" + short_pipe(tx.flag_dst) + ">(" +
            std::to_string(tx.event_id) + ") is set again before the WaitFlag of the one at " +
            location_line(open.where),
        "wait for the first SetFlag before setting it again, or use "
        "another event id");
}

void SyncEdges::other_instruction(BlockState& b, const Transaction& tx) {
    switch (tx.op) {
        case Op::PipeBarrier: {
            if (tx.pipe == Pipe::ALL) {
                m_agents.scalar_learns(b, m_agents.drained(b));
                return;
            }
            const Slot slot = slot_of(tx.pipe);
            m_agents.issue_edge(b, slot);
            Agent& a = m_agents.agent(b, slot);
            a.clock.raise(b.agents[slot], a.counter);
            return;
        }
        case Op::SyncAll:
        case Op::SoftSyncAll: {
            const auto key =
                std::make_tuple(tx.kernel_id, tx.sync_id, static_cast<std::uint32_t>(tx.op));
            if (tx.arrival) {
                m_barriers[key].join(m_agents.drained(b));
            } else {
                m_agents.scalar_learns(b, m_barriers[key]);
            }
            return;
        }
        case Op::GmFlagSet:
        case Op::GmFlagWait: {  // a flag in GM: the set's drained work, learned by its waits
            // Both drain every pipe of their block (a PipeBarrier<PIPE_ALL>).
            m_agents.scalar_learns(b, m_agents.drained(b));
            const auto key = std::make_tuple(tx.kernel_id, tx.sync_id,
                                             static_cast<std::uint32_t>(Op::GmFlagSet));
            if (tx.op == Op::GmFlagSet) {
                m_barriers[key].join(m_agents.drained(b));
            } else {
                m_agents.scalar_learns(b, m_barriers[key]);
            }
            return;
        }
        case Op::CrossCoreSetFlag: {
            const Slot src = slot_of(tx.pipe);
            if (src != kScalarSlot) m_agents.issue_edge(b, src);
            m_agents.fired(b, src, m_cross_fired);
            cross_set(tx, m_cross_fired);
            return;
        }
        case Op::CrossCoreWaitFlag: {
            auto& queue = m_cross_counters[{tx.kernel_id, tx.core_type, tx.block, tx.event_id}];
            if (queue.empty()) return;
            m_agents.scalar_learns(b, queue.front());
            queue.pop_front();
            return;
        }
        default:
            return;
    }
}

void SyncEdges::post_cross(const Transaction& tx, CoreType type, std::uint32_t block,
                           const VectorClock& clock) {
    auto& q = m_cross_counters[{tx.kernel_id, type, block, tx.event_id}];
    if (q.size() >= kCrossCoreMaxPending) {
        if (m_options.synccheck) {
            m_reporter.single(FindingKind::CrossCoreOverflow, Severity::Error, MemSpace::GM,
                              site_of(tx), false, 0, 0,
                              "cross-core flag " + std::to_string(tx.event_id) + " of " +
                                  std::string(to_string(type)) + " block " + std::to_string(block) +
                                  " is set a " + ordinal(kCrossCoreMaxPending + 1) +
                                  " time without a CrossCoreWaitFlag",
                              "wait for the flag before setting it again (at most " +
                                  std::to_string(kCrossCoreMaxPending) + " pending)");
        }
        return;
    }
    q.push_back(clock);
}

// Where the set goes is the simulator's routing; a round (modes 0 and 1) gives every member
// the join of all members' sets once all have set.
void SyncEdges::cross_set(const Transaction& tx, const VectorClock& clock) {
    const KernelInfo& k = m_agents.kernel(tx.kernel_id).info;
    const CrossCoreRoute route =
        route_cross_core_set(k.type, k.blocks, tx.core_type, tx.block, tx.mode);
    if (!route.round) {
        for (const BlockKey& target : route.targets)
            post_cross(tx, target.type, target.block, clock);
        return;
    }
    auto& [count, joined] = m_cross_rounds[{tx.kernel_id, route.round_key, tx.event_id}];
    ++count;
    joined.join(clock);
    if (count < route.targets.size()) return;
    const VectorClock done = joined;
    count = 0;
    joined = VectorClock{};
    for (const BlockKey& member : route.targets) post_cross(tx, member.type, member.block, done);
}

void SyncEdges::report_unpaired(std::uint32_t kernel_id) {
    if (m_unreported == 0) return;  // every SetFlag was waited for (or reported): no walk
    for (auto& [key, queue] : m_flags) {
        for (FlagRecord& r : queue) {
            if (r.kernel_id != kernel_id || r.reported) continue;
            r.reported = true;
            --m_unreported;
            const auto& [type, core, src, dst, id] = key;
            const std::string pair = short_pipe(src) + "_" + short_pipe(dst);
            Site s{.kernel_id = r.kernel_id,
                   .block = r.block,
                   .core_type = type,
                   .pipe = src,
                   .serial = r.serial,
                   .where = r.where};
            m_reporter.single(FindingKind::UnpairedSetFlag, Severity::Error, MemSpace::GM, s, false,
                              0, 0,
                              "SetFlag<" + pair + ">(" + std::to_string(id) +
                                  ") is never waited for by the end of the kernel; it stays set "
                                  "for the next kernel on this core",
                              "add the matching WaitFlag<" + pair + ">(" + std::to_string(id) +
                                  ") before the block ends");
        }
    }
}

namespace {
// Erases the entries of `map` (keyed by tuples whose first element is a kernel id) of
// kernel `kernel_id`.
template <class Map>
void erase_kernel(Map& map, std::uint32_t kernel_id) {
    typename Map::key_type key{};  // the kernel's first possible key
    std::get<0>(key) = kernel_id;
    const auto first = map.lower_bound(key);
    auto last = first;
    while (last != map.end() && std::get<0>(last->first) == kernel_id) ++last;
    map.erase(first, last);
}
}  // namespace

void SyncEdges::forget_kernel(std::uint32_t kernel_id) {
    erase_kernel(m_barriers, kernel_id);
    erase_kernel(m_cross_counters, kernel_id);
    erase_kernel(m_cross_rounds, kernel_id);
}

void SyncEdges::drop_flags(std::uint32_t kernel_id) {
    for (auto& [key, queue] : m_flags)
        queue.erase_if([&](const FlagRecord& r) {
            if (r.kernel_id != kernel_id) return false;
            if (!r.reported) --m_unreported;
            return true;
        });
}

}  // namespace npusim::check
