// Cross-core flags of one kernel: CrossCoreSetFlag<mode, pipe>(id) / CrossCoreWaitFlag(id).
//
// Each block has a counter per flag id (0-15, kCrossCoreFlagIds) that a wait decrements; it
// holds at most 16 unconsumed sets. What a set adds depends on its mode:
//   mode 0: a round among all AIV blocks (or all AIC blocks) of the kernel; when every member
//           has set, each member's counter gets one.
//   mode 1: the same among the AIV blocks of one group (MIX_AIC_1_2).
//   mode 2: point to point inside a group: an AIC set adds one to each AIV of its group, an
//           AIV set adds one to its group's AIC.
// No SystemC here: the core blocks on an event and asks again.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "base/cross_core_routing.h"
#include "base/kernel_type.h"
#include "base/types.h"

namespace npusim {

struct CrossCoreSet {
    Cycle visible = 0;        // when the waiting core can see it
    std::uint32_t block = 0;  // the (last) setter, for reports and traces
    CoreType core_type = CoreType::Vector;
    std::uint64_t serial = 0;
};

class CrossCoreFlags final {
public:
    static constexpr std::uint32_t kFlagIds = kCrossCoreFlagIds;
    static constexpr std::size_t kMaxPending = kCrossCoreMaxPending;

    /// Adds one set for `dest`. Returns false (and adds nothing) if its counter is full.
    bool post(BlockKey dest, std::uint32_t id, const CrossCoreSet& set);
    /// One member of a round (modes 0 and 1) has set. `round` identifies the member set
    /// (e.g. "all AIV" or "AIVs of group 3"). When every member has set, each member gets one
    /// count visible at the latest set + latency; returns false if a member's counter is full.
    bool join_round(std::uint64_t round, std::uint32_t id, const std::vector<BlockKey>& members,
                    const CrossCoreSet& set, Cycle latency);
    /// Takes the oldest set for `dest`, if any.
    std::optional<CrossCoreSet> take(BlockKey dest, std::uint32_t id);
    std::size_t pending(BlockKey dest, std::uint32_t id) const;
    /// Members of `round` that have set in the current, incomplete round.
    std::uint32_t round_count(std::uint64_t round, std::uint32_t id) const;

private:
    struct Round {
        std::uint32_t count = 0;
        CrossCoreSet latest;
    };
    std::map<std::pair<BlockKey, std::uint32_t>, std::deque<CrossCoreSet>> m_counters;
    std::map<std::pair<std::uint64_t, std::uint32_t>, Round> m_rounds;
};

}  // namespace npusim
