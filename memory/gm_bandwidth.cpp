#include "memory/gm_bandwidth.h"

#include <algorithm>

namespace npusim {

GmBandwidth::GmBandwidth(std::uint64_t chip_bytes_per_cycle, std::uint64_t window_cycles)
    : m_chip_rate(chip_bytes_per_cycle),
      m_window_cycles(window_cycles),
      m_window_capacity(chip_bytes_per_cycle * window_cycles) {}

std::uint64_t& GmBandwidth::used(std::uint64_t window) {
    const std::uint64_t slot = window - m_first_window;
    if (slot >= m_used.size()) m_used.resize(slot + 1, 0);
    return m_used[slot];
}

Cycle GmBandwidth::transfer(Cycle start, std::uint64_t bytes, std::uint64_t path_rate) {
    if (bytes == 0) return start;
    m_total_bytes += bytes;
    // A reservation never reaches into forgotten windows: they are in the simulated past.
    const Cycle begin = std::max(start, m_first_window * m_window_cycles);
    Cycle t = begin;
    std::uint64_t moved = 0;
    bool held_back = false;
    // The rate cap as a fraction rate / per: the path rate, or a fair share of the chip rate
    // when more cores hold blocks than the chip rate gives each its path rate.
    std::uint64_t rate = path_rate, per = 1;
    if (m_requesters != nullptr && *m_requesters > 1 && path_rate * *m_requesters > m_chip_rate) {
        rate = m_chip_rate;
        per = *m_requesters;
    }
    for (;;) {
        const std::uint64_t window = t / m_window_cycles;
        const Cycle window_end = (window + 1) * m_window_cycles;
        std::uint64_t& taken = used(window);
        // The path rate caps the transfer's average since it began, not each window: a
        // transfer that found the early windows full catches up later, so that many
        // transfers starting together saturate the chip rate instead of the first ones
        // taking it all and the rest trickling at their path rate afterwards.
        const std::uint64_t path_room = (window_end - begin) * rate / per - moved;
        const std::uint64_t chip_room = m_window_capacity - taken;
        const std::uint64_t want = std::min(bytes - moved, path_room);
        const std::uint64_t take = std::min(want, chip_room);
        held_back = held_back || take < want;
        taken += take;
        moved += take;
        if (moved == bytes) {
            // Finished inside this window: at the path rate if it was never held back.
            const Cycle at_path_rate = begin + (bytes * per + rate - 1) / rate;
            if (!held_back) return at_path_rate;
            return std::max(at_path_rate, std::min(window_end, t + (take * per + rate - 1) / rate));
        }
        t = window_end;
    }
}

void GmBandwidth::forget_before(Cycle now) {
    const std::uint64_t window = now / m_window_cycles;
    while (m_first_window < window && !m_used.empty()) {
        m_used.pop_front();
        ++m_first_window;
    }
    if (m_used.empty()) m_first_window = std::max(m_first_window, window);
}

}  // namespace npusim
