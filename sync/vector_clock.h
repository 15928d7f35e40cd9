// Vector clocks over the checker's agents (one per pipe of a block, plus the scalar unit's
// store buffer and the host). Sparse: a sorted list of the non-zero entries, because a
// block's clock mostly knows its own agents, and flags copy clocks on every SetFlag.
#pragma once

#include <algorithm>
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
        if (get(agent) < value) set(agent, value);
    }
    /// this = max(this, other), elementwise.
    void join(const VectorClock& other) {
        if (other.m_entries.empty() || &other == this) return;
        // Common case: `other` knows no agent this clock lacks; raise in place, no allocation.
        {
            auto a = m_entries.begin();
            bool subset = true;
            for (const Entry& e : other.m_entries) {
                while (a != m_entries.end() && a->first < e.first) ++a;
                if (a == m_entries.end() || a->first != e.first) {
                    subset = false;
                    break;
                }
                ++a;
            }
            if (subset) {
                bool raised = false;
                a = m_entries.begin();
                for (const Entry& e : other.m_entries) {
                    while (a->first < e.first) ++a;
                    if (e.second > a->second) {
                        a->second = e.second;
                        raised = true;
                    }
                    ++a;
                }
                if (raised) ++m_version;
                return;
            }
        }
        bool changed = false;
        std::vector<Entry> merged;
        merged.reserve(m_entries.size() + other.m_entries.size());
        auto a = m_entries.begin();
        auto b = other.m_entries.begin();
        while (a != m_entries.end() || b != other.m_entries.end()) {
            if (b == other.m_entries.end() || (a != m_entries.end() && a->first < b->first)) {
                merged.push_back(*a++);
            } else if (a == m_entries.end() || b->first < a->first) {
                merged.push_back(*b++);
                changed = true;
            } else {
                if (b->second > a->second) changed = true;
                merged.push_back({a->first, std::max(a->second, b->second)});
                ++a;
                ++b;
            }
        }
        if (changed) {
            m_entries.swap(merged);
            ++m_version;
        }
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

    std::vector<Entry> m_entries;
    std::uint64_t m_version = 1;
};

}  // namespace npusim
