// What the checker's components share about one access: the Site that names it (enough to
// order it and to report it) and the View that asks "is this site ordered before me?".
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <source_location>

#include "base/transaction.h"
#include "base/types.h"
#include "sync/check/vector_clock.h"

namespace npusim::check {

/// Site::kernel_id of an access no kernel made (a stream's copy, the host thread).
inline constexpr std::uint32_t kNoKernel = ~std::uint32_t{0};

// One access as the checker names it.
struct Site {
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    Pipe pipe = Pipe::S;
    bool atomic = false;       // a write in atomic mode (Transaction::atomic)
    std::uint32_t launch = 0;  // its host call in check::HostCalls (0: Simulator::launch/write)
    std::uint64_t serial = 0;
    std::source_location where;
    AgentId agent = 0;
    EpochCount epoch = 0;
    Cycle time = 0;  // when it took effect (read: start, write: end): names which of two
                     // unordered accesses came first, and whether a read saw a write land
};

/// The site of an instruction (no agent, epoch, launch or time yet).
inline Site site_of(const Transaction& tx) {
    Site site;
    site.kernel_id = tx.kernel_id;
    site.block = tx.block;
    site.core_type = tx.core_type;
    site.pipe = tx.pipe;
    site.serial = tx.serial;
    site.where = tx.where;
    return site;
}

inline bool same_location(const std::source_location& a, const std::source_location& b) {
    return a.line() == b.line() && a.column() == b.column() &&
           (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

inline bool same_block(const Site& a, const Site& b) {
    return a.kernel_id == b.kernel_id && a.block == b.block && a.core_type == b.core_type &&
           a.launch == b.launch;
}

// "Is `site` ordered before the accessor?" The accessor's clock plus at most one extra
// (agent, count) pair: the scalar unit's own store buffer when it checks its own accesses.
struct View {
    const VectorClock& clock;
    AgentId extra_agent = ~AgentId{0};
    EpochCount extra = 0;
    AgentId self_agent = ~AgentId{0};  // the accessing instruction itself: an in-place op
    EpochCount self_epoch = 0;         // reads and writes the same bytes without a hazard
    /// The latest epoch of `agent` ordered before the accessor.
    EpochCount known(AgentId agent) const {
        const EpochCount k = clock.get(agent);
        return agent == extra_agent ? std::max(k, extra) : k;
    }
    bool covers(const Site& site) const {
        if (site.agent == self_agent && site.epoch == self_epoch) return true;
        if (site.agent == extra_agent && site.epoch <= extra) return true;
        return clock.get(site.agent) >= site.epoch;
    }
};

}  // namespace npusim::check
