// Shared GM bandwidth. Time is cut into windows of `window_cycles`; each window can move
// chip_bytes_per_cycle * window_cycles bytes in total across all cores. A transfer streams
// through consecutive windows, taking what earlier reservations left, with its average rate
// since it began capped at its own path rate. Many cores copying at once therefore saturate
// at the chip rate, and a transfer alone runs at exactly its path rate:
//   alone:      cycles = ceil(bytes / path_bytes_per_cycle)
//   contended:  window capacity goes first come, first served (issue order); a transfer held
//               back early catches up later, so the aggregate stays at the chip rate
//   fair share: with share_among(&n), a transfer's average rate is also capped at
//               chip_bytes_per_cycle / n while n > 1 (round-robin arbitration among the n
//               cores holding blocks: cores streaming together progress together)
#pragma once

#include <cstdint>
#include <deque>

#include "base/types.h"

namespace npusim {

class GmBandwidth final {
public:
    GmBandwidth(std::uint64_t chip_bytes_per_cycle, std::uint64_t window_cycles);

    /// Reserves bandwidth for `bytes` starting at `start`; returns the cycle after the last
    /// byte moved. bytes == 0 returns start.
    Cycle transfer(Cycle start, std::uint64_t bytes, std::uint64_t path_bytes_per_cycle);

    /// Windows wholly before `now` can no longer be reserved: drop them (keeps memory flat).
    void forget_before(Cycle now);

    std::uint64_t total_bytes() const { return m_total_bytes; }

    /// Fair arbitration: while `*requesters` > 1, one transfer moves at most
    /// chip_bytes_per_cycle / *requesters on average (nullptr: first come, first served).
    void share_among(const std::uint32_t* requesters) { m_requesters = requesters; }

private:
    std::uint64_t& used(std::uint64_t window);

    std::uint64_t m_chip_rate;
    std::uint64_t m_window_cycles;
    const std::uint32_t* m_requesters = nullptr;
    std::uint64_t m_window_capacity;
    std::deque<std::uint64_t> m_used;  // bytes reserved per window, from m_first_window on
    std::uint64_t m_first_window = 0;
    std::uint64_t m_total_bytes = 0;
};

}  // namespace npusim
