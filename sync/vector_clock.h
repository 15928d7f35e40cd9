// Vector clocks over the checker's agents (one per pipe of a block, shared by the successive
// blocks of a core that are ordered anyway, plus the scalar unit's store buffer, the host and
// each stream). Sparse: a sorted list of the non-zero entries, because a
// block's clock mostly knows its own agents, and flags copy clocks on every SetFlag.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace npusim {

using AgentId = std::uint32_t;
using EpochCount = std::uint32_t;

class VectorClock final {
public:
    EpochCount get(AgentId agent) const {
        const auto it = find(agent);
        return it != m_entries.end() && it->first == agent ? it->second : 0;
    }
    void set(AgentId agent, EpochCount value) {
        const auto it = find(agent);
        if (it != m_entries.end() && it->first == agent) {
            it->second = value;
        } else {
            m_entries.insert(it, {agent, value});
        }
        ++m_version;
    }
    void raise(AgentId agent, EpochCount value) {
        const auto it = find(agent);
        if (it != m_entries.end() && it->first == agent) {
            if (it->second >= value) return;
            it->second = value;
        } else {
            if (value == 0) return;
            m_entries.insert(it, {agent, value});
        }
        ++m_version;
    }
    /// this = max(this, other), elementwise. One pass when `other` knows no agent this clock
    /// lacks (the common case: a flag's clock from a pipe of the same block); otherwise the
    /// missing entries are merged in from the back, in place. Allocates only to grow.
    void join(const VectorClock& other) {
        if (other.m_entries.empty() || &other == this) return;
        bool raised = false;
        std::size_t missing = 0;
        auto a = m_entries.begin();
        const auto a_end = m_entries.end();
        for (const Entry& e : other.m_entries) {
            while (a != a_end && a->first < e.first) ++a;
            if (a != a_end && a->first == e.first) {
                if (e.second > a->second) {
                    a->second = e.second;
                    raised = true;
                }
                ++a;
            } else if (e.second != 0) {  // a zero entry adds nothing
                ++missing;
            }
        }
        if (missing != 0) merge_missing(other, missing);
        if (raised || missing != 0) ++m_version;
    }
    /// Incremented on every change: lets a consumer skip a join it has already done.
    std::uint64_t version() const { return m_version; }

private:
    using Entry = std::pair<AgentId, EpochCount>;
    std::vector<Entry>::iterator find(AgentId agent) {
        return std::lower_bound(m_entries.begin(), m_entries.end(), agent,
                                [](const Entry& e, AgentId id) { return e.first < id; });
    }
    std::vector<Entry>::const_iterator find(AgentId agent) const {
        return std::lower_bound(m_entries.begin(), m_entries.end(), agent,
                                [](const Entry& e, AgentId id) { return e.first < id; });
    }

    // Inserts `other`'s `missing` non-zero entries this clock lacks, keeping the order; the
    // shared entries are already the maximum (join raised them).
    void merge_missing(const VectorClock& other, std::size_t missing) {
        std::size_t mine = m_entries.size();
        std::size_t theirs = other.m_entries.size();
        std::size_t out = mine + missing;
        m_entries.resize(out);
        while (out > mine) {  // until every missing entry is placed
            const Entry& e = other.m_entries[theirs - 1];
            if (mine > 0 && m_entries[mine - 1].first >= e.first) {
                if (m_entries[mine - 1].first == e.first) --theirs;
                m_entries[--out] = m_entries[--mine];
            } else {
                if (e.second != 0) m_entries[--out] = e;
                --theirs;
            }
        }
    }

    std::vector<Entry> m_entries;
    std::uint64_t m_version = 1;
};

}  // namespace npusim
