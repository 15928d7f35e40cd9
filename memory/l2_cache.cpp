#include "memory/l2_cache.h"

#include <algorithm>

namespace npusim {

L2Cache::L2Cache(std::uint64_t capacity_bytes, std::uint64_t line_bytes, std::uint64_t ways)
    : m_line_bytes(line_bytes == 0 ? 1 : line_bytes), m_ways(ways == 0 ? 1 : ways) {
    m_sets = capacity_bytes / (m_line_bytes * m_ways);
}

std::uint64_t L2Cache::set_of(std::uint64_t line) const {
    // Hardware hashes the set index so that power-of-two strides spread over the sets; a
    // multiplicative hash of the line number does the same here.
    const std::uint64_t h = (line * 0x9E3779B97F4A7C15ULL) >> 17;
    return h % m_sets;
}

L2Access L2Cache::access(std::uint64_t address, std::uint64_t bytes, bool write, bool bypass) {
    L2Access result;
    if (bytes == 0) return result;
    if (m_sets == 0) {
        if (!write) result.miss_bytes = bytes;
        return result;
    }
    if (m_lines.empty()) m_lines.resize(m_sets * m_ways);
    const std::uint64_t first = address / m_line_bytes;
    const std::uint64_t last = (address + bytes - 1) / m_line_bytes;
    for (std::uint64_t line = first; line <= last; ++line) {
        const std::uint64_t begin = std::max(address, line * m_line_bytes);
        const std::uint64_t end = std::min(address + bytes, (line + 1) * m_line_bytes);
        const std::uint64_t part = end - begin;
        Way* ways = &m_lines[set_of(line) * m_ways];
        Way* victim = nullptr;  // an empty way, else the least recently used
        Way* found = nullptr;
        for (std::uint64_t w = 0; w < m_ways; ++w) {
            Way& way = ways[w];
            if (way.tag == line + 1) {
                found = &way;
                break;
            }
            if (victim == nullptr ||
                (victim->tag != 0 && (way.tag == 0 || way.stamp < victim->stamp)))
                victim = &way;
        }
        ++m_clock;
        if (found) {
            found->stamp = m_clock;
            found->dirty = found->dirty || write;
            if (!write) result.hit_bytes += part;
            continue;
        }
        if (!write) result.miss_bytes += part;
        if (!write && bypass) continue;
        if (victim->tag != 0 && victim->dirty) result.writeback_bytes += m_line_bytes;
        victim->tag = line + 1;
        victim->stamp = m_clock;
        victim->dirty = write;
    }
    return result;
}

}  // namespace npusim
