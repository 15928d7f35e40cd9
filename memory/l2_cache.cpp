#include "memory/l2_cache.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace npusim {

void L2Cache::FreeDeleter::operator()(std::uint32_t* p) const {
    std::free(p);
}

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
    if (!m_lines) {
        m_lines.reset(
            static_cast<std::uint32_t*>(std::calloc(m_sets * m_ways, sizeof(std::uint32_t))));
        if (!m_lines) throw std::bad_alloc();
    }
    const std::uint64_t first = address / m_line_bytes;
    const std::uint64_t last = (address + bytes - 1) / m_line_bytes;
    for (std::uint64_t line = first; line <= last; ++line) {
        const std::uint64_t begin = std::max(address, line * m_line_bytes);
        const std::uint64_t end = std::min(address + bytes, (line + 1) * m_line_bytes);
        const std::uint64_t part = end - begin;
        const auto tag = static_cast<std::uint32_t>(line + 1) & ~kDirty;
        std::uint32_t* ways = &m_lines[set_of(line) * m_ways];
        std::uint64_t at = 0;
        while (at < m_ways && (ways[at] & ~kDirty) != tag && ways[at] != 0) ++at;
        if (at < m_ways && ways[at] != 0) {  // hit: move to the front
            const std::uint32_t word = ways[at] | (write ? kDirty : 0);
            std::copy_backward(ways, ways + at, ways + at + 1);
            ways[0] = word;
            if (!write) result.hit_bytes += part;
            continue;
        }
        if (!write) result.miss_bytes += part;
        if (!write && bypass) continue;
        // Miss: the last way (empty, or the least recently used) makes room at the front.
        const std::uint32_t victim = ways[m_ways - 1];
        if (victim != 0 && (victim & kDirty) != 0) result.writeback_bytes += m_line_bytes;
        std::copy_backward(ways, ways + m_ways - 1, ways + m_ways);
        ways[0] = tag | (write ? kDirty : 0);
    }
    return result;
}

}  // namespace npusim
