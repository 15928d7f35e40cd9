#include "memory/byte_ranges.h"

#include <algorithm>

namespace npusim {

void ByteRanges::add(std::uint64_t lo, std::uint64_t hi) {
    if (lo >= hi) return;
    auto it = m_ranges.upper_bound(lo);
    if (it != m_ranges.begin() && std::prev(it)->second >= lo) --it;
    while (it != m_ranges.end() && it->first <= hi) {
        lo = std::min(lo, it->first);
        hi = std::max(hi, it->second);
        it = m_ranges.erase(it);
    }
    m_ranges.emplace(lo, hi);
}

void ByteRanges::remove(std::uint64_t lo, std::uint64_t hi) {
    if (lo >= hi) return;
    auto it = m_ranges.upper_bound(lo);
    if (it != m_ranges.begin() && std::prev(it)->second > lo) --it;
    while (it != m_ranges.end() && it->first < hi) {
        const std::uint64_t a = it->first;
        const std::uint64_t b = it->second;
        it = m_ranges.erase(it);
        if (a < lo) m_ranges.emplace(a, lo);
        if (b > hi) it = m_ranges.emplace(hi, b).first;
    }
}

}  // namespace npusim
