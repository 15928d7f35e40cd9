#include "sync/hard_barrier.h"

#include <algorithm>

#include "base/invariant.h"

namespace npusim {

HardBarrier::Arrival HardBarrier::arrive(std::uint32_t index, Cycle at, Cycle latency) {
    NPUSIM_INVARIANT(index < m_arrived.size(), "HardBarrier", at,
                     "a block that is not a participant arrived");
    NPUSIM_INVARIANT(!m_arrived[index], "HardBarrier", at,
                     "a participant arrived twice in one generation");
    NPUSIM_INVARIANT(at >= m_latest_arrival, "HardBarrier", at,
                     "arrivals must come in simulated-time order");
    Arrival arrival{m_generation, false};
    m_arrived[index] = true;
    ++m_count;
    m_latest_arrival = std::max(m_latest_arrival, at);
    if (m_count == m_arrived.size()) {
        m_last_release = m_latest_arrival + latency;
        ++m_generation;
        std::fill(m_arrived.begin(), m_arrived.end(), false);
        m_count = 0;
        m_latest_arrival = 0;
        arrival.last = true;
    }
    return arrival;
}

std::vector<std::uint32_t> HardBarrier::missing() const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < m_arrived.size(); ++i) {
        if (!m_arrived[i]) out.push_back(i);
    }
    return out;
}

}  // namespace npusim
