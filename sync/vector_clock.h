// Vector clocks over the checker's agents (one per pipe of a block, plus the scalar unit's
// store buffer and the host). Entries past the end are zero; clocks grow with the agents a
// run creates, not with memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace npusim {

using AgentId = std::uint32_t;
using EpochCount = std::uint32_t;

class VectorClock final {
public:
    EpochCount get(AgentId agent) const { return agent < m_entries.size() ? m_entries[agent] : 0; }
    void set(AgentId agent, EpochCount value) {
        if (agent >= m_entries.size()) m_entries.resize(agent + 1, 0);
        m_entries[agent] = value;
        ++m_version;
    }
    void raise(AgentId agent, EpochCount value) {
        if (get(agent) < value) set(agent, value);
    }
    /// this = max(this, other), elementwise.
    void join(const VectorClock& other) {
        if (other.m_entries.size() > m_entries.size()) m_entries.resize(other.m_entries.size(), 0);
        bool changed = false;
        for (std::size_t i = 0; i < other.m_entries.size(); ++i) {
            if (other.m_entries[i] > m_entries[i]) {
                m_entries[i] = other.m_entries[i];
                changed = true;
            }
        }
        if (changed) ++m_version;
    }
    /// Incremented on every change: lets a consumer skip a join it has already done.
    std::uint64_t version() const { return m_version; }

private:
    std::vector<EpochCount> m_entries;
    std::uint64_t m_version = 1;
};

}  // namespace npusim
