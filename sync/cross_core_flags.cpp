#include "sync/cross_core_flags.h"

#include <algorithm>

namespace npusim {

bool CrossCoreFlags::post(BlockKey dest, std::uint32_t id, const CrossCoreSet& set) {
    auto& fifo = m_counters[{dest, id}];
    if (fifo.size() >= kMaxPending) return false;
    fifo.push_back(set);
    return true;
}

bool CrossCoreFlags::join_round(std::uint64_t round, std::uint32_t id,
                                const std::vector<BlockKey>& members, const CrossCoreSet& set,
                                Cycle latency) {
    Round& r = m_rounds[{round, id}];
    ++r.count;
    if (set.visible >= r.latest.visible) r.latest = set;
    if (r.count < members.size()) return true;
    CrossCoreSet done = r.latest;
    done.visible += latency;
    r = Round{};
    bool ok = true;
    for (const BlockKey& member : members) ok = post(member, id, done) && ok;
    return ok;
}

std::optional<CrossCoreSet> CrossCoreFlags::take(BlockKey dest, std::uint32_t id) {
    const auto it = m_counters.find({dest, id});
    if (it == m_counters.end() || it->second.empty()) return std::nullopt;
    const CrossCoreSet set = it->second.front();
    it->second.pop_front();
    return set;
}

std::size_t CrossCoreFlags::pending(BlockKey dest, std::uint32_t id) const {
    const auto it = m_counters.find({dest, id});
    return it == m_counters.end() ? 0 : it->second.size();
}

std::uint32_t CrossCoreFlags::round_count(std::uint64_t round, std::uint32_t id) const {
    const auto it = m_rounds.find({round, id});
    return it == m_rounds.end() ? 0 : it->second.count;
}

}  // namespace npusim
