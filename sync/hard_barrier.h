// Hard SyncAll: a reusable hardware barrier over a fixed set of participants (blocks).
// Released `latency` cycles after the last participant arrived. No SystemC here: the core
// waits on an event and asks the barrier whether its generation was released.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/types.h"

namespace npusim {

class HardBarrier final {
public:
    explicit HardBarrier(std::uint32_t participants) : m_arrived(participants, false) {}

    struct Arrival {
        std::uint64_t generation = 0;
        bool last = false;  // this arrival released the barrier
    };
    /// Participant `index` arrives at cycle `at`. Arrivals must come in time order (the core
    /// synchronizes to `at` before arriving).
    Arrival arrive(std::uint32_t index, Cycle at, Cycle latency);
    bool released(std::uint64_t generation) const { return generation < m_generation; }
    /// Release cycle of the most recently released generation.
    Cycle last_release() const { return m_last_release; }
    std::uint32_t participants() const { return static_cast<std::uint32_t>(m_arrived.size()); }
    std::uint32_t arrived() const { return m_count; }
    /// Participants of the current generation that have not arrived, ascending.
    std::vector<std::uint32_t> missing() const;

private:
    std::vector<bool> m_arrived;
    std::uint32_t m_count = 0;
    std::uint64_t m_generation = 0;
    Cycle m_latest_arrival = 0;
    Cycle m_last_release = 0;
};

}  // namespace npusim
