// A block that polls GM with its own scalar loads (a flag another block writes, read in a
// loop until it changes): a load that returns what this core's previous load of the same
// address returned saw nothing new. It is no progress, and once every busy core only polls
// or waits, the chip is stuck: the poll can never be satisfied (reported as a deadlock at the
// load's line, as a flag in GM is).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

#include "core/quiet_watch.h"

namespace npusim {

class GmPollWatch final {
public:
    /// Whether this load of `bytes` (at most 8) at `address` returned `value` as this core's
    /// previous load of that address did; remembers it. A load that saw a new value ends a poll.
    bool repeats(std::uint64_t address, const void* value, std::size_t bytes) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, value, bytes < sizeof bits ? bytes : sizeof bits);
        for (Seen& s : m_seen) {
            if (s.address != address || s.bytes != bytes) continue;
            const bool same = s.value == bits;
            s.value = bits;
            if (!same) m_watch.reset();
            return same;
        }
        m_seen[m_next] = {address, bits, bytes};
        m_next = (m_next + 1) % m_seen.size();
        m_watch.reset();
        return false;
    }
    /// Whether the block is polling (a repeat was seen since it last did anything else).
    bool watching() const { return m_watch.has_value(); }
    /// After a repeat at `now` (`busy`: the cores busy when it read): true when the chip can
    /// make no more progress.
    bool stuck(ChipResources& chip, Cycle now, std::uint32_t busy) {
        if (!m_watch) m_watch.emplace(chip, now);
        return m_watch->stuck_after_poll(now, busy, 2);
    }
    /// The block did something else, or ended: it no longer polls.
    void reset() {
        m_watch.reset();
        m_seen.fill({});
    }

private:
    struct Seen {
        std::uint64_t address = ~std::uint64_t{0};
        std::uint64_t value = 0;
        std::size_t bytes = 0;
    };
    std::array<Seen, 8> m_seen{};
    std::size_t m_next = 0;
    std::optional<QuietWatch> m_watch;
};

}  // namespace npusim
