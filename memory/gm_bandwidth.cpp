#include "memory/gm_bandwidth.h"

#include <algorithm>

namespace npusim {

GmBandwidth::GmBandwidth(std::uint64_t chip_bytes_per_cycle, std::uint64_t window_cycles)
    : m_window_cycles(window_cycles), m_window_capacity(chip_bytes_per_cycle * window_cycles) {}

std::uint64_t& GmBandwidth::used(std::uint64_t window) {
    const std::uint64_t slot = window - m_first_window;
    if (slot >= m_used.size()) m_used.resize(slot + 1, 0);
    return m_used[slot];
}

Cycle GmBandwidth::transfer(Cycle start, std::uint64_t bytes, std::uint64_t path_rate) {
    if (bytes == 0) return start;
    m_total_bytes += bytes;
    // A reservation never reaches into forgotten windows: they are in the simulated past.
    Cycle t = std::max(start, m_first_window * m_window_cycles);
    std::uint64_t remaining = bytes;
    for (;;) {
        const std::uint64_t window = t / m_window_cycles;
        const Cycle window_end = (window + 1) * m_window_cycles;
        std::uint64_t& taken = used(window);
        const std::uint64_t path_room = (window_end - t) * path_rate;
        const std::uint64_t chip_room = m_window_capacity - taken;
        const std::uint64_t take = std::min({remaining, path_room, chip_room});
        taken += take;
        remaining -= take;
        if (remaining == 0) return t + (take + path_rate - 1) / path_rate;
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
